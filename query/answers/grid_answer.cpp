#include "query/answers/grid_answer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "index/tn_tree.h"
#include "layouts/darshan_layout.h"
#include "layouts/grid_layout.h"
#include "layouts/jobstats_layout.h"
#include "layouts/slurm_layout.h"
#include "query/core/process_window.h"
#include "query/core/store_kind.h"
#include "query/darshan/darshan_counter_window.h"
#include "query/darshan/darshan_logs.h"
#include "query/darshan/darshan_window_query.h"
#include "query/darshan/dxt_carry.h"
#include "query/jobstats/jobstats_grid_query.h"
#include "query/slurm/slurm_view.h"

namespace xtfq {

namespace {

using L = DarshanLayout;

// What to grid: the arrays (one or two of one schema, cells merged) and how to name things.
struct Source {
  std::vector<const ArrayDesc*> arrays;
  std::optional<DarshanLogInfo> counters;  // no DXT, no HEATMAP: an estimate from this log's counter records
  std::string name, process_name = "process", exactness;
  TimeFrame frame;
  std::map<std::string, GridMetric> aliases;
  std::vector<std::string> defaults;
  std::vector<std::string> notes;  // what a cell of this source is not (said with every grid of it)
};

GridMetric Alias(GridMetric::Stat stat, std::vector<size_t> aggs, std::string unit) {
  GridMetric m;
  m.stat = stat, m.aggregates = std::move(aggs), m.unit = std::move(unit);
  return m;
}

size_t AggregateIndex(const Schema& s, std::string_view field) {
  return s.FindAggregate(field).value_or(0);  // the layouts' schemas have these fields (tests/format_doc_test.cpp)
}

Result<Source> DarshanSource(StoreReader& reader, GridAnswerRequest& req) {
  XTFQ_ASSIGN_OR_RETURN(DarshanLogInfo info, DarshanLogs::Find(reader, req.log, req.job));
  std::string module_note;
  req.module = DarshanLogs::ChooseModule(reader, info, req.module, &module_note);
  if (req.op != "read" && req.op != "write" && req.op != "all") {
    return Error(ErrorCode::kUsage, fmt::format("--op {}: read, write or all", req.op));
  }
  if (req.module != "POSIX" && req.module != "MPI-IO" && req.module != "STDIO") {
    return Error(ErrorCode::kUsage, fmt::format("--module {}: POSIX or MPI-IO (DXT), or STDIO (HEATMAP)", req.module));
  }
  const Catalogue& cat = reader.catalogue();
  Source s;
  if (!module_note.empty()) s.notes.push_back(module_note);
  s.frame = DarshanWindowQuery::Frame(info);
  s.process_name = "rank";
  const std::string dxt = req.module == "POSIX" ? "DXT_POSIX" : req.module == "MPI-IO" ? "DXT_MPIIO" : "DXT_STDIO";
  for (const char* op : {"read", "write"}) {
    if (req.op != "all" && req.op != op) continue;
    const ArrayDesc* a = cat.Find(L::ArrayName(info.log, fmt::format("{}.{}", dxt, op)));
    if (a != nullptr) s.arrays.push_back(a);
  }
  const bool any_dxt = cat.Find(L::ArrayName(info.log, dxt + ".read")) != nullptr ||
                       cat.Find(L::ArrayName(info.log, dxt + ".write")) != nullptr;
  if (any_dxt) {
    const Schema& d = L::DxtSchema();
    s.name = fmt::format("{} {} of log {}", dxt, req.op == "all" ? "reads and writes" : req.op + "s", info.log);
    // bytes, busy and ranks_busy spread each segment over the cells it overlaps; ops and the
    // *.started forms count it whole in the cell where it starts.
    s.aliases["ops"] = Alias(GridMetric::Stat::kCount, {}, "started");
    s.aliases["bytes.started"] = Alias(GridMetric::Stat::kSum, {AggregateIndex(d, "length")}, "bytes");
    s.aliases["busy.started"] = Alias(GridMetric::Stat::kSum, {AggregateIndex(d, "duration")}, "s");
    s.aliases["bytes"] = Alias(GridMetric::Stat::kSum, {AggregateIndex(d, "length")}, "bytes");
    s.aliases["bytes"].spread = GridMetric::Spread::kBytes;
    s.aliases["busy"] = Alias(GridMetric::Stat::kSum, {AggregateIndex(d, "duration")}, "s");
    s.aliases["busy"].spread = GridMetric::Spread::kSeconds;
    s.aliases["ranks_busy"] = Alias(GridMetric::Stat::kSum, {AggregateIndex(d, "duration")}, "ranks");
    s.aliases["ranks_busy"].spread = GridMetric::Spread::kSeconds;
    s.aliases["ranks_busy"].per_second = true;
    for (const char* q : {"p50", "p90", "p99"}) {
      GridMetric size = Alias(GridMetric::Stat::kQuantile, {AggregateIndex(d, "length")}, "bytes");
      GridMetric duration = Alias(GridMetric::Stat::kQuantile, {AggregateIndex(d, "duration")}, "s");
      size.quantile = duration.quantile = std::stod(q + 1) / 100;
      size.exponent = LogHistogram::LowExponent(FieldType::kI64);
      duration.exponent = LogHistogram::LowExponent(FieldType::kF64);
      s.aliases[fmt::format("size.{}", q)] = size;
      s.aliases[fmt::format("duration.{}", q)] = duration;
    }
    s.defaults = {"ops", "bytes", "busy"};
    s.exactness =
        "exact: bytes, busy and ranks_busy spread each segment over the cells of its rank it overlaps, in proportion "
        "to the overlap (the cells sum to the bytes and seconds moved in the window); ops, percentiles and the "
        "*.started forms count each segment whole in the cell of its rank and its start time";
    return s;
  }
  const ArrayDesc* h =
      cat.Find(L::ArrayName(info.log, req.module == "MPI-IO" ? "HEATMAP.MPIIO" : "HEATMAP." + req.module));
  if (h == nullptr) {
    s.counters = info;
    s.name = fmt::format("{} counter records of log {} (no {} segments, no HEATMAP)", req.module, info.log, dxt);
    s.defaults = {"ops", "bytes", "busy"};
    s.exactness = fmt::format(
        "estimate: each {} record's reads and writes spread evenly over its F_READ/F_WRITE start to end timestamps "
        "(docs/signals.md, Windows from counters); shared records (rank -1) are the row of process -1",
        req.module);
    return s;
  }
  const Schema& hs = L::HeatmapSchema();
  s.arrays = {h};
  double width = 0;
  if (h->record_count() > 0) {
    std::vector<std::byte> first(hs.record_width());
    XTFQ_TRY(TnTree(reader.cache(), *h).Record(0, first));
    width = LoadLe<double>(first.data() + L::kHeatOffsetWidth);
  }
  std::vector<size_t> fields;
  if (req.op != "write") fields.push_back(AggregateIndex(hs, "read_bytes"));
  if (req.op != "read") fields.push_back(AggregateIndex(hs, "write_bytes"));
  s.name = fmt::format("{} of log {} (no {} segments)", h->name, info.log, dxt);
  s.aliases["bytes"] = Alias(GridMetric::Stat::kSum, fields, "bytes");
  s.aliases["bins"] = Alias(GridMetric::Stat::kCount, {}, "bins");
  s.defaults = {"bytes"};
  s.exactness = fmt::format(
      "exact per HEATMAP bin of {:g} s: each bin counts whole in the cell of its rank and its start time, so columns "
      "narrower than a bin show whole bins; the log has no operations, sizes or durations by time",
      width);
  return s;
}

// The metrics a grid of a Slurm sample array shows unless asked: its deltas (and the tasks' peak
// RSS, KiB), not the head's fields; nullopt for other arrays.
std::optional<std::vector<std::string>> SlurmDefaults(const std::string& array) {
  if (!SlurmLayout::Owns(array)) return std::nullopt;
  if (array.ends_with("/tasks")) return std::vector<std::string>{"read_bytes", "write_bytes", "cpu_time", "rss.max"};
  if (array.ends_with("/fs")) return std::vector<std::string>{"d_read_bytes", "d_write_bytes", "d_reads", "d_writes"};
  if (array.ends_with("/net")) return std::vector<std::string>{"in_bytes", "out_bytes", "in_packets", "out_packets"};
  return std::nullopt;
}

// Columns when the request leaves them to the grid (0): 100, but for an array of periodic
// samples (Slurm's, with an `interval` field) no narrower than their mean interval in whole
// seconds, so that a column is not mostly empty.
Result<uint32_t> AutoCols(StoreReader& reader, const Source& src, int64_t t1, int64_t t2) {
  constexpr uint32_t kDefault = 100;
  if (src.arrays.size() != 1 || src.frame.kind != TimeFrameKind::kJobStats) return kDefault;
  const ArrayDesc& a = *src.arrays.front();
  const auto& agg = a.schema.aggregates();
  const auto at =
      std::find_if(agg.begin(), agg.end(), [&](uint16_t f) { return a.schema.fields()[f].name == "interval"; });
  if (at == agg.end() || a.record_count() == 0) return kDefault;
  TnTree t(reader.cache(), a);
  XTFQ_ASSIGN_OR_RETURN(Summary s, t.Aggregate(0, t.size()));
  const FieldStats& f = s.fields[static_cast<size_t>(at - agg.begin())];
  // The mean over the rows with an interval (row 0 and repeats have none).
  const double with = f.i_max > 0 ? static_cast<double>(s.count) : 0;
  if (with == 0 || f.i_sum <= 0) return kDefault;
  const double mean = std::ceil(static_cast<double>(f.i_sum) / with);
  const double cols = std::ceil(static_cast<double>(t2 - t1) / std::max(1.0, mean));
  return static_cast<uint32_t>(std::clamp(cols, 1.0, static_cast<double>(kDefault)));
}

// The rows of a grid of a Slurm sample array named as Slurm names its series ("step 0 n1 task 3",
// "step batch n1"; a row of several series "series 4-7 (4)"); kUsage for a --processes id that
// is none of the array's series.
Status NameSlurmRows(StoreReader& reader, GridAnswer& ans) {
  XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<SlurmView> view, SlurmView::Open(reader));
  const std::string& array = ans.arrays.front();
  std::map<int64_t, const SlurmSeries*> mine;
  for (const SlurmSeries& s : view->series()) {
    if (s.duplicate() || SlurmView::ArrayKind(s.kind).empty()) continue;
    if (SlurmLayout::JobArrayName(s.job, SlurmView::ArrayKind(s.kind)) == array) mine.emplace(s.id, &s);
  }
  for (int64_t p : ans.request.processes) {
    if (mine.contains(p)) continue;
    std::vector<std::string> ids;
    for (const auto& [id, s] : mine) ids.push_back(std::to_string(id));
    return Error(ErrorCode::kUsage,
                 fmt::format("--processes: {} is not a series of {} (its series: {})", p, array, fmt::join(ids, ", ")));
  }
  ans.row_labels.clear();
  for (const auto& [lo, hi] : ans.rows) {
    const auto a = mine.lower_bound(lo), b = mine.lower_bound(hi);
    const auto n = std::distance(a, b);
    if (n == 1) {
      const SlurmSeries& s = *a->second;
      ans.row_labels.push_back(s.kind == SlurmLayout::kTasks
                                   ? fmt::format("step {} {} task {}", SlurmLayout::StepName(s.step), s.node, s.task)
                                   : fmt::format("step {} {}", SlurmLayout::StepName(s.step), s.node));
    } else {
      ans.row_labels.push_back(n == 0 ? fmt::format("series {}:{} (none)", lo, hi)
                                      : fmt::format("series {}:{} ({})", lo, hi, n));
    }
  }
  return Ok();
}

Result<Source> RawSource(StoreReader& reader, const GridAnswerRequest& req) {
  const Catalogue& cat = reader.catalogue();
  std::string name = req.array;
  if (name.empty()) {
    std::vector<std::string> own;
    for (const ArrayDesc& a : cat.arrays) {
      if (!a.per_process() && !GridLayout::IsGridArray(a.name)) own.push_back(a.name);
    }
    name = own.size() == 1 ? own[0] : "events";
    if (own.size() > 1 && cat.Find(name) == nullptr) {
      // No default: name what there is to draw (a Slurm store's sample arrays, first).
      std::vector<std::string> drawable;
      for (const std::string& n : own) {
        if (SlurmDefaults(n)) drawable.push_back(n);
      }
      if (drawable.empty()) drawable = own;
      const size_t shown = std::min<size_t>(drawable.size(), 6);
      return Error(ErrorCode::kUsage,
                   fmt::format("{} holds {} arrays and no 'events': give --array, one of {}{}", reader.store().name(),
                               own.size(), fmt::join(drawable.begin(), drawable.begin() + shown, ", "),
                               drawable.size() > shown ? fmt::format(" and {} more", drawable.size() - shown) : ""));
    }
  }
  XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* a, reader.Array(name));
  if (!a->schema.time_field()) {
    return Error(ErrorCode::kUsage, fmt::format("array '{}' has no time field: it has no grid", a->name));
  }
  Source s;
  s.arrays = {a};
  s.name = fmt::format("array {}", a->name);
  XTFQ_ASSIGN_OR_RETURN(s.frame, reader.Frame(*a));
  if (auto defaults = SlurmDefaults(a->name)) {
    // A Slurm sample array: its deltas and the tasks' peak memory, rows by series.
    s.defaults = *defaults, s.process_name = "series";
    if (a->name.ends_with("/fs") || a->name.ends_with("/net")) {
      s.notes.push_back(
          "node-wide series (every process on the node): a node that several steps sampled has a series for each, "
          "the same counters each time, and a row that holds several of them counts each; `xtfq query --slurm` and "
          "`xtfq job` count one series a node");
    }
    if (a->name.ends_with("/fs")) {
      s.notes.push_back("d_ fields are the deltas the import took from the Filesystem series' running totals");
    }
  } else {
    s.defaults = {"count"};
    for (uint16_t f : a->schema.aggregates()) s.defaults.push_back(a->schema.fields()[f].name);
  }
  s.exactness = "exact: each record counts in the cell of its process and its time";
  return s;
}

