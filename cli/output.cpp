#include "cli/output.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cmath>

namespace xtfq::cli {

nlohmann::json RecordJson(const Schema& schema, const std::byte* record) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    std::visit([&](auto v) { j[schema.fields()[i].name] = v; }, schema.Get(record, i));
  }
  return j;
}

std::string RecordText(const Schema& schema, const std::byte* record) {
  std::string out;
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    out += fmt::format("{}{}=", i ? " " : "", schema.fields()[i].name);
    std::visit([&](auto v) { out += fmt::format("{}", v); }, schema.Get(record, i));
  }
  return out;
}

namespace {
struct Moments {
  double mean, stddev;
};
Moments Of(const FieldStats& f, uint64_t n) {
  if (n == 0) return {NAN, NAN};
  const double mean = f.Sum() / static_cast<double>(n);
  // Squares past the range of a double (values beyond 1.3e154): the spread cannot be computed.
  if (!std::isfinite(f.sumsq)) return {mean, NAN};
  const double var = std::max(0.0, f.sumsq / static_cast<double>(n) - mean * mean);
  return {mean, std::sqrt(var)};
}
}  // namespace

nlohmann::json SummaryJson(const Schema& schema, const Summary& s, const Percentiles& percentiles) {
  nlohmann::json j = {{"count", s.count}};
  for (size_t k = 0; k < s.fields.size(); ++k) {
    const FieldStats& f = s.fields[k];
    const Moments m = Of(f, s.count);
    nlohmann::json fj;
    if (f.is_float)
      fj["sum"] = f.f_sum;
    else
      fj["sum"] = f.i_sum;
    if (s.count > 0) {
      if (f.is_float) {
        fj["min"] = f.f_min;
        fj["max"] = f.f_max;
      } else {
        fj["min"] = f.i_min;
        fj["max"] = f.i_max;
      }
      fj["mean"] = m.mean;
      fj["std"] = m.stddev;
    }
    fj["sumsq"] = f.sumsq;
    if (auto it = percentiles.find(k); it != percentiles.end()) {
      for (const WindowPercentile& p : it->second) {
        fj["percentiles"][fmt::format("p{:g}", p.q * 100)] =
            p.bound ? nlohmann::json{p.bound->first, p.bound->second} : nlohmann::json(nullptr);
      }
      fj["percentiles"]["bound"] = "each percentile lies in [lower, upper]: one log2 bin narrowed to min and max";
    }
    j[schema.fields()[schema.aggregates()[k]].name] = fj;
  }
  return j;
}

std::string SummaryText(const Schema& schema, const Summary& s, const Percentiles& percentiles) {
  std::string out = fmt::format("count {}\n", s.count);
  for (size_t k = 0; k < s.fields.size(); ++k) {
    const FieldStats& f = s.fields[k];
    const std::string& name = schema.fields()[schema.aggregates()[k]].name;
    if (s.count == 0) {
      out += fmt::format("{:<8} sum 0\n", name);
      continue;
    }
    const Moments m = Of(f, s.count);
    if (f.is_float) {
      out += fmt::format("{:<8} sum {:.9g} min {:.9g} max {:.9g} mean {:.9g} std {:.9g}\n", name, f.f_sum, f.f_min,
                         f.f_max, m.mean, m.stddev);
    } else {
      out += fmt::format("{:<8} sum {} min {} max {} mean {:.9g} std {:.9g}\n", name, f.i_sum, f.i_min, f.i_max, m.mean,
                         m.stddev);
    }
    if (auto it = percentiles.find(k); it != percentiles.end()) {
      out.pop_back();
      for (const WindowPercentile& p : it->second) {
        if (p.bound) out += fmt::format(" p{:g} {:.6g}..{:.6g}", p.q * 100, p.bound->first, p.bound->second);
      }
      out += "\n";
    }
  }
  return out;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

Result<int64_t> ParseJobId(const std::string& text, std::string_view what) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end || v < 0 || v > (int64_t{1} << 62)) {
    return Error(ErrorCode::kUsage,
                 fmt::format("{} '{}' is not a job id (a whole number, as Slurm gives it)", what, text));
  }
  return v;
}

std::string NumText(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e18 ? fmt::format("{:.0f}", v) : fmt::format("{}", v);
}

std::string UtcText(int64_t epoch_s) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     std::chrono::sys_time<std::chrono::seconds>(std::chrono::seconds(epoch_s)));
}

std::string Counted(uint64_t n, std::string_view noun, std::string_view plural) {
  if (n == 1) return fmt::format("1 {}", noun);
  return plural.empty() ? fmt::format("{} {}s", n, noun) : fmt::format("{} {}", n, plural);
}

Result<std::unique_ptr<StoreReader>> OpenForReading(const std::string& path, const ReaderOptions& options) {
  XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<StoreReader> r, StoreReader::Open(path, options));
  const Store& s = r->store();
  if (s.Rollback()) {
    // The other slot names the next generation: that commit was torn or damaged after. Else its
    // generation field is damaged too, and whether a newer generation was lost cannot be told.
    const bool next = s.other_generation() && *s.other_generation() == s.generation() + 1;
    fmt::print(stderr, "xtfq: warning: {}; {}: this reads generation {}{} ('xtfq check {}' says more)\n",
               s.other_superblock() ? s.other_superblock()->message()
                                    : fmt::format("{}: superblock {} is not valid", path, 1 - s.superblock_slot()),
               next ? fmt::format("generation {} was lost", s.generation() + 1)
                    : std::string("whether a newer generation was lost cannot be told"),
               s.generation(), next ? ", the commit before it" : "", path);
  }
  return r;
}

}  // namespace xtfq::cli
