// DumpCommand: `xtfq dump [--header] LOG`: what darshan-parser prints for a binary Darshan log.
// So far the job header, the log file regions and the mount table (--header); the module
// records follow with the record decoders.
//
// Thread-safety: as Command.
#pragma once

#include "cli/command.h"

namespace xtfq::cli {

class DumpCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  std::string input_;
  bool header_ = false;
};

}  // namespace xtfq::cli
