#include "cli/job_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <vector>

#include "cli/output.h"
#include "layouts/slurm_layout.h"
#include "query/answers/result_json.h"

namespace xtfq::cli {

namespace {

std::string MiBs(std::optional<double> bytes, const JobWindow& w) {
  if (!bytes) return "NA";
  return fmt::format("{:.2f}", *bytes / 1048576.0 / static_cast<double>(w.t2 - w.t1));
}

// A node-wide Slurm series' metric m (its bytes), in MiB/s.
std::string NodeMiBs(const std::optional<std::vector<double>>& v, size_t m, const JobWindow& w) {
  return v ? MiBs((*v)[m], w) : "NA";
}

// The window's slowest rank and its busy seconds ("r12 3.41s"), "-" without one, NA without DXT.
std::string Slowest(const JobWindow& w) {
  if (!w.darshan_read || !w.darshan_ops) return "NA";
  if (!w.darshan_ranks || !w.darshan_ranks->slowest) return "-";
  return fmt::format("r{} {:.2f}s", w.darshan_ranks->slowest->rank, w.darshan_ranks->slowest->busy);
}

// Whether the answer has Slurm Filesystem or Network series (their columns are shown).
bool NodeWide(const JobTimelineAnswer& a) { return a.totals.slurm_fs.has_value() || a.totals.slurm_net.has_value(); }

// The job's job_stats bytes in a window (every target), and the target where it moved the most.
struct JobStatsLine {
  bool any = false;
  double read = 0, write = 0;
  const JobTargetLoad* top = nullptr;
};
JobStatsLine Sum(const JobWindow& w) {
  JobStatsLine l;
  for (const JobTargetLoad& t : w.targets) {
    l.any = true;
    l.read += t.job_read, l.write += t.job_write;
    if (l.top == nullptr || t.job_read + t.job_write > l.top->job_read + l.top->job_write) l.top = &t;
  }
  return l;
}

std::string Rate(double bytes, const JobWindow& w) {
  return fmt::format("{:.2f}", bytes / 1048576.0 / static_cast<double>(w.t2 - w.t1));
}

std::string Row(const std::string& label, const JobWindow& w, bool node_wide) {
  const JobStatsLine j = Sum(w);
  std::string share = "NA", top = "-";
  if (j.top != nullptr && j.top->job_read + j.top->job_write > 0) {
    top = j.top->target;
    if (auto s = j.top->Share()) share = fmt::format("{:.1f}%", 100 * *s);
  }
  std::string line = fmt::format(
      "{:<21} {:>8} {:>8} {:>7} {:>14} | {:>8} {:>8} {:<18} {:>6} | {:>8} {:>8} {:>7} {:>7}", label,
      MiBs(w.darshan_read, w), MiBs(w.darshan_write, w), w.darshan_ops ? std::to_string(*w.darshan_ops) : "NA",
      Slowest(w), j.any ? Rate(j.read, w) : "NA", j.any ? Rate(j.write, w) : "NA", j.any ? top : "NA",
      j.any ? share : "NA", MiBs(w.slurm_read, w), MiBs(w.slurm_write, w),
      w.slurm_cpu ? fmt::format("{:.2f}", *w.slurm_cpu) : "NA", w.slurm_read ? std::to_string(w.slurm_rows) : "NA");
  if (node_wide) {
    line += fmt::format(" | {:>8} {:>8} {:>8} {:>8}", NodeMiBs(w.slurm_fs, 0, w), NodeMiBs(w.slurm_fs, 1, w),
                        NodeMiBs(w.slurm_net, 0, w), NodeMiBs(w.slurm_net, 1, w));
  }
  return line + "\n";
}

}  // namespace

std::string JobReport::Text(const JobTimelineAnswer& a) {
  std::string out = fmt::format("job {}: {} to {} ({} s) in {} window{} of {} s\n", a.job, UtcText(a.t1), UtcText(a.t2),
                                a.t2 - a.t1, a.windows.size(), a.windows.size() == 1 ? "" : "s", a.window_s);
  for (const JobSource& s : a.sources) {
    out += fmt::format("{:<8} {}{}{}\n", s.kind, s.store, s.store.empty() ? "" : ": ", s.detail);
  }
  const bool node_wide = NodeWide(a);
  out += fmt::format("{:<21}{:<42}|{:<45}|{:<36}{}\n", "", " darshan (POSIX)", " jobstats: the job, its top target",
                     " slurm: tasks", node_wide ? "| slurm node-wide: file system, network" : "");
  out += fmt::format(
      "{:<21} {:>8} {:>8} {:>7} {:>14} | {:>8} {:>8} {:<18} {:>6} | {:>8} {:>8} {:>7} {:>7}{}\n", "window start (UTC)",
      "R MiB/s", "W MiB/s", "ops", "slowest rank", "R MiB/s", "W MiB/s", "", "", "R MiB/s", "W MiB/s", "CPU s",
      "samples",
      node_wide ? fmt::format(" | {:>8} {:>8} {:>8} {:>8}", "R MiB/s", "W MiB/s", "in MiB/s", "out MiB/s") : "");
  for (const JobWindow& w : a.windows) out += Row(UtcText(w.t1), w, node_wide);
  out += Row("whole span", a.totals, node_wide);
  const JobStatsLine j = Sum(a.totals);
  out += fmt::format(
      "totals: darshan read {} B, written {} B; jobstats read {} B, written {} B; slurm tasks read {} B, "
      "written {} B, {} CPU s\n",
      a.totals.darshan_read ? std::to_string(*a.totals.darshan_read) : "NA",
      a.totals.darshan_write ? std::to_string(*a.totals.darshan_write) : "NA",
      j.any ? fmt::format("{:.0f}", j.read) : "NA", j.any ? fmt::format("{:.0f}", j.write) : "NA",
      a.totals.slurm_read ? NumText(*a.totals.slurm_read) : "NA",
      a.totals.slurm_write ? NumText(*a.totals.slurm_write) : "NA",
      a.totals.slurm_cpu ? fmt::format("{:.2f}", *a.totals.slurm_cpu) : "NA");
  out +=
      "# MiB/s are means over each row's window (the whole span's over the span); ops, CPU s and samples are the "
      "row's totals\n";
  for (const std::string& n : a.notes) out += "# " + n + "\n";
  return out;
}

std::string JobReport::Json(const JobTimelineAnswer& a) { return ResultJson::Of(a).dump(2) + "\n"; }

std::string JobReport::Csv(const JobTimelineAnswer& a) {
  // Last column: whether the value is an estimate (Darshan bytes spread from counter records).
  std::string out = "kind,t1,t2,source,store,entity,metric,value,estimated\n";
  auto row = [&](const std::string& kind, const JobWindow& w, const std::string& source, const std::string& store,
                 const std::string& entity, const std::string& metric, const std::string& value) {
    const bool estimated = source == "darshan" && w.darshan_estimated;
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", kind, w.t1, w.t2, source, CsvField(store), CsvField(entity),
                       metric, value, estimated);
  };
  // The stores a kind's rows come from (Darshan and Slurm rows sum every store that holds the job).
  std::map<std::string, std::vector<std::string>> stores;
  for (const JobSource& s : a.sources) {
    if (!s.found)
      out += fmt::format("missing,,,{},{},,reason,{},false\n", s.kind, CsvField(s.store), CsvField(s.detail));
    auto& v = stores[s.kind];
    if (s.found && std::find(v.begin(), v.end(), s.store) == v.end()) v.push_back(s.store);
  }
  const std::string darshan = fmt::format("{}", fmt::join(stores["darshan"], " "));
  const std::string slurm = fmt::format("{}", fmt::join(stores["slurm"], " "));
  auto emit = [&](const std::string& kind, const JobWindow& w) {
    if (w.darshan_read) {
      row(kind, w, "darshan", darshan, "job", "read_bytes", std::to_string(*w.darshan_read));
      row(kind, w, "darshan", darshan, "job", "write_bytes", std::to_string(*w.darshan_write));
      if (w.darshan_ops) row(kind, w, "darshan", darshan, "job", "ops", std::to_string(*w.darshan_ops));
      if (w.darshan_ranks && w.darshan_ranks->slowest) {
        const RankImbalance& r = *w.darshan_ranks;
        const std::string e = fmt::format("log={} rank={}", w.darshan_ranks_log, r.slowest->rank);
        row(kind, w, "darshan", darshan, e, "slowest_rank_busy_s", fmt::format("{:.17g}", r.slowest->busy));
        row(kind, w, "darshan", darshan, e, "slowest_rank_bytes", std::to_string(r.slowest->bytes));
        if (r.slowest_to_fastest_bytes)
          row(kind, w, "darshan", darshan, e, "slowest_to_fastest_bytes",
              fmt::format("{:.17g}", *r.slowest_to_fastest_bytes));
      }
    }
    for (const JobTargetLoad& t : w.targets) {
      const std::string e = "target=" + t.target;
      row(kind, w, "jobstats", t.store, e, "job_read_bytes", fmt::format("{:.17g}", t.job_read));
      row(kind, w, "jobstats", t.store, e, "job_write_bytes", fmt::format("{:.17g}", t.job_write));
      row(kind, w, "jobstats", t.store, e, "target_read_bytes", fmt::format("{:.17g}", t.target_read));
      row(kind, w, "jobstats", t.store, e, "target_write_bytes", fmt::format("{:.17g}", t.target_write));
      if (auto s = t.Share()) row(kind, w, "jobstats", t.store, e, "share", fmt::format("{:.17g}", *s));
    }
    if (w.slurm_read) {
      row(kind, w, "slurm", slurm, "tasks", "read_bytes", fmt::format("{:.17g}", *w.slurm_read));
      row(kind, w, "slurm", slurm, "tasks", "write_bytes", fmt::format("{:.17g}", *w.slurm_write));
      row(kind, w, "slurm", slurm, "tasks", "cpu_s", fmt::format("{:.17g}", *w.slurm_cpu));
      row(kind, w, "slurm", slurm, "tasks", "samples", std::to_string(w.slurm_rows));
    }
    for (const auto& [v, kind_id, entity] : {std::tuple{&w.slurm_fs, SlurmLayout::kFilesystem, "filesystem"},
                                             std::tuple{&w.slurm_net, SlurmLayout::kNetwork, "network"}}) {
      if (!*v) continue;
      const auto& names = SlurmWindowQuery::Metrics(kind_id);
      for (size_t m = 0; m < names.size(); ++m)
        row(kind, w, "slurm", slurm, entity, std::string(names[m]), fmt::format("{:.17g}", (**v)[m]));
    }
  };
  for (const JobWindow& w : a.windows) emit("window", w);
  emit("total", a.totals);
  return out;
}

}  // namespace xtfq::cli
