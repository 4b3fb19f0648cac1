// CheckCommand: `xtfq check STORE`: reads every live page, verifies every checksum and every
// format invariant; prints each problem on one line and exits 0 only when there is none.
//
// Thread-safety: as Command.
#pragma once

#include "cli/command.h"

namespace xtfq::cli {

class CheckCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  std::string store_;
  size_t max_problems_ = 100;
  bool allow_rollback_ = false;
};

}  // namespace xtfq::cli
