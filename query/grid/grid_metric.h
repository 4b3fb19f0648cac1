// GridMetric: one number per grid cell, named on the command line and in the viewer's API
// (`--metric`): `count`; a statistic of aggregate fields, `FIELD` (its sum), `FIELD.sum`,
// `FIELD.min`, `FIELD.max`, `FIELD.mean`, a percentile `FIELD.pQ` (0 < Q <= 100: `length.p99`,
// `duration.p99.9`) from the field's log2 distribution (store/log_histogram.h); or an alias a kind of data defines
// (Darshan DXT: `ops`, `bytes`, `busy`). A metric over several fields (HEATMAP `bytes` of reads and writes) sums their
// sums, and takes the least minimum and the greatest maximum; a percentile over several fields is
// that of their merged distributions. A percentile's value is the upper end of the interval that
// holds it (Bound(): one bin narrowed to the values' minimum and maximum).
//
// Thread-safety: value type.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/log_histogram.h"
#include "store/result.h"
#include "store/schema.h"
#include "store/summary.h"

namespace xtfq {

struct GridMetric {
  enum class Stat : uint8_t { kCount, kSum, kMin, kMax, kMean, kQuantile };
  std::string name;
  Stat stat = Stat::kCount;
  std::vector<size_t> aggregates;  // aggregate field indexes of the array (none for count)
  std::string unit;                // "ops", "bytes", "s", or empty
  double quantile = 0;             // kQuantile: in (0, 1]
  int exponent = 0;                // kQuantile: the fields' lowest bin exponent (LogHistogram::LowExponent)
  // A sum of records that last (DXT segments): spread over the cells each overlaps, in
  // proportion, by the carry of what is still to come at each column edge (query/darshan/dxt_carry.h):
  // its bytes or its seconds; `per_second` divides by the cell's seconds (ranks busy).
  enum class Spread : uint8_t { kNone, kBytes, kSeconds };
  Spread spread = Spread::kNone;
  bool per_second = false;

  // `aliases` maps a name to the metric it stands for ("bytes" -> "length.sum").
  static Result<GridMetric> Parse(const std::string& name, const Schema& schema,
                                  const std::map<std::string, GridMetric>& aliases);
  // The metric over fields `stats` (in the order of `aggregates`) and, for a percentile, their
  // distributions `dists`, of `count` records; nullopt for a minimum, maximum, mean or percentile
  // of no record.
  std::optional<double> Value(uint64_t count, const std::vector<const FieldStats*>& stats,
                              const std::vector<const LogHistogram*>& dists = {}) const;
  // A percentile's [lower, upper] (REQUIRES: stat == kQuantile); nullopt over no value.
  std::optional<std::pair<double, double>> Bound(const std::vector<const FieldStats*>& stats,
                                                 const std::vector<const LogHistogram*>& dists) const;
  // "p99" for a quantile of 0.99.
  std::string QuantileName() const;
};

}  // namespace xtfq
