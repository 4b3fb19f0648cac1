#include "query/grid/grid_metric.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
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
  // FIELD.pQ: a percentile.
  if (const size_t dot = name.rfind(".p"); m.stat == Stat::kSum && dot != std::string::npos && dot > 0) {
    const std::string q = name.substr(dot + 2);
    char* end = nullptr;
    const double v =
        q.empty() || !(std::isdigit(static_cast<unsigned char>(q[0])) != 0) ? -1 : std::strtod(q.c_str(), &end);
    if (end == nullptr || *end != '\0' || !(v > 0 && v <= 100)) {
      return Error(ErrorCode::kUsage,
                   fmt::format("--metric {}: a percentile is FIELD.pQ with 0 < Q <= 100 (p50, p99.9)", name));
    }
    field = name.substr(0, dot);
    m.stat = Stat::kQuantile;
    m.quantile = v / 100;
  }
  const auto& aggs = schema.aggregates();
  if (const auto a = schema.FindAggregate(field)) {
    m.aggregates = {*a};
    m.exponent = LogHistogram::LowExponent(schema.fields()[aggs[*a]].type);
    return m;
  }
  std::vector<std::string> known = {"count"};
  for (const auto& [alias, unused] : aliases) known.push_back(alias);
  for (uint16_t a : aggs) known.push_back(schema.fields()[a].name + "[.sum|.min|.max|.mean|.pQ]");
  return Error(ErrorCode::kUsage,
               fmt::format("--metric {}: not a metric of this grid (metrics: {})", name, fmt::join(known, ", ")));
}

std::string GridMetric::QuantileName() const { return fmt::format("p{:g}", quantile * 100); }

std::optional<std::pair<double, double>> GridMetric::Bound(const std::vector<const FieldStats*>& stats,
                                                           const std::vector<const LogHistogram*>& dists) const {
  LogHistogram h;
  double mn = std::numeric_limits<double>::infinity(), mx = -std::numeric_limits<double>::infinity();
  for (const LogHistogram* d : dists) h.Merge(*d);
  for (const FieldStats* f : stats) mn = std::min(mn, f->Min()), mx = std::max(mx, f->Max());
  return h.Bound(quantile, exponent, mn, mx);
}

std::optional<double> GridMetric::Value(uint64_t count, const std::vector<const FieldStats*>& stats,
                                        const std::vector<const LogHistogram*>& dists) const {
  switch (stat) {
    case Stat::kQuantile: {
      const auto b = Bound(stats, dists);
      if (!b) return std::nullopt;
      return b->second;
    }
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
