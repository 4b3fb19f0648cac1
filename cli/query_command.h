// QueryCommand: `xtfq query STORE [--time T1:T2] [--ranks R1:R2] [--buckets B]`: count and, for
// every aggregate field, sum, min, max, mean and standard deviation over the window, from the
// index; with --buckets, the same for each of B equal time buckets (a histogram). On a store of
// Darshan logs without --array: Darshan's signals inside the window (DarshanWindowReport). With
// --jobstats: job_stats totals and rates of a window, grouped and filtered (JobStatsReport).
//
// Thread-safety: as Command.
#pragma once

#include "cli/array_options.h"
#include "cli/command.h"
#include "cli/darshan_window_report.h"
#include "cli/jobstats_report.h"

namespace xtfq::cli {

class QueryCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  Result<std::string> Answer();

  ArrayOptions opts_;
  std::string time_ = ":";
  std::string ranks_;
  uint32_t buckets_ = 0;
  DarshanWindowRequest darshan_;
  bool jobstats_ = false;
  JobStatsRequest js_;
  std::vector<std::string> jobs_;  // --job: a Darshan job id, or job_stats jobs
};

}  // namespace xtfq::cli