// A grid of a log without DXT or HEATMAP: every counter record's activity spread over its interval.
Result<GridAnswer> Estimate(StoreReader& reader, const DarshanLogInfo& info, const GridAnswerRequest& req,
                            GridAnswer ans, int64_t t1, int64_t t2, int64_t p1, int64_t p2) {
  std::vector<DarshanCounterActivity> acts;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  XTFQ_TRY(DarshanCounterWindow::ForEachActivity(reader, info, req.module, [&](const DarshanCounterActivity& x) {
    if ((req.op == "read" && x.op != 0) || (req.op == "write" && x.op != 1)) return;
    if (req.processes.empty() && (x.rank < p1 || x.rank >= p2)) return;
    lo = std::min(lo, x.rank), hi = std::max(hi, x.rank + 1);
    acts.push_back(x);
  }));
  for (const std::string& m : req.metrics.empty() ? std::vector<std::string>{"ops", "bytes", "busy"} : req.metrics) {
    if (m != "ops" && m != "bytes" && m != "busy") {
      return Error(ErrorCode::kUsage,
                   fmt::format("--metric {}: an estimate from counter records has ops, bytes and busy only", m));
    }
    GridMetric g;
    g.name = m, g.stat = GridMetric::Stat::kSum, g.unit = m == "busy" ? "s" : m;
    ans.metrics.push_back(g);
  }
  if (!req.processes.empty()) {
    for (int64_t p : req.processes) ans.rows.emplace_back(p, p + 1);
  } else {
    if (acts.empty()) lo = p1 == INT64_MIN ? 0 : p1, hi = p2 == INT64_MAX ? lo + 1 : p2;
    const __int128 span = static_cast<__int128>(hi) - lo;
    if (req.fit_rows && span < req.rows) {
      ans.notes.push_back(fmt::format("{} rows asked: the {} processes {} to {} with records get a row each", req.rows,
                                      hi - lo, lo, hi - 1));
      ans.rows = GridQuery::Rows(lo, hi, static_cast<uint32_t>(span));
    } else if (span < req.rows) {
      return Error(ErrorCode::kUsage, fmt::format("{} rows over processes {}:{}: at most {} (a row holds at least one "
                                                  "process)",
                                                  req.rows, lo, hi, hi - lo));
    } else {
      ans.rows = GridQuery::Rows(lo, hi, req.rows);
    }
  }
  ans.edges = GridQuery::Edges(t1, t2, req.cols);
  const size_t W = ans.cols(), n = ans.rows.size() * W;
  ans.count.assign(n, 0);
  std::vector<std::vector<double>> sums(ans.metrics.size(), std::vector<double>(n, 0.0));
  for (const DarshanCounterActivity& x : acts) {
    const double a = x.start * 1e9, b = x.end * 1e9;  // ns from the job's start
    auto first = std::upper_bound(ans.edges.begin(), ans.edges.end(), static_cast<int64_t>(std::floor(a)));
    size_t c = first == ans.edges.begin() ? 0 : static_cast<size_t>(first - ans.edges.begin()) - 1;
    for (size_t j = 0; j < ans.rows.size(); ++j) {
      if (x.rank < ans.rows[j].first || x.rank >= ans.rows[j].second) continue;
      for (size_t k = c; k < W && static_cast<double>(ans.edges[k]) <= std::max(a, b); ++k) {
        const double share = DarshanCounterWindow::Share(x.start, x.end, ans.edges[k], ans.edges[k + 1]);
        if (share <= 0) continue;
        ++ans.count[j * W + k];
        for (size_t m = 0; m < ans.metrics.size(); ++m) {
          const double v = ans.metrics[m].name == "ops" ? x.ops : ans.metrics[m].name == "bytes" ? x.bytes : x.busy;
          sums[m][j * W + k] += share * v;
        }
      }
    }
  }
  for (const auto& v : sums) ans.values.emplace_back(v.begin(), v.end());
  ans.estimate = true;
  ans.plan.records_read = acts.size();
  return ans;
}

