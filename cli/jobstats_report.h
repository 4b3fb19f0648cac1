// JobStatsReport: renders job_stats answers. Windows (`xtfq query STORE --jobstats`, from
// query/jobstats/JobStatsWindowQuery) as text, CSV (a header row, the group keys, then for each op
// <op>_total, <op>_rate_mean, <op>_rate_max; with --by op the columns are total, rate_mean,
// rate_max) or JSON (query/answers/ResultJson); heatmaps (`xtfq heatmap`, query/jobstats/JobStatsHeatmapQuery) as
// CSV, JSON or SVG. Also the argv side of both: --uid values as numbers.
//
// Thread-safety: stateless.
#pragma once

#include <string>
#include <vector>

#include "query/jobstats/jobstats_heatmap_query.h"
#include "query/jobstats/jobstats_window_query.h"

namespace xtfq::cli {

class JobStatsReport {
 public:
  static std::string Window(const JobStatsWindowAnswer& answer, const std::string& format);
  static std::string Heatmap(const JobStatsHeatmap& heatmap, const std::string& format);
  // --uid values; kUsage names the one that is not an integer.
  static Result<std::vector<int64_t>> ParseUids(const std::vector<std::string>& uids);
};

}  // namespace xtfq::cli
