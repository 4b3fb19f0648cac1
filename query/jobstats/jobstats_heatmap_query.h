// JobStatsHeatmapQuery: the seed's log-binned heatmap z_b(t, k) of job_stats rates
// (`xtfq heatmap STORE --jobstats`): over cells of `cell` seconds from t1, the number of step
// functions (one per group of `by`; per series when empty) whose rate, resampled onto the cell
// with its integral kept, lies in [base^k, base^(k+1)). Zero rates are in no bin.
//
// Per series, base 2, cells of the job_stats summaries' level-0 bins on a window of whole bins
// that they cover, and no filter but targets: from the summaries' heatmap cells (summed over the
// targets; query/jobstats/jobstats_summary.h), the same counts without reading a step. Otherwise from the
// window's steps.
//
// Thread-safety: one thread at a time (shares the view's reader).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "query/jobstats/jobstats_view.h"

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
  // Read from the job_stats summaries' heatmap cells (`summary_cells` of them); `groups` is then
  // unknown (0).
  bool summarised = false;
  uint64_t summary_cells = 0;
};

struct JobStatsHeatmapRequest {
  std::string time = ":";  // --time (query/core/time_window.h, job_stats frame)
  std::string op;
  double base = 2;
  int64_t cell = 120;  // cell width in seconds
  std::vector<std::string> by;
  JobStatsFilter filter;
};

class JobStatsHeatmapQuery {
 public:
  static Result<JobStatsHeatmap> Run(JobStatsView& view, const JobStatsHeatmapRequest& request);
  // `summaries` false: never the summaries' heatmap cells (the path before them, for tests).
  static Result<JobStatsHeatmap> Compute(JobStatsView& view, int64_t t1, int64_t t2, int64_t cell,
                                         const std::string& op, double base, const JobStatsFilter& filter,
                                         const std::vector<JobStatsKey>& by, bool summaries = true);
};

}  // namespace xtfq
