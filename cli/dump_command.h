// DumpCommand: `xtfq dump [--header] [--show-incomplete] LOG`: what darshan-parser prints for a
// binary Darshan log: the job header, regions and mounts, then every module's records.
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
  bool show_incomplete_ = false;
};

}  // namespace xtfq::cli
