// DumpCommand: `xtfq dump [--header] [--dxt] [--show-incomplete] LOG`: what darshan-parser prints
// for a binary Darshan log (the job header, regions and mounts, then every module's records), or
// with --dxt what darshan-dxt-parser prints.
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
  bool dxt_ = false;
};

}  // namespace xtfq::cli
