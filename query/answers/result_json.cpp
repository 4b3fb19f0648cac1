#include "query/answers/result_json.h"

#include <fmt/format.h>

#include <cmath>

#include "layouts/slurm_layout.h"

namespace xtfq {

namespace {
nlohmann::json J(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

// A window edge in JSON: seconds, or null for an open side (the run's edge).
nlohmann::json EdgeJson(int64_t ns, bool lo) {
  if (lo ? ns == INT64_MIN : ns == INT64_MAX) return nullptr;
  return static_cast<double>(ns) / 1e9;
}
}  // namespace

std::string ResultJson::EdgeSeconds(int64_t ns, bool lo) {
  if (lo ? ns == INT64_MIN : ns == INT64_MAX) return lo ? "-inf" : "+inf";
  return fmt::format("{:.9g}", static_cast<double>(ns) / 1e9);
}

nlohmann::json ResultJson::Of(const DarshanOpStats& s, const DarshanOpMetrics& d) {
  // Counts the source does not keep are null (unknown), never 0.
  nlohmann::json classes = nullptr;
  if (s.size_classes_known) {
    classes = nlohmann::json::object();
    for (int b = 0; b < DarshanLayout::kSizeClasses; ++b)
      classes[std::string(DarshanLayout::SizeClassName(b))] = s.size_classes[static_cast<size_t>(b)];
  }
  return {{"ops", s.ops},
          {"bytes", s.bytes},
          {"busy_s", s.busy},
          {"mib_per_busy_s", J(d.mib_per_busy_s)},
          {"iops", J(d.iops)},
          {"avg_size", J(d.avg_size)},
          {"seq_ratio", J(d.seq_ratio)},
          {"consec_ratio", J(d.consec_ratio)},
          {"small_ratio", J(d.small_ratio)},
          {"seq", s.seq_known ? nlohmann::json(s.seq) : nlohmann::json(nullptr)},
          {"consec", s.consec_known ? nlohmann::json(s.consec) : nlohmann::json(nullptr)},
          {"size_classes", classes}};
}

nlohmann::json ResultJson::Of(const RankImbalance& r) {
  return {{"ranks", r.ranks},
          {"max_bytes", r.max_bytes.bytes},
          {"max_bytes_rank", r.max_bytes.rank},
          {"min_bytes", r.min_bytes.bytes},
          {"min_bytes_rank", r.min_bytes.rank},
          {"mean_bytes", r.mean_bytes},
          {"slowest_rank", r.slowest ? nlohmann::json(r.slowest->rank) : nullptr},
          {"slowest_rank_bytes", r.slowest ? nlohmann::json(r.slowest->bytes) : nullptr},
          {"slowest_rank_busy_s", r.slowest ? nlohmann::json(r.slowest->busy) : nullptr},
          {"fastest_rank", r.fastest ? nlohmann::json(r.fastest->rank) : nullptr},
          {"fastest_rank_bytes", r.fastest ? nlohmann::json(r.fastest->bytes) : nullptr},
          {"fastest_rank_busy_s", r.fastest ? nlohmann::json(r.fastest->busy) : nullptr},
          {"slowest_to_fastest_bytes", J(r.slowest_to_fastest_bytes)},
          {"slowest_to_fastest_busy", r.slowest && r.fastest && r.fastest->busy > 0
                                          ? nlohmann::json(r.slowest->busy / r.fastest->busy)
                                          : nlohmann::json(nullptr)}};
}

namespace {
// Darshan's aggregate performance of the answer's module over the whole run, under
// darshan-parser's names; null with the reason when the store does not keep it.
nlohmann::json DarshanPerfJson(const DarshanWindowAnswer& a) {
  const DarshanModulePerf* p = a.perf.Find(a.spec.module);
  if (!a.perf.kept) return {{"module", a.spec.module}, {"missing", DarshanPerf::NotKept(a.info)}};
  if (p == nullptr) return nullptr;
  nlohmann::json files;
  for (size_t i = 0; i < p->files.size(); ++i) {
    const DarshanFileCategory& c = p->files[i];
    files[std::string(DarshanLayout::kFileLines[i])] = {
        {"file_count", c.count}, {"total_bytes", c.bytes}, {"max_byte_offset", c.max_offset}};
  }
  return {{"module", a.spec.module},
          {"scope", "whole run"},
          {"estimated", a.perf.from_text},
          {"total_bytes", p->total_bytes},
          {"slowest_rank_io_time", p->slowest_rank_io_time},
          {"slowest_rank_meta_only_time", p->slowest_rank_meta_only_time},
          {"slowest_rank_rw_only_time", p->slowest_rank_rw_only_time},
          {"slowest_rank", p->slowest_rank},
          {"time_by_slowest", p->time_by_slowest},
          {"agg_time_by_slowest", p->agg_time_by_slowest},
          {"agg_perf_by_slowest", p->agg_perf_by_slowest},
          {"files", files}};
}
}  // namespace

namespace {
// What PyDarshan's job summary shows of one module, over the whole run.
nlohmann::json JobSummaryJson(const DarshanJobSummary& s) {
  nlohmann::json ops = nlohmann::json::object(), sizes = nlohmann::json::array();
  for (const auto& [name, n] : s.operations) ops[name] = n ? nlohmann::json(*n) : nlohmann::json(nullptr);
  for (const auto& [size, n] : s.common_accesses) sizes.push_back({{"size", size}, {"count", n}});
  return {{"scope", "whole run"},
          {"module", s.module},
          {"operations", ops},
          {"common_access_sizes", sizes},
          {"io_time_per_process_s", {{"read", s.read_time}, {"write", s.write_time}, {"meta", s.meta_time}}},
          {"run_time_s", s.run_time}};
}
}  // namespace

nlohmann::json ResultJson::Of(const DarshanWindowAnswer& a) {
  auto op = [](const DarshanOpStats& s) { return Of(s, DarshanOpMetrics::Of(s)); };
  nlohmann::json j = {{"log", a.info.log},
                      {"job", a.info.job},
                      {"module", a.spec.module},
                      {"source", a.Source()},
                      {"window_s", {EdgeJson(a.spec.t1, true), EdgeJson(a.spec.t2, false)}},
                      {"ranks", a.request.ranks.empty() ? ":" : a.request.ranks},
                      {"answered", a.answered},
                      {"estimated", a.result.estimated && !a.result.exact},
                      {"warnings", a.warnings},
                      {"read", Of(a.result.read, a.read)},
                      {"write", Of(a.result.write, a.write)},
                      {"rank_imbalance", a.imbalance ? Of(*a.imbalance) : nlohmann::json(nullptr)}};
  if (!a.module_note.empty()) j["module_note"] = a.module_note;
  // The headline bandwidth: bytes moved during the window over its wall time.
  j["bw_window_s"] = {static_cast<double>(a.rate.t1) / 1e9, static_cast<double>(a.rate.t2) / 1e9};
  j["bw_basis"] = a.rate_basis;
  j["bw_estimated"] = a.rate_estimated;
  for (int op = 0; op < 2; ++op) {
    nlohmann::json& o = j[op == 0 ? "read" : "write"];
    const DxtSpread& d = a.rate.total[static_cast<size_t>(op)];
    o["bw_mib_s"] = J(a.rate.MiBps(op));
    o["bytes_moved"] = d.bytes;
    o["busy_s_in_window"] = a.result.heatmap || a.result.estimated ? nlohmann::json(nullptr) : nlohmann::json(d.busy);
  }
  j["whole_run"] = a.whole_run;
  if (a.summary) {
    j["job_summary"] = JobSummaryJson(*a.summary);
    for (const DarshanJobSummary& lib : a.library_summaries)
      j["job_summary"]["libraries"].push_back(JobSummaryJson(lib));
  }
  if (a.shared_imbalance) {
    nlohmann::json files = nlohmann::json::array();
    for (const SharedFileImbalance& f : a.shared_imbalance->files) {
      files.push_back({{"id", f.id},
                       {"name", f.name},
                       {"slowest_rank", f.slowest_rank},
                       {"slowest_rank_bytes", f.slowest_rank_bytes},
                       {"slowest_rank_time", f.slowest_rank_time},
                       {"fastest_rank", f.fastest_rank},
                       {"fastest_rank_bytes", f.fastest_rank_bytes},
                       {"fastest_rank_time", f.fastest_rank_time},
                       {"slowest_to_fastest_time", J(f.TimeRatio())},
                       {"variance_rank_time", J(f.variance_rank_time)},
                       {"variance_rank_bytes", J(f.variance_rank_bytes)}});
    }
    j["shared_file_imbalance"] = {
        {"scope", "whole run"}, {"shared_files", a.shared_imbalance->shared_files}, {"slowest_first", files}};
  }
  if (a.partial_counters) {
    // The DXT module is partial: the counters' complete totals over the whole run beside it.
    for (int o = 0; o < 2; ++o) {
      const DarshanOpStats& c = (*a.partial_counters)[static_cast<size_t>(o)];
      j["counters_whole_run"][o == 0 ? "read" : "write"] = {{"ops", c.ops}, {"bytes", c.bytes}};
    }
  }
  j["darshan_perf"] = DarshanPerfJson(a);
  if (a.total) {
    nlohmann::json counters = nlohmann::json::object();
    for (const auto& [name, v] : a.total->counters) {
      std::visit([&](auto x) { counters[name] = x; }, v);
    }
    j["darshan_total"] = {{"module", a.total->module}, {"scope", "whole run"}, {"counters", counters}};
  }
  // Percentiles of sizes and durations: [lower, upper] holding each (one log2 bin).
  auto percentiles = [](const DarshanOpDistribution& d) {
    nlohmann::json p;
    for (double q : {0.5, 0.9, 0.99}) {
      const std::string name = fmt::format("p{:g}", q * 100);
      const auto s = d.Size(q), t = d.Duration(q);
      p["size"][name] = s ? nlohmann::json{s->first, s->second} : nlohmann::json(nullptr);
      p["duration_s"][name] = t ? nlohmann::json{t->first, t->second} : nlohmann::json(nullptr);
    }
    p["bound"] = "each percentile lies in [lower, upper]: one log2 bin narrowed to the minimum and maximum";
    return p;
  };
  if (a.read_dist) j["read"]["percentiles"] = percentiles(*a.read_dist);
  if (a.write_dist) j["write"]["percentiles"] = percentiles(*a.write_dist);
  if (!a.distributions_read.empty()) j["percentiles_read"] = a.distributions_read;
  if (a.request.per_rank) {
    j["per_rank"] = nlohmann::json::array();
    j["ranks_in_window"] = a.result.ranks.size();
    j["rank_sort"] = a.request.rank_sort;
    if (a.request.top_ranks > 0) j["top_ranks"] = a.request.top_ranks;
    for (int64_t rank : a.rank_order) {
      const auto& ops = a.result.ranks.at(rank);
      nlohmann::json row = {{"rank", rank}, {"read", op(ops[0])}, {"write", op(ops[1])}};
      const auto moved = a.rate.ranks.find(rank);
      for (int o = 0; o < 2; ++o) {
        const double bytes = moved == a.rate.ranks.end() ? 0.0 : moved->second[static_cast<size_t>(o)].bytes;
        row[o == 0 ? "read" : "write"]["bw_mib_s"] =
            a.rate.Seconds() > 0 ? nlohmann::json(bytes / 1048576.0 / a.rate.Seconds()) : nlohmann::json(nullptr);
        row[o == 0 ? "read" : "write"]["bytes_moved"] = bytes;
      }
      j["per_rank"].push_back(std::move(row));
    }
  }
  if (a.request.per_file) {
    j["per_file"] = nlohmann::json::array();
    j["files_in_window"] = a.files_in_window;
    if (a.request.top_files > 0) j["top_files"] = a.request.top_files;
    for (uint64_t id : a.file_order) {
      const auto& ops = a.result.files.at(id);
      j["per_file"].push_back({{"id", id}, {"name", a.FileName(id)}, {"read", op(ops[0])}, {"write", op(ops[1])}});
    }
  }
  if (a.result.heatmap) {
    // HEATMAP bins count bytes only: operations, busy time and sizes are unknown, not zero.
    auto unknown = [](nlohmann::json& o) {
      for (const char* k : {"ops", "busy_s", "seq", "consec", "size_classes"}) o[k] = nullptr;
    };
    if (!a.result.counter_ops) unknown(j["read"]), unknown(j["write"]);
    if (j.contains("per_rank")) {
      for (auto& r : j["per_rank"]) unknown(r["read"]), unknown(r["write"]);
    }
  }
  return j;
}

nlohmann::json ResultJson::Of(const JobStatsWindowAnswer& a) {
  const JobStatsWindow& w = a.window;
  nlohmann::json j;
  j["t1"] = w.t1, j["t2"] = w.t2, j["indexed"] = w.indexed, j["steps_read"] = w.steps_read;
  j["groups_in_window"] = a.groups_in_window;
  j["warnings"] = a.warnings;
  j["notes"] = a.notes;
  j["snapped"] = a.snapped;
  if (a.snapped) j["asked_t1"] = a.asked_t1, j["asked_t2"] = a.asked_t2;
  if (a.request_top > 0) j["top"] = a.request_top, j["sorted_by"] = a.sorted_by;
  if (w.summarised) j["summarised_to"] = w.summarised_to, j["summary_cells"] = w.summary_cells;
  for (JobStatsKey k : a.by) j["by"].push_back(JobStatsKeyName(k));
  j["groups"] = nlohmann::json::array();
  for (const JobStatsGroup& g : w.groups) {
    nlohmann::json gj;
    for (size_t i = 0; i < a.by.size(); ++i) gj[std::string(JobStatsKeyName(a.by[i]))] = g.keys[i];
    // Every group has `ops` (empty when no rate step of it lies in the window) and says so.
    gj["no_rate_steps"] = g.ops.empty();
    gj["ops"] = nlohmann::json::object();
    for (const auto& [op, o] : g.ops) {
      gj["ops"][op] = {{"total", o.total},
                       {"rate_mean", J(a.RateMean(o))},
                       {"rate_max", o.rate_max},
                       {"series_rate_max", o.series_rate_max},
                       {"steps", o.steps}};
    }
    j["groups"].push_back(gj);
  }
  return j;
}

nlohmann::json ResultJson::Of(const JobStatsHeatmap& h) {
  nlohmann::json j;
  j["op"] = h.op, j["base"] = h.base, j["t1"] = h.t1, j["t2"] = h.t2, j["cell"] = h.cell,
  j["step_functions"] = h.summarised ? nlohmann::json(nullptr) : nlohmann::json(h.groups);
  if (h.summarised) j["summary_cells"] = h.summary_cells;
  j["cells"] = nlohmann::json::array();
  for (const auto& c : h.cells) {
    j["cells"].push_back(
        {{"t", c.t}, {"k", c.k}, {"lo", std::pow(h.base, c.k)}, {"hi", std::pow(h.base, c.k + 1)}, {"count", c.count}});
  }
  return j;
}

nlohmann::json ResultJson::Of(const DarshanLogInfo& l) {
  const bool text = l.source == DarshanLayout::SourceKind::kParserText;
  const std::vector<std::string> doubts = DarshanLogs::HeaderDoubts(l);
  std::vector<std::string> note;
  if (text) {
    note.push_back(
        "floating-point counters carry only the six decimals darshan-parser prints; no DXT segments; job "
        "nanoseconds unknown");
  }
  if (!doubts.empty()) {
    note.push_back(fmt::format(
        "the header cannot be right: {} (darshan-parser prints the same); windows take the run from the data",
        fmt::join(doubts, ", ")));
  }
  return {{"log", l.log},
          {"job", l.job},
          {"uid", l.uid},
          {"nprocs", l.nprocs},
          {"format", fmt::format("3.{:02}", l.format_minor)},
          {"start_sec", l.start_sec},
          {"end_sec", l.end_sec},
          {"run_s", DarshanLogs::RunSeconds(l)},
          {"exe", l.exe},
          {"file", l.file},
          {"source", text ? "darshan-parser text" : "binary log"},
          {"source_bytes", l.source_bytes},
          {"partial_modules", DarshanLogs::PartialModules(l)},
          {"header_doubts", doubts},
          {"note", fmt::format("{}", fmt::join(note, "; "))}};
}

nlohmann::json ResultJson::Of(const GridAnswer& g) {
  nlohmann::json j;
  j["source"] = g.source;
  j["arrays"] = g.arrays;
  j["exactness"] = g.exactness;
  j["estimate"] = g.estimate;
  nlohmann::json t;
  t["unit"] = g.frame.UnitName();
  t["edges"] = g.edges;
  nlohmann::json secs = nlohmann::json::array();
  for (int64_t e : g.edges) secs.push_back(g.Seconds(e));
  t["edges_s"] = secs;
  if (g.frame.kind == TimeFrameKind::kDarshan) t["job_start_epoch"] = g.frame.epoch_origin;
  j["time"] = t;
  j["process"] = g.process_name;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [lo, hi] : g.rows) rows.push_back({lo, hi});
  j["rows"] = rows;
  if (!g.row_labels.empty()) j["row_labels"] = g.row_labels;
  j["cols"] = g.cols();
  j["snapped"] = g.snapped;
  auto matrix = [&](auto&& value) {
    nlohmann::json m = nlohmann::json::array();
    for (size_t r = 0; r < g.rows.size(); ++r) {
      nlohmann::json row = nlohmann::json::array();
      for (size_t c = 0; c < g.cols(); ++c) row.push_back(value(r * g.cols() + c));
      m.push_back(std::move(row));
    }
    return m;
  };
  if (!g.count.empty()) j["count"] = matrix([&](size_t i) { return nlohmann::json(g.count[i]); });
  nlohmann::json metrics = nlohmann::json::array();
  for (size_t k = 0; k < g.metrics.size(); ++k) {
    nlohmann::json m;
    m["name"] = g.metrics[k].name;
    m["unit"] = g.metrics[k].unit;
    m["values"] = matrix([&](size_t i) {
      const std::optional<double>& v = g.values[k][i];
      return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
    });
    if (k < g.lower.size() && !g.lower[k].empty()) {
      m["percentile"] = g.metrics[k].quantile * 100;
      m["lower"] = matrix([&](size_t i) {
        const std::optional<double>& v = g.lower[k][i];
        return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
      });
      m["bound"] =
          "the percentile lies in [lower, value]: one log2 bin of the distribution narrowed to the cell's minimum and "
          "maximum (docs/format.md, Log histograms)";
    }
    metrics.push_back(std::move(m));
  }
  j["metrics"] = metrics;
  j["plan"] = {{"how", g.plan.Describe()},
               {"levels", g.plan.levels},
               {"cells_read", g.plan.cells_read},
               {"process_arrays", g.plan.process_arrays},
               {"records_read", g.plan.records_read},
               {"pages_read", g.pages_read}};
  j["notes"] = g.notes;
  return j;
}

nlohmann::json ResultJson::Of(const StoreSummary& s) {
  nlohmann::json arrays = nlohmann::json::array();
  for (const StoreSummary::Array& a : s.arrays) {
    nlohmann::json fields = nlohmann::json::array();
    for (const Field& fd : a.desc->schema.fields())
      fields.push_back({{"name", fd.name}, {"type", FieldTypeName(fd.type)}, {"offset", fd.offset}});
    nlohmann::json aggs = nlohmann::json::array();
    for (uint16_t g : a.desc->schema.aggregates()) aggs.push_back(a.desc->schema.fields()[g].name);
    nlohmann::json levels = nlohmann::json::array();
    for (size_t l = 0; l < a.levels.size(); ++l) {
      levels.push_back(
          {{"level", l}, {"pages", a.levels[l].pages}, {"entries_per_page", a.levels[l].entries_per_page}});
    }
    nlohmann::json pj = nullptr;
    if (const auto& pi = a.process_index) {
      pj = {{"processes", pi->processes},
            {"data_pages", pi->data_pages},
            {"index_pages", pi->index_pages},
            {"tree_pages", pi->tree_pages},
            {"tree_height", pi->tree_height},
            {"sole_process", pi->sole ? nlohmann::json(*pi->sole) : nlohmann::json(nullptr)}};
    }
    arrays.push_back({{"id", a.id},
                      {"name", a.name},
                      {"records", a.records},
                      {"record_bytes", a.record_bytes},
                      {"records_per_page", a.records_per_page},
                      {"full_pages", a.full_pages},
                      {"open_page_records", a.open_page_records},
                      {"fields", fields},
                      {"aggregates", aggs},
                      {"height", a.levels.size()},
                      {"levels", levels},
                      {"index_pages", a.index_pages},
                      {"index_overhead", a.index_overhead},
                      {"process_index", pj},
                      {"bytes_per_record", a.bytes_per_record}});
  }
  nlohmann::json darshan = nlohmann::json::array();
  for (const DarshanLogInfo& l : s.darshan_logs) darshan.push_back(Of(l));
  nlohmann::json jobstats;
  if (const auto& js = s.jobstats) {
    const nlohmann::json classes = js->classes;
    jobstats = {{"targets", js->targets}, {"ops", js->ops},       {"collections", js->collections},
                {"entries", js->entries}, {"series", js->series}, {"classes", classes},
                {"first", js->first},     {"last", js->last}};
  }
  nlohmann::json slurm = nlohmann::json::array();
  for (const auto& j : s.slurm_jobs) {
    slurm.push_back({{"job", j.job},
                     {"series", j.series},
                     {"duplicates", j.duplicates},
                     {"rows", j.rows},
                     {"steps", j.steps},
                     {"nodes", j.nodes},
                     {"sources", j.sources},
                     {"first", j.first == INT64_MAX ? nlohmann::json(nullptr) : nlohmann::json(j.first)},
                     {"last", j.last == INT64_MIN ? nlohmann::json(nullptr) : nlohmann::json(j.last)}});
  }
  const StoreSummary::Pages& p = s.pages;
  std::vector<std::string> unreadable;
  for (const Error& e : s.unreadable) unreadable.push_back(e.message());
  return {{"store", s.store},
          {"format_version", s.format_version},
          {"page_size", s.page_size},
          {"generation", s.generation},
          {"superblock_slot", s.superblock_slot},
          {"commit_time_ns", s.commit_time_ns},
          {"page_count", s.page_count},
          {"file_bytes", s.file_bytes},
          {"pages",
           {{"superblock", p.superblock},
            {"catalogue", p.catalogue},
            {"data", p.data},
            {"index", p.index},
            {"process_tree", p.process_tree},
            {"heap", p.heap},
            {"shadow", p.shadow},
            {"pack", p.pack},
            {"page_map", p.page_map},
            {"free", p.free}}},
          {"free_bytes", s.free_bytes},
          {"heap_bytes", s.heap_bytes},
          {"catalogue_bytes", s.catalogue_bytes},
          {"arrays", arrays},
          {"darshan_logs", darshan},
          {"unreadable", unreadable},
          {"jobstats", jobstats},
          {"slurm_jobs", slurm}};
}

nlohmann::json ResultJson::Of(const DarshanSegmentsAnswer& a) {
  nlohmann::json j = {{"log", a.info.log},
                      {"job", a.info.job},
                      {"source", a.source},
                      {"op", a.request.op},
                      {"window_s", {EdgeJson(a.t1, true), EdgeJson(a.t2, false)}},
                      {"ranks", a.request.ranks.empty() ? ":" : a.request.ranks},
                      {"total", a.total},
                      {"offset", a.request.offset},
                      {"limit", a.request.limit},
                      {"order", "start, rank, file, offset"},
                      {"records_read", a.records_read},
                      {"warnings", a.warnings}};
  j["segments"] = nlohmann::json::array();
  for (const DarshanSegment& s : a.segments) {
    const double start = static_cast<double>(s.start) / 1e9;
    j["segments"].push_back({{"op", s.write ? "write" : "read"},
                             {"rank", s.rank},
                             {"start_ns", s.start},
                             {"start_s", start},
                             {"end_s", start + s.duration},
                             {"duration_s", s.duration},
                             {"offset", s.offset},
                             {"length", s.length},
                             {"file_id", s.file},
                             {"file", a.FileName(s.file)},
                             {"thread", s.thread}});
  }
  return j;
}

namespace {

nlohmann::json JobWindowJson(const JobWindow& w) {
  nlohmann::json j;
  j["t1"] = w.t1, j["t2"] = w.t2;
  if (w.darshan_read) {
    j["darshan"] = {{"read_bytes", *w.darshan_read}, {"write_bytes", *w.darshan_write}};
    j["darshan"]["ops"] = w.darshan_ops ? nlohmann::json(*w.darshan_ops) : nlohmann::json(nullptr);
    j["darshan"]["estimated"] = w.darshan_estimated;
    j["darshan"]["ranks"] = nullptr;
    if (w.darshan_ranks) {
      j["darshan"]["ranks"] = ResultJson::Of(*w.darshan_ranks);
      j["darshan"]["ranks"]["log"] = w.darshan_ranks_log;
    }
  } else {
    j["darshan"] = nullptr;
  }
  j["jobstats"] = nlohmann::json::array();
  for (const JobTargetLoad& t : w.targets) {
    const auto share = t.Share();
    j["jobstats"].push_back({{"store", t.store},
                             {"target", t.target},
                             {"job_read_bytes", t.job_read},
                             {"job_write_bytes", t.job_write},
                             {"target_read_bytes", t.target_read},
                             {"target_write_bytes", t.target_write},
                             {"share", share ? nlohmann::json(*share) : nlohmann::json(nullptr)}});
  }
  if (w.slurm_read) {
    j["slurm"] = {{"read_bytes", *w.slurm_read},
                  {"write_bytes", *w.slurm_write},
                  {"cpu_s", *w.slurm_cpu},
                  {"samples", w.slurm_rows}};
  } else {
    j["slurm"] = nullptr;
  }
  auto node_wide = [](const std::optional<std::vector<double>>& v, uint8_t kind) {
    if (!v) return nlohmann::json(nullptr);
    nlohmann::json o;
    const auto& names = SlurmWindowQuery::Metrics(kind);
    for (size_t m = 0; m < names.size() && m < v->size(); ++m) o[std::string(names[m])] = (*v)[m];
    return o;
  };
  j["slurm_fs"] = node_wide(w.slurm_fs, SlurmLayout::kFilesystem);
  j["slurm_net"] = node_wide(w.slurm_net, SlurmLayout::kNetwork);
  return j;
}

}  // namespace

nlohmann::json ResultJson::Of(const JobTimelineAnswer& a) {
  nlohmann::json j;
  j["job"] = a.job;
  j["found"] = a.any();
  if (!a.any()) j["error"] = a.NotFound();
  j["span"] = {{"t1", a.t1}, {"t2", a.t2}};
  j["window_s"] = a.window_s;
  j["sources"] = nlohmann::json::array();
  for (const JobSource& s : a.sources)
    j["sources"].push_back({{"kind", s.kind}, {"store", s.store}, {"found", s.found}, {"detail", s.detail}});
  j["windows"] = nlohmann::json::array();
  for (const JobWindow& w : a.windows) j["windows"].push_back(JobWindowJson(w));
  j["totals"] = JobWindowJson(a.totals);
  j["notes"] = a.notes;
  return j;
}

nlohmann::json ResultJson::Of(const SlurmWindow& w, const std::vector<SlurmKey>& by) {
  nlohmann::json j;
  j["window"] = {{"t1", w.t1}, {"t2", w.t2}};
  j["rule"] = w.prorate ? "prorate" : "sample";
  j["by"] = nlohmann::json::array();
  for (SlurmKey k : by) j["by"].push_back(SlurmWindowQuery::KeyName(k));
  j["groups"] = nlohmann::json::array();
  for (const SlurmGroup& g : w.groups) {
    nlohmann::json o;
    o["kind"] = std::string(SlurmLayout::KindName(g.kind));
    for (size_t k = 0; k < by.size() && k < g.keys.size(); ++k)
      o[std::string(SlurmWindowQuery::KeyName(by[k]))] = g.keys[k];
    o["series"] = g.series;
    o["rows"] = g.rows;
    const auto& m = SlurmWindowQuery::Metrics(g.kind);
    for (size_t k = 0; k < m.size(); ++k) o[std::string(m[k])] = g.totals[k];
    if (g.kind == SlurmLayout::kTasks) {
      // Levels are sampled: null without a sample in the window.
      o["rss_max_kib"] = g.rows ? nlohmann::json(g.rss_max) : nlohmann::json(nullptr);
      o["vmsize_max_kib"] = g.rows ? nlohmann::json(g.vmsize_max) : nlohmann::json(nullptr);
    }
    j["groups"].push_back(std::move(o));
  }
  j["warnings"] = w.warnings;
  j["notes"] = w.notes;
  j["edge_rows"] = w.edge_rows;
  return j;
}

nlohmann::json ResultJson::Record(const Schema& schema, const std::byte* record) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    std::visit([&](auto v) { j[schema.fields()[i].name] = v; }, schema.Get(record, i));
  }
  return j;
}

