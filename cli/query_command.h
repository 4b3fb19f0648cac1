// QueryCommand: `xtfq query STORE ...`, one command whose meaning follows the kind of data it reads
// (docs/cli.md, "query"):
//   - a raw array (`--array NAME`, or a store of events): count and, for every aggregate field,
//     sum, min, max, mean and standard deviation over a time and rank window, from the index;
//     with --buckets, the same for each of B equal time buckets (a histogram);
//   - a store of Darshan logs: Darshan's signals inside the window (query/darshan/DarshanWindowQuery);
//   - a store of job_stats (or --jobstats): totals and rates of a window, grouped and filtered
//     (query/jobstats/JobStatsWindowQuery);
//   - a store of Slurm profiles (or --slurm): task, file-system and network totals of a window,
//     grouped and filtered by job, step, node and task (query/slurm/SlurmWindowQuery).
// A flag that does not apply to the kind being read is a usage error (exit 2) that says which
// kind the store holds, never silently ignored.
//
// Thread-safety: as Command.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cli/array_options.h"
#include "cli/command.h"
#include "query/core/store_kind.h"
#include "query/darshan/darshan_window_query.h"
#include "query/jobstats/jobstats_window_query.h"
#include "query/slurm/slurm_window_query.h"

namespace xtfq::cli {

class QueryCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  Result<StoreKind> KindOfStore();
  // kUsage when a flag given is not one of `allowed` (names as registered, e.g. "--by").
  Status OnlyFlags(StoreKind kind, const std::vector<std::string>& allowed) const;
  Result<std::string> Answer();
  Result<std::string> Raw();
  Result<std::string> Darshan();
  Result<std::string> JobStats();
  Result<std::string> Slurm();

  ArrayOptions opts_;
  std::map<std::string, CLI::Option*> flags_;  // the kind-specific flags, by name
  std::string time_ = ":";
  std::string ranks_;
  uint32_t buckets_ = 0;
  DarshanWindowRequest darshan_;
  bool jobstats_ = false;
  JobStatsWindowRequest js_;
  std::vector<std::string> uids_;
  std::vector<std::string> jobs_;  // --job: a Darshan job id, or job_stats or Slurm jobs
  bool slurm_ = false;
  SlurmWindowRequest slurm_req_;
  std::string edges_ = "prorate";
};

}  // namespace xtfq::cli