// job_stats: one op's steps integrated by column, rows by target or group.
Result<GridAnswer> JobStats(StoreReader& reader, const GridAnswerRequest& req, GridAnswer ans) {
  XTFQ_ASSIGN_OR_RETURN(auto view, JobStatsView::Open(reader));
  JobStatsGridRequest q;
  q.op = req.op == "all" ? "write_bytes" : req.op;
  q.time = req.time, q.by = req.by, q.cols = req.cols, q.rows = req.rows, q.scan = req.scan, q.filter = req.filter;
  q.snap = req.snap;
  if (!req.ranks.empty() || !req.processes.empty()) {
    return Error(ErrorCode::kUsage,
                 "--ranks and --processes are for Darshan logs and arrays; job_stats rows are "
                 "targets or groups (--by)");
  }
  XTFQ_ASSIGN_OR_RETURN(JobStatsGrid g, JobStatsGridQuery::Run(*view, q));
  XTFQ_ASSIGN_OR_RETURN(auto span, view->Span());
  ans.frame = span ? TimeFrame::JobStats(span->first, span->second) : TimeFrame::JobStats(0, 0);
  ans.source = fmt::format("job_stats op {} by {}{}", g.op, g.by,
                           req.filter.jobs.empty() ? "" : fmt::format(", jobs {}", fmt::join(req.filter.jobs, " ")));
  ans.arrays = {JobStatsLayout::StepArrayName(g.op)};
  ans.process_name = g.by;
  const size_t W = g.edges.size() - 1;
  const std::string read =
      g.from_blocks ? "blocks (each target's steps of one collection, summed: they share [t0, t1))" : "steps";
  ans.exactness =
      "exact integrals of the rate steps over each column (a step's change spread evenly over its [t0, t1)), " +
      (g.cell_columns == 0
           ? "read from the window's " + read
           : fmt::format("{} of the {} columns read from the {} summaries' cells (whole {} s bins: the deltas of "
                         "the steps ending in them, with the parts of the steps across their edges){}",
                         g.cell_columns, W, g.by, g.bin_seconds,
                         g.steps_read > 0 ? ", the rest of the window (past the summaries' last bin, or off their "
                                            "bins) from its " +
                                                read
                                          : ""));
  ans.edges = g.edges;
  ans.snapped = g.snapped;
  if (g.snapped) {
    ans.notes.push_back(
        fmt::format("snapped onto the {} summaries' {} s bins: {} columns over [{}, {}) instead of {} over [{}, {})",
                    g.by, g.bin_seconds, W, g.edges.front(), g.edges.back(), g.asked_cols, g.asked_t1, g.asked_t2));
  }
  if (!g.unsnapped.empty()) ans.notes.push_back("--snap: not applied: " + g.unsnapped);
  for (size_t i = 0; i < g.rows.size(); ++i) {
    ans.rows.emplace_back(static_cast<int64_t>(i), static_cast<int64_t>(i) + 1);
    ans.row_labels.push_back(g.rows[i]);
  }
  for (const std::string& m : req.metrics.empty() ? std::vector<std::string>{"total", "rate"} : req.metrics) {
    if (m != "total" && m != "rate") {
      return Error(ErrorCode::kUsage, fmt::format("--metric {}: a job_stats grid has total and rate", m));
    }
    GridMetric metric;
    metric.name = m, metric.stat = GridMetric::Stat::kSum, metric.unit = m == "total" ? g.unit : g.unit + "/s";
    ans.metrics.push_back(metric);
    std::vector<std::optional<double>> v(g.cells.size());
    for (size_t i = 0; i < g.cells.size(); ++i) {
      if (!g.covered[i]) continue;  // no collection covers it: unknown, not 0
      const size_t c = i % W;
      const double width = static_cast<double>(g.edges[c + 1] - g.edges[c]);
      v[i] = m == "total" ? g.cells[i] : (width > 0 ? std::optional<double>(g.cells[i] / width) : std::nullopt);
    }
    ans.values.push_back(std::move(v));
  }
  ans.plan.records_read = g.steps_read;
  ans.plan.cells_read = g.cells_read;
  if (g.groups > g.rows.size()) {
    ans.notes.push_back(fmt::format("the {} largest of {} {} groups; the other {} hold {:.6g} {}", g.rows.size(),
                                    g.groups, g.by, g.groups - g.rows.size(), g.others, g.unit));
  }
  if (const auto bare = static_cast<size_t>(std::count(g.covered.begin(), g.covered.end(), 0)); bare > 0) {
    ans.notes.push_back(fmt::format(
        "{} of the {} cells lie before the first or after the last collection of their row's target{}: NA, no "
        "collection covers them",
        bare, g.covered.size(), g.by == "target" ? "" : "s"));
  }
  if (g.by == "target" && req.filter.jobs.empty() && g.groups <= g.rows.size()) {
    // Targets the store has that have no row, and why.
    const std::vector<JobStatsView::TargetCollections>& spans = g.collections;
    std::vector<std::string> once, never, quiet;
    for (uint32_t t = 0; t < view->targets().size(); ++t) {
      const std::string& name = view->targets()[t];
      if (std::find(g.rows.begin(), g.rows.end(), name) != g.rows.end()) continue;
      XTFQ_ASSIGN_OR_RETURN(bool has, view->HasSteps(g.op, t));
      (spans[t].count < 2 ? once : !has ? never : quiet).push_back(name);
    }
    const size_t n = view->targets().size();
    auto say = [&](const std::vector<std::string>& v, const std::string& why) {
      if (v.empty()) return;
      ans.notes.push_back(fmt::format("{} of the store's {} targets {}: {}", v.size(), n, why, fmt::join(v, ", ")));
    };
    say(once, "were collected once (a rate needs two collections; the first is a baseline)");
    say(never, fmt::format("never changed {} in any collection", g.op));
    say(quiet, fmt::format("have no {} change in the window", g.op));
  }
  return ans;
}

