// JobStatsHeatmapQuery: the seed's log-binned heatmap z_b(t, k) of job_stats rates
// (`xtfq heatmap STORE --jobstats`): over cells of `cell` seconds from t1, the number of step
// functions (one per group of `by`; per series when empty) whose rate, resampled onto the cell
// with its integral kept, lies in [base^k, base^(k+1)). Zero rates are in no bin.
//
// Thread-safety: one thread at a time (shares the view's reader).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "query/jobstats_view.h"

namespace xtfq {

struct JobStatsHeatmap {
  int64_t t1 = 0, t2 = 0, cell = 0;  // cell: width in seconds
  double base = 2;
  std::string op;
  uint64_t groups = 0;  // step functions binned
  struct Cell {
    int64_t t = 0;  // the cell's start
    int k = 0;      // rates in [base^k, base^(k+1))
    uint64_t count = 0;
  };
  std::vector<Cell> cells;  // non-zero cells, by t then k
};

struct JobStatsHeatmapRequest {
  std::string time = ":";  // --time (query/time_window.h, job_stats frame)
  std::string op;
  double base = 2;
  int64_t cell = 120;  // cell width in seconds
  std::vector<std::string> by;
  JobStatsFilter filter;
};

class JobStatsHeatmapQuery {
 public:
  static Result<JobStatsHeatmap> Run(JobStatsView& view, const JobStatsHeatmapRequest& request);
  static Result<JobStatsHeatmap> Compute(JobStatsView& view, int64_t t1, int64_t t2, int64_t cell,
                                         const std::string& op, double base, const JobStatsFilter& filter,
                                         const std::vector<JobStatsKey>& by);
};

}  // namespace xtfq
