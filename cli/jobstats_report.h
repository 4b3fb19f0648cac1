// JobStatsReport: `xtfq query STORE --jobstats ...` and `xtfq heatmap STORE --jobstats ...`:
// parses the job_stats options (windows in epoch seconds or ISO 8601 UTC, --by keys, filters),
// asks JobStatsStore and renders text, CSV (a header row, the group keys, then for each op
// <op>_total, <op>_rate_mean, <op>_rate_max; with --by op the columns are total, rate_mean,
// rate_max) or JSON; heatmaps as CSV, JSON or SVG.
//
// Thread-safety: as Command.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "query/jobstats_store.h"

namespace xtfq::cli {

struct JobStatsRequest {
  std::string time = ":";  // T1:T2, epoch seconds or ISO 8601; default the store's span
  std::vector<std::string> by;
  JobStatsFilter filter;
  std::vector<std::string> uids;  // as given (parsed into filter.uids)
  uint32_t top = 0;               // 0: every group
  std::string sort;               // the op whose total orders --top (default: the first column)
  std::string format = "text";    // text csv json (svg for heatmaps)
  bool scan = false;
  // Heatmaps.
  std::string op;
  double base = 2;
  int64_t step = 0;  // 0: the median gap between collections of the first target (else 120)
};

class JobStatsReport {
 public:
  static Result<std::string> Window(StoreReader& reader, JobStatsRequest request);
  static Result<std::string> Heatmap(StoreReader& reader, JobStatsRequest request);
  // "1767225600", "1767225600.5" or "2026-01-01T00:00:00Z" (also without the Z); seconds.
  static Result<int64_t> ParseTime(std::string_view text);
  // "T1:T2" where either side may be empty; ISO stamps keep their own colons.
  static Result<std::pair<std::optional<int64_t>, std::optional<int64_t>>> ParseWindow(std::string_view text);

 private:
  static Status Prepare(JobStatsStore& js, JobStatsRequest& r, int64_t& t1, int64_t& t2, std::vector<JobStatsKey>& by);
};

}  // namespace xtfq::cli
