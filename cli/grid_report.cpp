#include "cli/grid_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/output.h"
#include "query/answers/result_json.h"

namespace xtfq::cli {

namespace {

// The shortest text that reads back as the same double.
std::string Number(const std::optional<double>& v) {
  if (!v) return "";
  return fmt::format("{}", *v);
}

bool HasLower(const GridAnswer& g, size_t k) { return k < g.lower.size() && !g.lower[k].empty(); }

std::string RowLabel(const GridAnswer& g, size_t r) {
  if (!g.row_labels.empty()) return g.row_labels[r];
  const auto [lo, hi] = g.rows[r];
  return hi == lo + 1 ? fmt::format("{}", lo) : fmt::format("{}:{}", lo, hi);
}

}  // namespace

std::string GridReport::Render(const GridAnswer& answer, const std::string& format) {
  if (format == "json") return ResultJson::Of(answer).dump(2) + "\n";
  if (format == "csv") return Csv(answer);
  return Text(answer);
}

std::string GridReport::Csv(const GridAnswer& g) {
  const bool labels = !g.row_labels.empty(), counts = !g.count.empty();
  std::string out =
      labels ? fmt::format("row,{},col,t_start,t_end,t_start_s,t_end_s", g.process_name)
             : fmt::format("row,{}_lo,{}_hi,col,t_start,t_end,t_start_s,t_end_s", g.process_name, g.process_name);
  if (counts) out += ",records";
  for (size_t k = 0; k < g.metrics.size(); ++k) {
    out += "," + g.metrics[k].name;
    if (HasLower(g, k)) out += "," + g.metrics[k].name + ".lower";
  }
  out += "\n";
  for (size_t r = 0; r < g.rows.size(); ++r) {
    for (size_t c = 0; c < g.cols(); ++c) {
      const size_t i = r * g.cols() + c;
      out += labels ? fmt::format("{},\"{}\"", r, g.row_labels[r])
                    : fmt::format("{},{},{}", r, g.rows[r].first, g.rows[r].second);
      out += fmt::format(",{},{},{},{:.9f},{:.9f}", c, g.edges[c], g.edges[c + 1], g.Seconds(g.edges[c]),
                         g.Seconds(g.edges[c + 1]));
      if (counts) out += fmt::format(",{}", g.count[i]);
      for (size_t k = 0; k < g.metrics.size(); ++k) {
        out += "," + Number(g.values[k][i]);
        if (HasLower(g, k)) out += "," + Number(g.lower[k][i]);
      }
      out += "\n";
    }
  }
  return out;
}

std::string GridReport::Text(const GridAnswer& g) {
  std::string out =
      fmt::format("# {}: {} columns x {} rows of {}\n", g.source, g.cols(), g.rows.size(), g.process_name);
  if (g.frame.kind == TimeFrameKind::kJobStats) {
    // Epoch seconds: whole, with the wall clock beside them; edges are whole seconds, so columns
    // of a width that does not divide the window are one of two whole widths.
    int64_t narrow = INT64_MAX, wide = 0;
    for (size_t c = 0; c + 1 < g.edges.size(); ++c) {
      narrow = std::min(narrow, g.edges[c + 1] - g.edges[c]), wide = std::max(wide, g.edges[c + 1] - g.edges[c]);
    }
    out += fmt::format("# window [{}, {}) epoch s ({} to {}), columns of {} s\n", g.edges.front(), g.edges.back(),
                       UtcText(g.edges.front()), UtcText(g.edges.back()),
                       narrow == wide ? std::to_string(wide) : fmt::format("{} or {}", narrow, wide));
  } else {
    out += fmt::format("# window [{:.9g}, {:.9g}) s ({}), columns of {:.9g} s\n", g.Seconds(g.edges.front()),
                       g.Seconds(g.edges.back()), g.frame.UnitName(),
                       (g.Seconds(g.edges.back()) - g.Seconds(g.edges.front())) / g.cols());
  }
  out += fmt::format("# {}\n", g.exactness);
  out += fmt::format("# read: {} ({} page{})\n", g.plan.Describe(), g.pages_read, g.pages_read == 1 ? "" : "s");
  for (const std::string& n : g.notes) out += fmt::format("# note: {}\n", n);
  for (size_t k = 0; k < g.metrics.size(); ++k) {
    out += fmt::format("\n{}{}\n", g.metrics[k].name, g.metrics[k].unit.empty() ? "" : " (" + g.metrics[k].unit + ")");
    if (HasLower(g, k)) {
      out += fmt::format(
          "# the upper end of the interval that holds the {}: it lies within one log2 bin below (CSV and JSON give "
          "both ends)\n",
          g.metrics[k].QuantileName());
    }
    // Epoch seconds (job_stats) head the columns as seconds from the window's start.
    const bool epoch = g.frame.kind == TimeFrameKind::kJobStats;
    if (epoch && k == 0) out += fmt::format("# columns: seconds from {} (epoch)\n", g.edges.front());
    size_t label_width = std::max<size_t>(12, g.process_name.size() + 2);
    for (size_t r = 0; r < g.rows.size(); ++r) label_width = std::max(label_width, RowLabel(g, r).size());
    const int width = static_cast<int>(label_width);
    out += fmt::format("{:>{}}", g.process_name + "\\s", width);
    for (size_t c = 0; c < g.cols(); ++c) {
      out +=
          fmt::format(" {:>12.6g}", epoch ? g.Seconds(g.edges[c]) - g.Seconds(g.edges.front()) : g.Seconds(g.edges[c]));
    }
    out += "\n";
    for (size_t r = 0; r < g.rows.size(); ++r) {
      out += fmt::format("{:>{}}", RowLabel(g, r), width);
      for (size_t c = 0; c < g.cols(); ++c) {
        const std::optional<double>& v = g.values[k][r * g.cols() + c];
        out += fmt::format(" {:>12}", v ? fmt::format("{:.6g}", *v) : "-");
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace xtfq::cli
