#include "cli/jobstats_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>

namespace xtfq::cli {

Result<int64_t> JobStatsReport::ParseTime(std::string_view text) {
  const std::string s(text);
  if (!s.empty() && s.find_first_not_of("0123456789.") == std::string::npos) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (*end == '\0' && std::isfinite(v)) return static_cast<int64_t>(std::floor(v));
  }
  std::tm tm{};
  int sec = 0;
  char tail[8] = {};
  const int n = std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%7s", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                            &tm.tm_min, &sec, tail);
  if ((n == 6 || (n == 7 && std::string_view(tail) == "Z")) && tm.tm_mon >= 1 && tm.tm_mon <= 12 && tm.tm_mday >= 1 &&
      tm.tm_mday <= 31 && tm.tm_hour <= 23 && tm.tm_min <= 59 && sec <= 60) {
    tm.tm_year -= 1900, tm.tm_mon -= 1, tm.tm_sec = sec;
    return static_cast<int64_t>(timegm(&tm));
  }
  return Error(ErrorCode::kInvalidArgument, fmt::format("'{}' is not a time (epoch seconds or ISO 8601 like 2026-01-01T00:00:00Z)", text));
}

Result<std::pair<std::optional<int64_t>, std::optional<int64_t>>> JobStatsReport::ParseWindow(std::string_view text) {
  // Try each ':' as the separator; the one where both sides parse wins.
  for (size_t p = text.find(':'); p != std::string_view::npos; p = text.find(':', p + 1)) {
    const std::string_view a = text.substr(0, p), b = text.substr(p + 1);
    std::optional<int64_t> lo, hi;
    if (!a.empty()) {
      auto t = ParseTime(a);
      if (!t.ok()) continue;
      lo = *t;
    }
    if (!b.empty()) {
      auto t = ParseTime(b);
      if (!t.ok()) continue;
      hi = *t;
    }
    return std::pair{lo, hi};
  }
  return Error(ErrorCode::kInvalidArgument,
               fmt::format("--time '{}': give T1:T2 in epoch seconds or ISO 8601 (either side may be empty)", text));
}

Status JobStatsReport::Prepare(JobStatsStore& js, JobStatsRequest& r, int64_t& t1, int64_t& t2, std::vector<JobStatsKey>& by) {
  XTFQ_ASSIGN_OR_RETURN(auto w, ParseWindow(r.time));
  XTFQ_ASSIGN_OR_RETURN(auto span, js.Span());
  if (!span && (!w.first || !w.second)) return Error(ErrorCode::kNotFound, "the store holds no job_stats collection");
  t1 = w.first ? *w.first : span->first;
  t2 = w.second ? *w.second : span->second;
  if (t1 >= t2) return Error(ErrorCode::kInvalidArgument, fmt::format("--time: the window [{}, {}) is empty", t1, t2));
  for (const std::string& k : r.by) {
    XTFQ_ASSIGN_OR_RETURN(JobStatsKey key, ParseJobStatsKey(k));
    if (std::find(by.begin(), by.end(), key) == by.end()) by.push_back(key);
  }
  for (const std::string& u : r.uids) {
    char* end = nullptr;
    const long long v = std::strtoll(u.c_str(), &end, 10);
    if (u.empty() || *end != '\0') return Error(ErrorCode::kInvalidArgument, fmt::format("--uid '{}' is not a number", u));
    r.filter.uids.push_back(v);
  }
  return Ok();
}