// What the phases of a grid of arrays share: the request (its columns chosen), the source, the
// grid asked of GridQuery, and the answer they fill.
struct Drawing {
  StoreReader& reader;
  GridAnswerRequest req;
  Source src;
  GridAnswer ans;
  GridRequest g;
};

// The schema of the source's arrays (DXT's when it has none).
const Schema& SchemaOf(const Source& src) { return src.arrays.empty() ? L::DxtSchema() : src.arrays.front()->schema; }

// Starts the answer: the request and what the source is.
void DescribeSource(Drawing& d) {
  GridAnswer& ans = d.ans;
  ans.request = d.req;
  ans.source = d.src.name;
  ans.frame = d.src.frame;
  ans.process_name = d.src.process_name;
  ans.exactness = d.src.exactness;
  for (const ArrayDesc* a : d.src.arrays) ans.arrays.push_back(a->name);
}

// The grid's window, from --time.
Status SetWindow(Drawing& d) {
  XTFQ_ASSIGN_OR_RETURN(TimeWindow w, TimeWindow::Parse(d.req.time, d.src.frame));
  // An open side is the run's edge: the frame's, widened to the arrays' first and last records (a
  // Darshan job's start and end are whole seconds; its segments may run past them).
  int64_t first = d.src.frame.first, last = d.src.frame.last;
  for (const ArrayDesc* a : d.src.arrays) {
    if (a->record_count() == 0 || !a->schema.time_field()) continue;
    TnTree t(d.reader.cache(), *a);
    std::vector<std::byte> r(a->schema.record_width());
    XTFQ_TRY(t.Record(0, r));
    first = std::min(first, a->schema.Time(r.data()));
    XTFQ_TRY(t.Record(a->record_count() - 1, r));
    last = std::max(last, a->schema.Time(r.data()));
  }
  d.g.t1 = w.open_lo() ? first : w.lo;
  d.g.t2 = w.open_hi() ? (last == INT64_MAX ? last : last + 1) : w.hi;
  if (d.g.t1 >= d.g.t2) {
    return Error(ErrorCode::kUsage,
                 fmt::format("--time {}: the grid's window is empty (a grid needs T1 < T2)", d.req.time));
  }
  return Ok();
}

