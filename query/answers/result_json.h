// ResultJson: the one JSON form of every query result, shared by the command line (`--format
// json`) and the viewer's API, so both show the same numbers under the same names. A value that
// cannot be computed (a ratio over zero) is null, never 0.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "query/answers/grid_answer.h"
#include "query/answers/job_timeline.h"
#include "query/answers/store_summary.h"
#include "query/arrays/array_window_query.h"
#include "query/core/primitive_query.h"
#include "query/darshan/darshan_segments_query.h"
#include "query/darshan/darshan_window_query.h"
#include "query/jobstats/jobstats_heatmap_query.h"
#include "query/jobstats/jobstats_window_query.h"
#include "query/slurm/slurm_window_query.h"

namespace xtfq {

class ResultJson {
 public:
  static nlohmann::json Of(const DarshanOpStats& stats, const DarshanOpMetrics& metrics);
  static nlohmann::json Of(const RankImbalance& imbalance);
  static nlohmann::json Of(const DarshanWindowAnswer& answer);
  static nlohmann::json Of(const JobStatsWindowAnswer& answer);
  static nlohmann::json Of(const JobStatsHeatmap& heatmap);
  static nlohmann::json Of(const StoreSummary& summary);
  static nlohmann::json Of(const DarshanLogInfo& log);
  static nlohmann::json Of(const GridAnswer& grid);
  static nlohmann::json Of(const DarshanSegmentsAnswer& segments);
  static nlohmann::json Of(const JobTimelineAnswer& job);
  static nlohmann::json Of(const SlurmWindow& window, const std::vector<SlurmKey>& by);
  // A raw array's window: its statistics, or an array of buckets, each with its start and end.
  static nlohmann::json Of(const ArrayWindowAnswer& answer);
  static nlohmann::json Of(const ArrayWindowStats& stats);
  // search, size, next: {"count"} for size; the position, the records, the process followed and the
  // record (null at the end) for search and next.
  static nlohmann::json Of(const PrimitiveAnswer& answer, PrimitiveOp op, const Schema& schema);
  // A record: its fields by name.
  static nlohmann::json Record(const Schema& schema, const std::byte* record);
  // Seconds from the job's start of a window edge in ns ("-inf"/"+inf" for an open side).
  static std::string EdgeSeconds(int64_t ns, bool lo);
};

}  // namespace xtfq
