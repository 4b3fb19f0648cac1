// CollectCommand: `xtfq collect --interval 120 --out DIR [--count N] [--store S] [-- COMMAND ...]`,
// the monitoring daemon of seed 001: every interval it runs `lctl get_param mdt.*.job_stats
// obdfilter.*.job_stats` (or COMMAND), prefixes the output with "# collected_at: <epoch>" (the
// read time; snapshot_time is not), writes it atomically to DIR/<name>-<epoch>.txt and, with
// --store, appends it to the store (one commit per collection). A failing command is reported
// and that collection skipped; the daemon goes on. Ticks are kept on the interval grid.
//
// Thread-safety: as Command.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "importers/importer.h"
#include "store/store_writer.h"

namespace xtfq::cli {

class CollectCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  // Appends one snapshot to the store `w` writes (it `exists`: it had committed data); no commit.
  Result<ImportReport> Import(StoreWriter& w, bool exists, const std::string& snapshot,
                              const ImportOptions& options) const;
  double interval_ = 120;
  std::string out_;
  uint64_t count_ = 0;  // 0: until stopped
  std::string store_;
  std::string name_;
  std::string target_;
  std::vector<std::string> jobid_names_;
  std::vector<std::string> command_;
};

}  // namespace xtfq::cli
