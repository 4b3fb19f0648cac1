// HeatmapCommand: `xtfq heatmap STORE --jobstats --op OP [--base B] [--cell S] [--time T1:T2]
// [--by KEYS] [filters] [--format csv|json|svg]`: the seed's log-binned heatmap z_b(t, k) of
// job_stats rates (query/jobstats/JobStatsHeatmapQuery, rendered by JobStatsReport::Heatmap).
//
// Thread-safety: as Command.
#pragma once

#include "cli/array_options.h"
#include "cli/command.h"
#include "cli/jobstats_report.h"

namespace xtfq::cli {

class HeatmapCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  std::string store_;
  bool jobstats_ = false;
  JobStatsHeatmapRequest r_;
  std::vector<std::string> uids_;
  std::string format_ = "csv";
};

}  // namespace xtfq::cli
