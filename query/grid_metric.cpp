#include "query/grid_metric.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace xtfq {

Result<GridMetric> GridMetric::Parse(const std::string& name, const Schema& schema,
                                     const std::map<std::string, GridMetric>& aliases) {
  if (auto it = aliases.find(name); it != aliases.end()) {
    GridMetric m = it->second;
    m.name = name;
    return m;
  }
  GridMetric m;
  m.name = name;
  if (name == "count") return m;
  std::string field = name;
  m.stat = Stat::kSum;
  static const std::pair<std::string_view, Stat> kSuffixes[] = {
      {".sum", Stat::kSum}, {".min", Stat::kMin}, {".max", Stat::kMax}, {".mean", Stat::kMean}};
  for (const auto& [suffix, stat] : kSuffixes) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      field = name.substr(0, name.size() - suffix.size());
      m.stat = stat;
      break;
    }
  }
  const auto& aggs = schema.aggregates();
  for (size_t a = 0; a < aggs.size(); ++a) {
    if (schema.fields()[aggs[a]].name == field) {
      m.aggregates = {a};
      return m;
    }
  }
  std::vector<std::string> known = {"count"};
  for (const auto& [alias, unused] : aliases) known.push_back(alias);
  for (uint16_t a : aggs) known.push_back(schema.fields()[a].name + "[.sum|.min|.max|.mean]");
  return Error(ErrorCode::kUsage,
               fmt::format("--metric {}: not a metric of this grid (metrics: {})", name, fmt::join(known, ", ")));
}

std::optional<double> GridMetric::Value(uint64_t count, const std::vector<const FieldStats*>& stats) const {
  switch (stat) {
    case Stat::kCount:
      return static_cast<double>(count);
    case Stat::kSum: {
      double s = 0;
      for (const FieldStats* f : stats) s += f->Sum();
      return s;
    }
    case Stat::kMean: {
      if (count == 0) return std::nullopt;
      double s = 0;
      for (const FieldStats* f : stats) s += f->Sum();
      return s / static_cast<double>(count);
    }
    case Stat::kMin: {
      if (count == 0) return std::nullopt;
      double v = std::numeric_limits<double>::infinity();
      for (const FieldStats* f : stats) v = std::min(v, f->Min());
      return v;
    }
    case Stat::kMax: {
      if (count == 0) return std::nullopt;
      double v = -std::numeric_limits<double>::infinity();
      for (const FieldStats* f : stats) v = std::max(v, f->Max());
      return v;
    }
  }
  return std::nullopt;
}

}  // namespace xtfq