// The grid's columns (AutoCols unless asked) and rows: a process each (each listed once), or over
// --ranks.
Status SetColumnsAndRows(Drawing& d) {
  GridAnswerRequest& req = d.req;
  GridRequest& g = d.g;
  if (req.cols == 0) {
    XTFQ_ASSIGN_OR_RETURN(req.cols, AutoCols(d.reader, d.src, g.t1, g.t2));
    d.ans.request.cols = req.cols;
  }
  g.cols = req.cols, g.rows = req.rows, g.processes = req.processes, g.snap = req.snap, g.scan = req.scan;
  g.fit_rows = req.fit_rows;
  std::vector<int64_t> seen = req.processes;
  std::sort(seen.begin(), seen.end());
  if (auto dup = std::adjacent_find(seen.begin(), seen.end()); dup != seen.end()) {
    return Error(ErrorCode::kUsage, fmt::format("--processes: {} is listed twice (one row per process)", *dup));
  }
  if (!req.ranks.empty()) {
    XTFQ_ASSIGN_OR_RETURN(ProcessWindow r, ProcessWindow::Parse(req.ranks));
    g.p1 = r.lo, g.p2 = r.hi;
  }
  return Ok();
}

// The metrics: as asked, else the source's defaults.
Status ChooseMetrics(Drawing& d) {
  const Schema& schema = SchemaOf(d.src);
  for (const std::string& m : d.req.metrics.empty() ? d.src.defaults : d.req.metrics) {
    XTFQ_ASSIGN_OR_RETURN(GridMetric metric, GridMetric::Parse(m, schema, d.src.aliases));
    d.ans.metrics.push_back(std::move(metric));
  }
  if (!d.src.arrays.empty() && SlurmLayout::Owns(d.src.arrays.front()->name)) {
    // Slurm sample arrays: each metric in its field's unit.
    for (GridMetric& m : d.ans.metrics) {
      if (m.unit.empty() && !m.aggregates.empty())
        m.unit = SlurmLayout::FieldUnit(schema.fields()[schema.aggregates()[m.aggregates.front()]].name);
    }
  }
  return Ok();
}