nlohmann::json ResultJson::Of(const ArrayWindowStats& s) {
  nlohmann::json j = {{"count", s.count}};
  for (const ArrayFieldAnswer& f : s.fields) {
    const FieldStats& st = f.stats;
    nlohmann::json fj;
    fj["sum"] = st.is_float ? nlohmann::json(st.f_sum) : nlohmann::json(st.i_sum);
    if (s.count > 0) {
      fj["min"] = st.is_float ? nlohmann::json(st.f_min) : nlohmann::json(st.i_min);
      fj["max"] = st.is_float ? nlohmann::json(st.f_max) : nlohmann::json(st.i_max);
      fj["mean"] = f.mean;
      fj["std"] = f.stddev;
    }
    fj["sumsq"] = st.sumsq;
    if (!f.percentiles.empty()) {
      for (const WindowPercentile& p : f.percentiles) {
        fj["percentiles"][fmt::format("p{:g}", p.q * 100)] =
            p.bound ? nlohmann::json{p.bound->first, p.bound->second} : nlohmann::json(nullptr);
      }
      fj["percentiles"]["bound"] = "each percentile lies in [lower, upper]: one log2 bin narrowed to min and max";
    }
    j[f.name] = fj;
  }
  return j;
}

nlohmann::json ResultJson::Of(const ArrayWindowAnswer& a) {
  if (!a.histogram) return Of(a.whole);
  nlohmann::json j = nlohmann::json::array();
  for (size_t b = 0; b < a.buckets.size(); ++b) {
    nlohmann::json bj = Of(a.buckets[b].stats);
    bj["bucket"] = b;
    bj["start"] = a.buckets[b].start;
    bj["end"] = a.buckets[b].end;
    j.push_back(std::move(bj));
  }
  return j;
}

nlohmann::json ResultJson::Of(const PrimitiveAnswer& a, PrimitiveOp op, const Schema& schema) {
  if (op == PrimitiveOp::kSize) return {{"count", a.count}};
  nlohmann::json j = {{"position", a.cursor.position}, {"records", a.records}};
  if (a.process) j["process"] = *a.process;
  j["record"] = a.cursor.at_end() ? nlohmann::json(nullptr) : Record(schema, a.cursor.record.data());
  return j;
}

}  // namespace xtfq
