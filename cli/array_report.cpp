#include "cli/array_report.h"

#include <fmt/format.h>

#include "query/answers/result_json.h"

namespace xtfq::cli {

std::string ArrayReport::Record(const Schema& schema, const std::byte* record) {
  std::string out;
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    out += fmt::format("{}{}=", i ? " " : "", schema.fields()[i].name);
    std::visit([&](auto v) { out += fmt::format("{}", v); }, schema.Get(record, i));
  }
  return out;
}

// count, and per aggregate field: sum, min, max, mean and standard deviation (population), and the
// field's percentiles where given, each as the interval that holds it.
std::string ArrayReport::Stats(const ArrayWindowStats& s) {
  std::string out = fmt::format("count {}\n", s.count);
  for (const ArrayFieldAnswer& field : s.fields) {
    const FieldStats& f = field.stats;
    if (s.count == 0) {
      out += fmt::format("{:<8} sum 0\n", field.name);
      continue;
    }
    if (f.is_float) {
      out += fmt::format("{:<8} sum {:.9g} min {:.9g} max {:.9g} mean {:.9g} std {:.9g}", field.name, f.f_sum, f.f_min,
                         f.f_max, field.mean, field.stddev);
    } else {
      out += fmt::format("{:<8} sum {} min {} max {} mean {:.9g} std {:.9g}", field.name, f.i_sum, f.i_min, f.i_max,
                         field.mean, field.stddev);
    }
    for (const WindowPercentile& p : field.percentiles) {
      if (p.bound) out += fmt::format(" p{:g} {:.6g}..{:.6g}", p.q * 100, p.bound->first, p.bound->second);
    }
    out += "\n";
  }
  return out;
}

std::string ArrayReport::Window(const ArrayWindowAnswer& a, bool json) {
  if (json) return ResultJson::Of(a).dump(2);
  if (!a.histogram) {
    std::string text = Stats(a.whole);
    if (a.has_percentiles)
      text += "# percentiles: each lies in the interval shown, one log2 bin (docs/format.md, Log histograms)\n";
    return text;
  }
  std::string text;
  for (size_t b = 0; b < a.buckets.size(); ++b) {
    text += fmt::format("# bucket {} [{}, {})\n{}", b, a.buckets[b].start, a.buckets[b].end, Stats(a.buckets[b].stats));
  }
  return text;
}

}  // namespace xtfq::cli
