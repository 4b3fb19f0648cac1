// GridMetric: one number per grid cell, named on the command line and in the viewer's API
// (`--metric`): `count`; a statistic of aggregate fields, `FIELD` (its sum), `FIELD.sum`,
// `FIELD.min`, `FIELD.max`, `FIELD.mean`; or an alias a kind of data defines (Darshan DXT: `ops`,
// `bytes`, `busy`). A metric over several fields (HEATMAP `bytes` of reads and writes) sums their
// sums, and takes the least minimum and the greatest maximum.
//
// Thread-safety: value type.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/result.h"
#include "store/schema.h"
#include "store/summary.h"

namespace xtfq {

struct GridMetric {
  enum class Stat : uint8_t { kCount, kSum, kMin, kMax, kMean };
  std::string name;
  Stat stat = Stat::kCount;
  std::vector<size_t> aggregates;  // aggregate field indexes of the array (none for count)
  std::string unit;                // "ops", "bytes", "s", or empty

  // `aliases` maps a name to the metric it stands for ("bytes" -> "length.sum").
  static Result<GridMetric> Parse(const std::string& name, const Schema& schema,
                                  const std::map<std::string, GridMetric>& aliases);
  // The metric over fields `stats` (in the order of `aggregates`) of `count` records; nullopt for
  // a minimum, maximum or mean of no record.
  std::optional<double> Value(uint64_t count, const std::vector<const FieldStats*>& stats) const;
};

}  // namespace xtfq