// The fields the grid keeps: those the metrics read, and the distributions of their percentiles
// (which the exactness then names).
void KeepFields(Drawing& d) {
  GridRequest& g = d.g;
  for (const GridMetric& m : d.ans.metrics) {
    for (size_t a : m.aggregates) {
      if (std::find(g.fields.begin(), g.fields.end(), a) == g.fields.end()) g.fields.push_back(a);
    }
  }
  std::vector<std::string> percentiles;
  for (const GridMetric& m : d.ans.metrics) {
    if (m.stat == GridMetric::Stat::kQuantile) percentiles.push_back(m.name);
  }
  if (!percentiles.empty()) {
    d.ans.exactness += fmt::format("; {} lie{} in [lower, value] of each cell, one log2 bin",
                                   fmt::join(percentiles, ", "), percentiles.size() == 1 ? "s" : "");
  }
  for (const GridMetric& m : d.ans.metrics) {
    if (m.stat != GridMetric::Stat::kQuantile) continue;
    for (size_t a : m.aggregates) {
      if (std::find(g.distributions.begin(), g.distributions.end(), a) == g.distributions.end()) {
        g.distributions.push_back(a);
      }
    }
  }
  const Schema& schema = SchemaOf(d.src);
  if (g.fields.empty() && !schema.aggregates().empty()) g.fields.push_back(0);  // count only: one field is kept anyway
}