namespace {
std::string Csv(std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
std::string Num(double v) { return v == std::floor(v) && std::fabs(v) < 1e18 ? fmt::format("{:.0f}", v) : fmt::format("{}", v); }
}  // namespace

Result<std::string> JobStatsReport::Window(StoreReader& reader, JobStatsRequest r) {
  XTFQ_ASSIGN_OR_RETURN(auto js, JobStatsStore::Open(reader));
  int64_t t1 = 0, t2 = 0;
  std::vector<JobStatsKey> by;
  XTFQ_TRY(Prepare(*js, r, t1, t2, by));
  XTFQ_ASSIGN_OR_RETURN(JobStatsWindow w, js->Window(t1, t2, r.filter, by, r.scan));
  const bool op_key = std::find(by.begin(), by.end(), JobStatsKey::kOp) != by.end();
  const std::vector<std::string> columns = op_key ? std::vector<std::string>{""} : w.ops;
  auto stats = [&](const JobStatsGroup& g, const std::string& col) -> const JobStatsOpResult* {
    if (op_key) {
      return g.ops.empty() ? nullptr : &g.ops.begin()->second;
    }
    auto it = g.ops.find(col);
    return it == g.ops.end() ? nullptr : &it->second;
  };
  if (r.top > 0 || !r.sort.empty()) {
    const std::string key = r.sort.empty() ? columns.front() : r.sort;
    if (!op_key && std::find(columns.begin(), columns.end(), key) == columns.end()) {
      return Error(ErrorCode::kInvalidArgument, fmt::format("--sort {}: not an op of this answer ({})", key, fmt::join(columns, " ")));
    }
    std::stable_sort(w.groups.begin(), w.groups.end(), [&](const JobStatsGroup& a, const JobStatsGroup& b) {
      const JobStatsOpResult* x = stats(a, key);
      const JobStatsOpResult* y = stats(b, key);
      return (x ? x->total : 0) > (y ? y->total : 0);
    });
    if (r.top > 0 && w.groups.size() > r.top) w.groups.resize(r.top);
  }
  const double len = static_cast<double>(t2 - t1);
  if (r.format == "json") {
    nlohmann::json j;
    j["t1"] = t1, j["t2"] = t2, j["indexed"] = w.indexed, j["steps_read"] = w.steps_read;
    for (JobStatsKey k : by) j["by"].push_back(JobStatsKeyName(k));
    j["groups"] = nlohmann::json::array();
    for (const JobStatsGroup& g : w.groups) {
      nlohmann::json gj;
      for (size_t i = 0; i < by.size(); ++i) gj[std::string(JobStatsKeyName(by[i]))] = g.keys[i];
      for (const auto& [op, o] : g.ops) gj["ops"][op] = {{"total", o.total}, {"rate_mean", o.total / len}, {"rate_max", o.rate_max}, {"steps", o.steps}};
      j["groups"].push_back(gj);
    }
    return j.dump(2) + "\n";
  }
  std::vector<std::string> header;
  for (JobStatsKey k : by) header.emplace_back(JobStatsKeyName(k));
  for (const std::string& c : columns) {
    const std::string p = c.empty() ? "" : c + "_";
    header.push_back(p + "total"), header.push_back(p + "rate_mean"), header.push_back(p + "rate_max");
  }
  std::vector<std::vector<std::string>> rows;
  for (const JobStatsGroup& g : w.groups) {
    std::vector<std::string> row = g.keys;
    for (const std::string& c : columns) {
      const JobStatsOpResult* o = stats(g, c);
      row.push_back(Num(o ? o->total : 0)), row.push_back(Num(o ? o->total / len : 0)), row.push_back(Num(o ? o->rate_max : 0));
    }
    rows.push_back(std::move(row));
  }
  std::string out;
  if (r.format == "csv") {
    std::vector<std::string> h;
    for (const auto& x : header) h.push_back(Csv(x));
    out += fmt::format("{}\n", fmt::join(h, ","));
    for (const auto& row : rows) {
      std::vector<std::string> c;
      for (const auto& x : row) c.push_back(Csv(x));
      out += fmt::format("{}\n", fmt::join(c, ","));
    }
    return out;
  }
  out += fmt::format("# job_stats window [{}, {}) ({} s), {} groups, {}\n", t1, t2, t2 - t1, w.groups.size(),
                     w.indexed ? "from the index" : fmt::format("{} steps read", w.steps_read));
  std::vector<size_t> width(header.size());
  for (size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  auto line = [&](const std::vector<std::string>& v) {
    std::string l;
    for (size_t i = 0; i < v.size(); ++i) l += fmt::format("{}{:<{}}", i ? "  " : "", v[i], width[i]);
    while (!l.empty() && l.back() == ' ') l.pop_back();
    return l + "\n";
  };
  out += line(header);
  for (const auto& row : rows) out += line(row);
  return out;
}

Result<std::string> JobStatsReport::Heatmap(StoreReader& reader, JobStatsRequest r) {
  XTFQ_ASSIGN_OR_RETURN(auto js, JobStatsStore::Open(reader));
  int64_t t1 = 0, t2 = 0;
  std::vector<JobStatsKey> by;
  XTFQ_TRY(Prepare(*js, r, t1, t2, by));
  if (r.op.empty()) return Error(ErrorCode::kInvalidArgument, fmt::format("give --op (one of: {})", fmt::join(js->ops(), " ")));
  const int64_t step = r.step > 0 ? r.step : 120;
  XTFQ_ASSIGN_OR_RETURN(JobStatsHeatmap h, js->Heatmap(t1, t2, step, r.op, r.base, r.filter, by));
  if (r.format == "json") {
    nlohmann::json j;
    j["op"] = h.op, j["base"] = h.base, j["t1"] = h.t1, j["t2"] = h.t2, j["step"] = h.step, j["step_functions"] = h.groups;
    j["cells"] = nlohmann::json::array();
    for (const auto& c : h.cells) {
      j["cells"].push_back({{"t", c.t}, {"k", c.k}, {"lo", std::pow(h.base, c.k)}, {"hi", std::pow(h.base, c.k + 1)}, {"count", c.count}});
    }
    return j.dump(2) + "\n";
  }
  if (r.format == "svg") {
    int kmin = 0, kmax = 0;
    uint64_t cmax = 1;
    for (size_t i = 0; i < h.cells.size(); ++i) {
      kmin = i == 0 ? h.cells[i].k : std::min(kmin, h.cells[i].k), kmax = i == 0 ? h.cells[i].k : std::max(kmax, h.cells[i].k);
      cmax = std::max(cmax, h.cells[i].count);
    }
    const auto cols = static_cast<int64_t>((h.t2 - h.t1 + h.step - 1) / h.step);
    const int rows = kmax - kmin + 1, cw = static_cast<int>(std::max<int64_t>(1, 800 / std::max<int64_t>(cols, 1))), rh = 12;
    const int left = 90, top = 30, wpx = left + static_cast<int>(cols) * cw + 20, hpx = top + rows * rh + 40;
    std::string s = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"10\">\n"
        "<text x=\"{}\" y=\"16\">{}: series per rate bin (base {}), cells of {} s from {}</text>\n",
        wpx, hpx, left, h.op, h.base, h.step, h.t1);
    for (int k = kmin; k <= kmax; ++k) {
      s += fmt::format("<text x=\"2\" y=\"{}\">{:.3g}/s</text>\n", top + (kmax - k) * rh + rh - 2, std::pow(h.base, k));
    }
    for (const auto& c : h.cells) {
      const double f = std::log1p(static_cast<double>(c.count)) / std::log1p(static_cast<double>(cmax));
      const int shade = 255 - static_cast<int>(f * 200);
      s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"rgb({},{},255)\"><title>t={} k={} count={}</title></rect>\n",
                       left + (c.t - h.t1) / h.step * cw, top + (kmax - c.k) * rh, cw, rh, shade, shade, c.t, c.k, c.count);
    }
    return s + "</svg>\n";
  }
  std::string out = "t,k,lo,hi,count\n";
  for (const auto& c : h.cells) out += fmt::format("{},{},{},{},{}\n", c.t, c.k, Num(std::pow(h.base, c.k)), Num(std::pow(h.base, c.k + 1)), c.count);
  return out;
}

}  // namespace xtfq::cli
