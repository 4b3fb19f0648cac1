// DumpCommand: `xtfq dump [--header] [--dxt] [--show-incomplete] [--log N | --job ID] LOG|STORE`:
// what darshan-parser prints for a binary Darshan log (the job header, regions and mounts, then
// every module's records), or with --dxt what darshan-dxt-parser prints. A store prints one of
// its logs from the source it keeps; a log imported from darshan-parser text prints that text.
//
// Thread-safety: as Command.
#pragma once

#include <optional>

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
  bool total_ = false, file_ = false, perf_ = false;
  std::optional<int64_t> log_, job_;
};

}  // namespace xtfq::cli
