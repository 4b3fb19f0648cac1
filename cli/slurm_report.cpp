#include "cli/slurm_report.h"

#include <fmt/format.h>

#include <cmath>

#include "cli/output.h"
#include "layouts/slurm_layout.h"
#include "query/answers/result_json.h"

namespace xtfq::cli {

namespace {

using L = SlurmLayout;

std::vector<std::string> Header(uint8_t kind, const std::vector<SlurmKey>& by) {
  std::vector<std::string> h;
  for (SlurmKey k : by) h.emplace_back(SlurmWindowQuery::KeyName(k));
  h.emplace_back("series"), h.emplace_back("rows");
  for (std::string_view m : SlurmWindowQuery::Metrics(kind)) h.emplace_back(m);
  if (kind == L::kTasks) h.emplace_back("rss_max_kib"), h.emplace_back("vmsize_max_kib");
  return h;
}

std::vector<std::string> Cells(const SlurmGroup& g) {
  std::vector<std::string> c = g.keys;
  c.push_back(std::to_string(g.series)), c.push_back(std::to_string(g.rows));
  // Text for reading: 10 significant digits (JSON and CSV keep every digit).
  for (double v : g.totals) c.push_back(v == std::floor(v) ? NumText(v) : fmt::format("{:.10g}", v));
  // Levels are sampled: none without a sample in the window.
  if (g.kind == L::kTasks) {
    c.push_back(g.rows ? std::to_string(g.rss_max) : "NA"), c.push_back(g.rows ? std::to_string(g.vmsize_max) : "NA");
  }
  return c;
}

}  // namespace

std::string SlurmReport::Window(const SlurmWindow& w, const std::vector<SlurmKey>& by, const std::string& format) {
  if (format == "json") return ResultJson::Of(w, by).dump(2) + "\n";
  std::string out;
  if (format == "csv") {
    // One table: the kind, the keys, then every kind's metrics (empty where a kind has none).
    std::vector<std::string> head = {"kind"};
    for (SlurmKey k : by) head.emplace_back(SlurmWindowQuery::KeyName(k));
    head.emplace_back("series"), head.emplace_back("rows");
    std::vector<std::pair<uint8_t, std::string_view>> cols;
    for (uint8_t kind : {L::kTasks, L::kFilesystem, L::kNetwork}) {
      const std::string prefix = kind == L::kTasks ? "" : kind == L::kFilesystem ? "fs_" : "net_";
      for (std::string_view m : SlurmWindowQuery::Metrics(kind)) {
        cols.emplace_back(kind, m);
        head.push_back(prefix + std::string(m));
      }
    }
    head.emplace_back("rss_max_kib"), head.emplace_back("vmsize_max_kib");
    out += fmt::format("{}\n", fmt::join(head, ","));
    for (const SlurmGroup& g : w.groups) {
      std::vector<std::string> row = {std::string(L::KindName(g.kind))};
      for (const std::string& k : g.keys) row.push_back(CsvField(k));
      row.push_back(std::to_string(g.series)), row.push_back(std::to_string(g.rows));
      size_t m = 0;
      for (const auto& [kind, name] : cols) row.push_back(kind == g.kind ? NumText(g.totals[m++]) : "");
      row.push_back(g.kind == L::kTasks && g.rows ? std::to_string(g.rss_max) : "");
      row.push_back(g.kind == L::kTasks && g.rows ? std::to_string(g.vmsize_max) : "");
      out += fmt::format("{}\n", fmt::join(row, ","));
    }
    return out;
  }
  out += fmt::format("# Slurm window [{}, {}) ({} s, {} to {}), {} group{}\n", w.t1, w.t2, w.t2 - w.t1, UtcText(w.t1),
                     UtcText(w.t2), w.groups.size(), w.groups.size() == 1 ? "" : "s");
  out += w.prorate ? "# deltas accrue over each sample's interval; a window takes the share it covers (totals may have "
                     "fractions); rss_max_kib and vmsize_max_kib are the highest sampled (KiB) in the window\n"
                   : "# sample rule: a sample counts whole in the window that holds its EpochTime\n";
  for (uint8_t kind : {L::kTasks, L::kFilesystem, L::kNetwork}) {
    std::vector<std::vector<std::string>> rows;
    for (const SlurmGroup& g : w.groups) {
      if (g.kind == kind) rows.push_back(Cells(g));
    }
    if (rows.empty()) continue;
    const std::vector<std::string> head = Header(kind, by);
    std::vector<size_t> width(head.size());
    for (size_t c = 0; c < head.size(); ++c) {
      width[c] = head[c].size();
      for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
    }
    out += fmt::format(
        "\n{}{}\n", L::KindName(kind),
        kind == L::kTasks ? " (per task: the task's processes)" : " (node-wide: every process on the node)");
    auto line = [&](const std::vector<std::string>& r) {
      std::string s;
      for (size_t c = 0; c < r.size(); ++c) {
        s += c < by.size() ? fmt::format("{:<{}}  ", r[c], width[c]) : fmt::format("{:>{}}  ", r[c], width[c]);
      }
      while (!s.empty() && s.back() == ' ') s.pop_back();
      return s + "\n";
    };
    out += line(head);
    for (const auto& r : rows) out += line(r);
  }
  if (w.groups.empty()) out += "(no series selected)\n";
  for (const std::string& n : w.notes) out += "# " + n + "\n";
  return out;
}

}  // namespace xtfq::cli
