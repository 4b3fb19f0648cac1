// CheckCommand: `xtfq check STORE`: reads every live page, verifies every checksum and every
// format invariant; prints each problem on one line and exits 0 only when there is none. With
// --space, also where the stored bytes go, per array (--top N: the N largest, the rest in one row).
//
// Thread-safety: as Command.
#pragma once

#include "cli/command.h"
#include "store/store.h"
#include "store/store_checker.h"

namespace xtfq::cli {

class CheckCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  void PrintSpace(const StoreChecker::Report& r, const Store& store);

  std::string store_;
  size_t max_problems_ = 100;
  bool allow_rollback_ = false;
  bool space_ = false;
  size_t top_ = 0;  // 0: every array
};

}  // namespace xtfq::cli