// Arrays drawn together take their rows over the processes any of them has (readers and
// writers may be different ranks).
void WidenRows(Drawing& d) {
  if (d.src.arrays.size() <= 1 || !d.g.processes.empty()) return;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const ArrayDesc* a : d.src.arrays) {
    if (!a->process_index) continue;
    const auto procs = GridQuery::ProcessArrays(d.reader.catalogue(), *a, d.g.p1, d.g.p2);
    if (procs.empty()) continue;
    lo = std::min(lo, procs.front()->process);
    hi = std::max(hi, procs.back()->process == INT64_MAX ? INT64_MAX : procs.back()->process + 1);
  }
  if (lo < hi) d.g.p1 = lo, d.g.p2 = hi, d.g.exact_range = true;
}

// Arrays whose grids have different bins are drawn on the widest columns any of them snaps to,
// which the finer bins divide (powers of two). True when the grid was snapped so.
Result<bool> SnapTogether(Drawing& d) {
  GridRequest& g = d.g;
  if (!g.snap || d.src.arrays.size() <= 1) return false;
  std::optional<GridCells> widest;
  GridRequest shape = g;
  shape.shape_only = true;
  for (const ArrayDesc* a : d.src.arrays) {
    XTFQ_ASSIGN_OR_RETURN(GridCells s, GridQuery::Run(d.reader, *a, shape));
    if (!s.snapped) continue;
    if (!widest || s.edges[1] - s.edges[0] > widest->edges[1] - widest->edges[0]) widest = std::move(s);
  }
  if (!widest) return false;
  g.t1 = widest->edges.front(), g.t2 = widest->edges.back(), g.cols = widest->cols();
  g.processes.clear(), g.row_ranges = widest->rows, g.snap = false;
  return true;
}

// Each array's grid, merged into the first's. REQUIRES: the source has arrays.
Result<GridCells> MergeArrays(Drawing& d) {
  GridRequest& g = d.g;
  std::optional<GridCells> merged;
  for (const ArrayDesc* a : d.src.arrays) {
    XTFQ_ASSIGN_OR_RETURN(GridCells r, GridQuery::Run(d.reader, *a, g));
    if (!merged) {
      merged = std::move(r);
      // The next array is drawn on exactly this grid.
      g.t1 = merged->edges.front(), g.t2 = merged->edges.back(), g.cols = merged->cols();
      g.processes.clear(), g.row_ranges = merged->rows, g.snap = false;
      continue;
    }
    merged->Merge(r);
  }
  return std::move(*merged);
}

// Each metric's value in each cell of the grid (a percentile's also the lower end of its interval).
void ComputeValues(GridAnswer& ans, const GridCells& r) {
  for (const GridMetric& m : ans.metrics) {
    std::vector<size_t> pos, dpos;
    for (size_t a : m.aggregates) {
      pos.push_back(static_cast<size_t>(std::find(r.fields.begin(), r.fields.end(), a) - r.fields.begin()));
      if (m.stat == GridMetric::Stat::kQuantile) {
        dpos.push_back(static_cast<size_t>(std::find(r.distributions.begin(), r.distributions.end(), a) -
                                           r.distributions.begin()));
      }
    }
    std::vector<std::optional<double>> v(r.count.size()), lower;
    if (m.stat == GridMetric::Stat::kQuantile) lower.resize(r.count.size());
    std::vector<const FieldStats*> stats(pos.size());
    std::vector<const LogHistogram*> dists(dpos.size());
    for (size_t row = 0; row < r.rows.size(); ++row) {
      for (size_t col = 0; col < r.cols(); ++col) {
        for (size_t k = 0; k < pos.size(); ++k) stats[k] = &r.Stat(row, col, pos[k]);
        for (size_t k = 0; k < dpos.size(); ++k) dists[k] = &r.Dist(row, col, dpos[k]);
        const size_t i = r.cell(row, col);
        if (m.stat == GridMetric::Stat::kQuantile) {
          if (const auto b = m.Bound(stats, dists)) lower[i] = b->first, v[i] = b->second;
        } else {
          v[i] = m.Value(r.count[i], stats);
        }
      }
    }
    ans.values.push_back(std::move(v));
    ans.lower.push_back(std::move(lower));
  }
}

