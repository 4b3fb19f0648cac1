#include "cli/jobstats_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cli/output.h"
#include "query/answers/result_json.h"

namespace xtfq::cli {

namespace {
std::string Svg(const JobStatsHeatmap& h) {
  int kmin = 0, kmax = 0;
  uint64_t cmax = 1;
  for (size_t i = 0; i < h.cells.size(); ++i) {
    kmin = i == 0 ? h.cells[i].k : std::min(kmin, h.cells[i].k),
    kmax = i == 0 ? h.cells[i].k : std::max(kmax, h.cells[i].k);
    cmax = std::max(cmax, h.cells[i].count);
  }
  const auto cols = static_cast<int64_t>((h.t2 - h.t1 + h.cell - 1) / h.cell);
  const int rows = kmax - kmin + 1, cw = static_cast<int>(std::max<int64_t>(1, 800 / std::max<int64_t>(cols, 1))),
            rh = 12;
  const int left = 90, top = 30, wpx = left + static_cast<int>(cols) * cw + 20, hpx = top + rows * rh + 40;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"10\">\n"
      "<text x=\"{}\" y=\"16\">{}: series per rate bin (base {}), cells of {} s from {}</text>\n",
      wpx, hpx, left, h.op, h.base, h.cell, h.t1);
  for (int k = kmin; k <= kmax; ++k) {
    s += fmt::format("<text x=\"2\" y=\"{}\">{:.3g}/s</text>\n", top + (kmax - k) * rh + rh - 2, std::pow(h.base, k));
  }
  for (const auto& c : h.cells) {
    const double f = std::log1p(static_cast<double>(c.count)) / std::log1p(static_cast<double>(cmax));
    const int shade = 255 - static_cast<int>(f * 200);
    s += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"rgb({},{},255)\"><title>t={} k={} "
        "count={}</title></rect>\n",
        left + (c.t - h.t1) / h.cell * cw, top + (kmax - c.k) * rh, cw, rh, shade, shade, c.t, c.k, c.count);
  }
  return s + "</svg>\n";
}
}  // namespace

Result<std::vector<int64_t>> JobStatsReport::ParseUids(const std::vector<std::string>& uids) {
  std::vector<int64_t> out;
  for (const std::string& u : uids) {
    char* end = nullptr;
    const long long v = std::strtoll(u.c_str(), &end, 10);
    if (u.empty() || *end != '\0') return Error(ErrorCode::kUsage, fmt::format("--uid '{}' is not a number", u));
    out.push_back(v);
  }
  return out;
}

std::string JobStatsReport::Window(const JobStatsWindowAnswer& a, const std::string& format) {
  if (format == "json") return ResultJson::Of(a).dump(2) + "\n";
  const JobStatsWindow& w = a.window;
  std::vector<std::string> header;
  for (JobStatsKey k : a.by) header.emplace_back(JobStatsKeyName(k));
  for (const std::string& c : a.columns) {
    const std::string p = c.empty() ? "" : c + "_";
    header.push_back(p + "total"), header.push_back(p + "rate_mean"), header.push_back(p + "rate_max"),
        header.push_back(p + "series_rate_max");
  }
  std::vector<std::vector<std::string>> rows;
  for (const JobStatsGroup& g : w.groups) {
    std::vector<std::string> row = g.keys;
    for (const std::string& c : a.columns) {
      const JobStatsOpTotals* o = JobStatsWindowAnswer::Column(g, c);
      // The mean rate: none for the empty window; 0 for a group without a step of this op.
      std::string mean = a.window.t2 > a.window.t1 ? "0" : "NA";
      if (o != nullptr) {
        const std::optional<double> m = a.RateMean(*o);
        mean = m ? NumText(*m) : "NA";
      }
      row.push_back(NumText(o ? o->total : 0)), row.push_back(mean), row.push_back(NumText(o ? o->rate_max : 0));
      row.push_back(NumText(o ? o->series_rate_max : 0));
    }
    rows.push_back(std::move(row));
  }
  std::string out;
  if (format == "csv") {
    auto line = [&](const std::vector<std::string>& v) {
      std::vector<std::string> c;
      // A value column without a value (NA) is an empty cell; key columns are printed as they are.
      for (size_t i = 0; i < v.size(); ++i)
        c.push_back(i >= a.by.size() && v[i] == "NA" ? std::string() : CsvField(v[i]));
      return fmt::format("{}\n", fmt::join(c, ","));
    };
    out += line(header);
    for (const auto& row : rows) out += line(row);
    return out;
  }
  const std::string groups = a.request_top > 0 ? fmt::format("the {} of {} groups with the largest {} total",
                                                             w.groups.size(), a.groups_in_window, a.sorted_by)
                                               : fmt::format("{} groups", w.groups.size());
  out += fmt::format("# job_stats window [{}, {}) ({} s), {}, {}\n", w.t1, w.t2, w.t2 - w.t1, groups, w.How());
  for (const std::string& n : a.notes) out += fmt::format("# note: {}\n", n);
  out +=
      "# totals are exact integrals of the rate steps: a step that crosses an edge of the window counts in proportion, "
      "so totals "
      "may have fractions\n";
  const auto quiet =
      std::count_if(w.groups.begin(), w.groups.end(), [](const JobStatsGroup& g) { return g.ops.empty(); });
  if (std::find(a.by.begin(), a.by.end(), JobStatsKey::kClass) != a.by.end() &&
      std::any_of(w.groups.begin(), w.groups.end(), [&](const JobStatsGroup& g) {
        return std::find(g.keys.begin(), g.keys.end(), "malformed") != g.keys.end();
      })) {
    out +=
        "# malformed: the id matches none of the jobid_name templates given at import (default %j:%u:%H, %e.%u and a "
        "bare %j); "
        "give your site's with --jobid-name\n";
  }
  if (quiet > 0) {
    out += fmt::format(
        "# {} of them with no rate step in the window, listed with zeros (rates need two collections of a target, and "
        "a "
        "counter that changed between them)\n",
        quiet);
  }
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

std::string JobStatsReport::Heatmap(const JobStatsHeatmap& h, const std::string& format) {
  if (format == "json") return ResultJson::Of(h).dump(2) + "\n";
  if (format == "svg") return Svg(h);
  std::string out = "t,k,lo,hi,count\n";
  for (const auto& c : h.cells)
    out += fmt::format("{},{},{},{},{}\n", c.t, c.k, NumText(std::pow(h.base, c.k)), NumText(std::pow(h.base, c.k + 1)),
                       c.count);
  return out;
}

}  // namespace xtfq::cli
