// DistributionQuery: the log2 distributions (store/log_histogram.h) of aggregate fields of an
// array over a time window [t1, t2) and process range [p1, p2): what percentiles of a window are
// computed from (`xtfq query`'s p50/p90/p99 columns, the viewer's selection).
//
// How (the plan says which): the window is cut at the bins of one grid level whose cells hold the
// distributions, [t1, a) + [a, b) + [b, t2) with a and b on that level's bins; [a, b) is a one-column
// grid (query/grid/grid_query.h: the level's cells for the blocks inside the range, per-process records
// for the processes at its edges) and the two ends, each under one bin, are read as records. The
// level is the one whose cells and end records fill the fewest pages, or none (one read of the
// window's records) when that is cheaper, when no level holds the distributions, or when a record
// filter is given (Darshan's --file: the grid has no file dimension). A bounded process range of an
// array with a P index is read from its processes' own arrays (each one's window of records) when
// they fill fewer pages than that (a range of a few processes, or of none: nothing is read).
//
// The answer is exact: every record of the window in the range is in exactly one part.
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "query/core/store_reader.h"
#include "query/grid/grid_query.h"

namespace xtfq {

struct DistributionRequest {
  int64_t t1 = INT64_MIN, t2 = INT64_MAX;        // half-open; open sides: every record
  int64_t p1 = INT64_MIN, p2 = INT64_MAX;        // half-open processes (INT64_MAX: open)
  std::vector<size_t> distributions;             // aggregate field indexes
  std::function<bool(const std::byte*)> filter;  // when set, only records it accepts (the window is read)
  bool scan = false;                             // read the window's records (the naive answer)
};

// One percentile of a window: q, and the interval [lower, upper] that holds it (none: no value).
struct WindowPercentile {
  double q = 0;
  std::optional<std::pair<double, double>> bound;
};

class DistributionQuery {
 public:
  static constexpr double kQuantiles[] = {0.5, 0.9, 0.99};
  // A 1 x 1 GridCells: the window's count, the statistics of every aggregate field, and the
  // distributions asked for.
  static Result<GridCells> Run(StoreReader& reader, const ArrayDesc& array, const DistributionRequest& request);
  // p50, p90 and p99 of every distribution of a Run's result, by aggregate field index.
  static std::map<size_t, std::vector<WindowPercentile>> Percentiles(const GridCells& r, const Schema& schema);
};

}  // namespace xtfq