// Spread metrics: each cell gains the carry at its left edge and gives back the carry at its right
// (query/darshan/dxt_carry.h), so that a segment counts in every cell it overlaps; ranks_busy is
// then divided by the cell's seconds.
Status Spread(Drawing& d) {
  GridAnswer& ans = d.ans;
  const bool any = std::any_of(ans.metrics.begin(), ans.metrics.end(),
                               [](const GridMetric& m) { return m.spread != GridMetric::Spread::kNone; });
  if (!any) return Ok();
  XTFQ_ASSIGN_OR_RETURN(DxtCarry c, DxtCarry::Compute(d.reader, d.src.arrays, ans.edges, ans.rows));
  const size_t cols = ans.cols();
  for (size_t k = 0; k < ans.metrics.size(); ++k) {
    const GridMetric& m = ans.metrics[k];
    if (m.spread == GridMetric::Spread::kNone) continue;
    const bool bytes = m.spread == GridMetric::Spread::kBytes;
    for (size_t row = 0; row < ans.rows.size(); ++row) {
      for (size_t col = 0; col < cols; ++col) {
        auto carry = [&](size_t e) { return bytes ? c.Bytes(row, e) : c.Seconds(row, e); };
        std::optional<double>& v = ans.values[k][row * cols + col];
        double x = v.value_or(0.0) + carry(col) - carry(col + 1);
        if (m.per_second) x /= ans.Seconds(ans.edges[col + 1]) - ans.Seconds(ans.edges[col]);
        v = x;
      }
    }
  }
  ans.plan.records_read += c.records_read;
  ans.notes.push_back(fmt::format(
      "bytes and busy time spread over the cells each segment overlaps: {} segments cross column edges ({} read to "
      "find them)",
      c.crossing, c.records_read));
  return Ok();
}

// Draws the source's arrays on one grid and fills the answer from it: its edges, rows and counts,
// what it read, and the metrics' values.
Status DrawArrays(Drawing& d) {
  const int64_t asked_t1 = d.g.t1, asked_t2 = d.g.t2;
  const uint32_t asked_cols = d.g.cols;
  const uint64_t before = d.reader.cache().stats().pages_read;
  if (d.src.arrays.empty()) {
    return Error(ErrorCode::kNotFound, fmt::format("{} has no {} segments", d.src.name, d.req.op));
  }
  WidenRows(d);
  XTFQ_ASSIGN_OR_RETURN(const bool snapped, SnapTogether(d));
  XTFQ_ASSIGN_OR_RETURN(GridCells r, MergeArrays(d));
  GridAnswer& ans = d.ans;
  ans.pages_read = d.reader.cache().stats().pages_read - before;
  r.snapped |= snapped;
  ans.edges = r.edges, ans.rows = r.rows, ans.count = r.count, ans.snapped = r.snapped, ans.plan = r.plan;
  ans.notes.insert(ans.notes.begin(), r.notes.begin(), r.notes.end());
  if (r.snapped) {
    ans.notes.push_back(
        fmt::format("snapped onto the grid's bins: {} columns over [{}, {}) instead of {} over [{}, {})", r.cols(),
                    r.edges.front(), r.edges.back(), asked_cols, asked_t1, asked_t2));
  }
  ComputeValues(ans, r);
  return Spread(d);
}

}  // namespace

double GridAnswer::Seconds(int64_t t) const {
  if (frame.kind == TimeFrameKind::kDarshan || (frame.kind == TimeFrameKind::kRaw && frame.raw_ns)) {
    return static_cast<double>(t) / 1e9;
  }
  return static_cast<double>(t);
}

Result<GridAnswer> GridAnswerQuery::Run(StoreReader& reader, const GridAnswerRequest& request) {
  // Slurm profiles have no grid of their own: their sample arrays are drawn as raw arrays (--array).
  XTFQ_ASSIGN_OR_RETURN(const StoreKind kind, ChooseKind(StoreContents::Of(reader.catalogue()),
                                                         KindRequest{!request.array.empty()}, reader.store().name()));
  const bool darshan = kind == StoreKind::kDarshan;
  if (kind == StoreKind::kJobStats) {
    GridAnswerRequest req = request;
    if (req.cols == 0) req.cols = 100;
    GridAnswer ans;
    ans.request = req;
    return JobStats(reader, req, std::move(ans));
  }
  GridAnswerRequest req = request;
  if (req.rows == 0) req.rows = 1;
  XTFQ_ASSIGN_OR_RETURN(Source src, darshan ? DarshanSource(reader, req) : RawSource(reader, req));
  Drawing d{reader, std::move(req), std::move(src)};
  DescribeSource(d);
  XTFQ_TRY(SetWindow(d));
  XTFQ_TRY(SetColumnsAndRows(d));
  if (d.src.counters) d.ans.notes = d.src.notes;
  if (d.src.counters) return Estimate(reader, *d.src.counters, d.req, std::move(d.ans), d.g.t1, d.g.t2, d.g.p1, d.g.p2);
  XTFQ_TRY(ChooseMetrics(d));
  d.ans.notes = d.src.notes;
  KeepFields(d);
  XTFQ_TRY(DrawArrays(d));
  if (d.src.arrays.size() == 1 && SlurmLayout::Owns(d.src.arrays.front()->name)) XTFQ_TRY(NameSlurmRows(reader, d.ans));
  return std::move(d.ans);
}

}  // namespace xtfq
