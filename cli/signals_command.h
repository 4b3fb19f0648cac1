// SignalsCommand: `xtfq signals STORE|LOG [-o FILE|-] [--format text|json|csv] [--log N|--job ID] [--ranks R1:R2]`:
// the Darshan signal spec v2.0 file of one log (docs/cli.md, docs/signals.md).
//
// Thread-safety: as Command.
#pragma once

#include <optional>

#include "cli/command.h"

namespace xtfq::cli {

class SignalsCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  std::string input_, out_, format_ = "text", ranks_;
  std::optional<int64_t> log_, job_;
};

}  // namespace xtfq::cli
