#include "query/slurm/slurm_window_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "index/tn_tree.h"
#include "layouts/slurm_layout.h"
#include "query/core/primitives.h"
#include "query/core/time_window.h"
#include "store/endian.h"

namespace xtfq {

namespace {

using L = SlurmLayout;

// Where a kind's metrics live in its records: the delta fields, in Metrics() order, and their types.
struct KindFields {
  std::vector<std::string_view> fields;
  std::vector<uint32_t> offsets;
  std::vector<bool> is_float;
};

const KindFields& FieldsOf(uint8_t kind) {
  static const KindFields tasks{{"read_bytes", "write_bytes", "cpu_time"},
                                {L::kTaReadBytes, L::kTaWriteBytes, L::kTaCpuTime},
                                {false, false, true}};
  static const KindFields fs{{"d_read_bytes", "d_write_bytes", "d_reads", "d_writes"},
                             {L::kFsDReadBytes, L::kFsDWriteBytes, L::kFsDReads, L::kFsDWrites},
                             {false, false, false, false}};
  static const KindFields net{{"in_bytes", "out_bytes", "in_packets", "out_packets"},
                              {L::kNetInBytes, L::kNetOutBytes, L::kNetInPackets, L::kNetOutPackets},
                              {false, false, false, false}};
  return kind == L::kTasks ? tasks : kind == L::kNetwork ? net : fs;
}

size_t AggregateIndex(const Schema& s, std::string_view field) {
  const auto& a = s.aggregates();
  for (size_t i = 0; i < a.size(); ++i) {
    if (s.fields()[a[i]].name == field) return i;
  }
  return SIZE_MAX;
}

double ValueAt(const std::byte* p, uint32_t offset, bool is_float) {
  return is_float ? LoadLe<double>(p + offset) : static_cast<double>(LoadLe<uint64_t>(p + offset));
}

// The share of a row's deltas that falls in [t1, t2): of [t - interval, t), or the point t.
double Share(int64_t t, uint32_t interval, int64_t t1, int64_t t2) {
  if (interval == 0) return t >= t1 && t < t2 ? 1.0 : 0.0;
  const int64_t a = t - static_cast<int64_t>(interval);
  const int64_t lo = std::max(a, t1), hi = std::min(t, t2);
  return hi > lo ? static_cast<double>(hi - lo) / static_cast<double>(interval) : 0.0;
}

std::string KeyValue(SlurmKey k, const SlurmSeries& s) {
  switch (k) {
    case SlurmKey::kJob:
      return std::to_string(s.job);
    case SlurmKey::kStep:
      return L::StepName(s.step);
    case SlurmKey::kNode:
      return s.node;
    case SlurmKey::kTask:
      return s.kind == L::kTasks ? std::to_string(s.task) : "node";
  }
  return "";
}

// Why a filter selects no sample: what the store holds, per filter that matched nothing.
std::string NothingSelected(const SlurmView& view, const SlurmFilter& f) {
  std::set<std::string> jobs, steps, nodes;
  for (const SlurmSeries& s : view.series()) {
    jobs.insert(std::to_string(s.job));
    if (f.jobs.empty() || std::find(f.jobs.begin(), f.jobs.end(), s.job) != f.jobs.end())
      steps.insert(L::StepName(s.step)), nodes.insert(s.node);
  }
  if (steps.empty()) {
    return fmt::format("no Slurm sample of the series selected: the store holds jobs {}, not the job given",
                       fmt::join(jobs, ", "));
  }
  return fmt::format(
      "no Slurm sample of the series selected (the store holds jobs {}; {} steps {} on nodes {}; see xtfq info)",
      fmt::join(jobs, ", "), f.jobs.empty() ? "they have" : "the jobs given have", fmt::join(steps, ", "),
      fmt::join(nodes, ", "));
}

// What the phases of Compute share: the window, the series summed and the group of each, and the
// answer being built.
struct Summing {
  SlurmView& view;
  int64_t t1, t2;
  bool prorate;
  std::vector<char> use;      // by series id: summed
  std::vector<int> group_of;  // by series id: its group in out.groups, or -1
  SlurmWindow out;
};

// Node-wide series: without `step` in the grouping, one per (job, node, kind), the one with
// the most rows (then the lowest id).
void KeepOneNodeWideSeries(Summing& w) {
  const std::vector<SlurmSeries>& all = w.view.series();
  std::map<std::tuple<int64_t, std::string, uint8_t>, uint32_t> keep;
  for (const SlurmSeries& s : all) {
    if (!w.use[s.id] || !s.node_wide()) continue;
    auto [it, fresh] = keep.try_emplace({s.job, s.node, s.kind}, s.id);
    if (!fresh && s.rows > all[it->second].rows) it->second = s.id;
  }
  std::map<std::tuple<int64_t, std::string, uint8_t>, std::vector<std::string>> left;
  for (const SlurmSeries& s : all) {
    if (!w.use[s.id] || !s.node_wide()) continue;
    const auto key = std::make_tuple(s.job, s.node, s.kind);
    if (keep[key] == s.id) continue;
    w.use[s.id] = 0;
    left[key].push_back(L::StepName(s.step));
  }
  for (const auto& [key, steps] : left) {
    const auto& [job, node, kind] = key;
    w.out.notes.push_back(
        fmt::format("job {} node {}: {} series are node-wide (every process on the node, each step's read at its "
                    "own times): the job sums one per node, step {}'s (the most samples); step{} {} left out "
                    "(group --by step to see each)",
                    job, node, L::KindName(kind), L::StepName(all[keep[key]].step), steps.size() == 1 ? "" : "s",
                    fmt::join(steps, ", ")));
  }
}

// Groups, by kind then keys.
void MakeGroups(Summing& w, const std::vector<SlurmKey>& by) {
  const std::vector<SlurmSeries>& all = w.view.series();
  std::map<std::pair<uint8_t, std::vector<std::string>>, size_t> index;
  w.group_of.assign(all.size(), -1);
  for (const SlurmSeries& s : all) {
    if (!w.use[s.id]) continue;
    std::vector<std::string> keys;
    for (SlurmKey k : by) keys.push_back(KeyValue(k, s));
    auto [it, fresh] = index.try_emplace({s.kind, keys}, 0);
    if (fresh) {
      SlurmGroup g;
      g.kind = s.kind, g.keys = keys, g.totals.assign(SlurmWindowQuery::Metrics(s.kind).size(), 0.0);
      w.out.groups.push_back(std::move(g));
      it->second = w.out.groups.size() - 1;
    }
    w.group_of[s.id] = static_cast<int>(it->second);
    ++w.out.groups[it->second].series;
  }
}

// Adds `share` of a row's deltas to its series' group; `point`: the row's t is in the window.
void AddRow(Summing& w, uint8_t kind, const std::byte* p, double share, bool point) {
  const KindFields& kf = FieldsOf(kind);
  const int g = w.group_of[LoadLe<uint32_t>(p + L::kSeriesId)];
  if (g < 0) return;
  SlurmGroup& grp = w.out.groups[static_cast<size_t>(g)];
  for (size_t m = 0; m < kf.offsets.size(); ++m) grp.totals[m] += share * ValueAt(p, kf.offsets[m], kf.is_float[m]);
  if (point) {
    ++grp.rows;
    if (kind == L::kTasks) {
      grp.rss_max = std::max(grp.rss_max, LoadLe<uint64_t>(p + L::kTaRss));
      grp.vmsize_max = std::max(grp.vmsize_max, LoadLe<uint64_t>(p + L::kTaVmSize));
    }
  }
}

// Every row, each prorated on its own.
Status ScanRows(Summing& w, TnTree& tree, uint8_t kind) {
  return tree.ForEach(0, tree.size(), [&](const std::byte* p) -> Result<bool> {
    const int64_t t = LoadLe<int64_t>(p + L::kT);
    const double share =
        w.prorate ? Share(t, LoadLe<uint32_t>(p + L::kInterval), w.t1, w.t2) : (t >= w.t1 && t < w.t2 ? 1.0 : 0.0);
    ++w.out.edge_rows;
    AddRow(w, kind, p, share, t >= w.t1 && t < w.t2);
    return true;
  });
}

// Runs of consecutive series (in this array) of one group: one aggregate each.
Status AggregateRuns(Summing& w, const ArrayDesc& a, uint8_t kind, const std::vector<uint32_t>& ids) {
  const KindFields& kf = FieldsOf(kind);
  const Schema& schema = a.schema;
  Primitives prim(w.view.reader().cache(), a, &w.view.reader().store().catalogue());
  std::vector<size_t> agg(kf.fields.size());
  for (size_t m = 0; m < agg.size(); ++m) agg[m] = AggregateIndex(schema, kf.fields[m]);
  const size_t rss = AggregateIndex(schema, "rss"), vmsize = AggregateIndex(schema, "vmsize");
  for (size_t i = 0; i < ids.size();) {
    const int g = w.group_of[ids[i]];
    size_t j = i + 1;
    while (j < ids.size() && w.group_of[ids[j]] == g) ++j;
    if (g >= 0) {
      const bool whole = i == 0 && j == ids.size();
      const int64_t p1 = whole ? INT64_MIN : ids[i], p2 = whole ? INT64_MAX : int64_t{ids[j - 1]} + 1;
      XTFQ_ASSIGN_OR_RETURN(Summary s, prim.Aggregate(w.t1, w.t2, p1, p2));
      SlurmGroup& grp = w.out.groups[static_cast<size_t>(g)];
      grp.rows += s.count;
      if (s.count > 0) {
        for (size_t m = 0; m < agg.size(); ++m) grp.totals[m] += s.fields[agg[m]].Sum();
        if (kind == L::kTasks) {
          grp.rss_max = std::max<uint64_t>(grp.rss_max, static_cast<uint64_t>(s.fields[rss].i_max));
          grp.vmsize_max = std::max<uint64_t>(grp.vmsize_max, static_cast<uint64_t>(s.fields[vmsize].i_max));
        }
      }
    }
    i = j;
  }
  return Ok();
}

// The edges: rows after t1 whose interval began before it give back the part before t1; rows
// at or after t2 whose interval began before t2 add the part inside.
Status ProrateEdges(Summing& w, TnTree& tree, const Schema& schema, uint8_t kind) {
  const int64_t t1 = w.t1, t2 = w.t2;
  XTFQ_ASSIGN_OR_RETURN(Summary whole, tree.Aggregate(0, tree.size()));
  const int64_t reach = whole.fields[AggregateIndex(schema, "interval")].i_max;
  if (reach <= 0) return Ok();
  auto edge = [&](int64_t from, int64_t to, bool inside) -> Status {
    XTFQ_ASSIGN_OR_RETURN(uint64_t lo, tree.LowerBound(from));
    XTFQ_ASSIGN_OR_RETURN(uint64_t hi, tree.LowerBound(to));
    return tree.ForEach(lo, hi, [&](const std::byte* p) -> Result<bool> {
      ++w.out.edge_rows;
      const int64_t t = LoadLe<int64_t>(p + L::kT);
      const uint32_t interval = LoadLe<uint32_t>(p + L::kInterval);
      // Inside: counted whole by the aggregate, keep its share; after: add its share.
      const double share = Share(t, interval, t1, t2) - (inside ? 1.0 : 0.0);
      if (share != 0) AddRow(w, kind, p, share, false);
      return true;
    });
  };
  if (t1 != INT64_MIN && t1 < t2) XTFQ_TRY(edge(t1, std::min(t2, t1 + reach), true));
  if (t2 != INT64_MAX && t2 > t1) XTFQ_TRY(edge(t2, t2 + reach, false));
  return Ok();
}

// Sums the rows of one (job, kind) array, `ids` its series, into their groups.
Status SumArray(Summing& w, int64_t job, uint8_t kind, const std::vector<uint32_t>& ids, bool scan) {
  if (std::none_of(ids.begin(), ids.end(), [&](uint32_t id) { return w.use[id] != 0; })) return Ok();
  XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* a, w.view.JobArray(job, kind));
  if (a == nullptr || a->record_count() == 0) return Ok();
  TnTree tree(w.view.reader().cache(), *a);
  if (scan) return ScanRows(w, tree, kind);
  XTFQ_TRY(AggregateRuns(w, *a, kind, ids));
  if (!w.prorate) return Ok();
  return ProrateEdges(w, tree, a->schema, kind);
}

// Each (job, kind) array that holds a group's series.
Status SumArrays(Summing& w, bool scan) {
  std::map<std::pair<int64_t, uint8_t>, std::vector<uint32_t>> arrays;  // its series, by id
  for (const SlurmSeries& s : w.view.series()) {
    if (!SlurmView::ArrayKind(s.kind).empty() && !s.duplicate()) arrays[{s.job, s.kind}].push_back(s.id);
  }
  for (const auto& [jk, ids] : arrays) XTFQ_TRY(SumArray(w, jk.first, jk.second, ids, scan));
  return Ok();
}

// What the user should know of the series summed.
void AddSeriesNotes(Summing& w) {
  bool tasks = false, influx = false;
  for (const SlurmSeries& s : w.view.series()) {
    if (!w.use[s.id]) continue;
    tasks = tasks || s.kind == L::kTasks;
    influx = influx || s.source == L::kInflux;
  }
  if (tasks) {
    w.out.notes.push_back(
        "task I/O and CPU are a lower bound: a process that exits between two samples takes its last interval's "
        "counts with it (the import counts the rows where one did)");
  }
  if (influx) {
    w.out.notes.push_back(
        "influxdb series: the plugin printed MB values with %.2f, so their bytes are within 5,243 B of the truth and "
        "Network packets (MB x 2^16) under about 650 a sample read as 0");
  }
}

}  // namespace

const std::vector<std::string_view>& SlurmWindowQuery::Metrics(uint8_t kind) {
  static const std::vector<std::string_view> tasks{"read_bytes", "write_bytes", "cpu_s"};
  static const std::vector<std::string_view> fs{"read_bytes", "write_bytes", "reads", "writes"};
  static const std::vector<std::string_view> net{"in_bytes", "out_bytes", "in_packets", "out_packets"};
  return kind == L::kTasks ? tasks : kind == L::kNetwork ? net : fs;
}

std::string_view SlurmWindowQuery::KeyName(SlurmKey k) {
  static constexpr std::string_view kNames[] = {"job", "step", "node", "task"};
  return kNames[static_cast<int>(k)];
}

Result<std::vector<SlurmKey>> SlurmWindowQuery::ParseKeys(const std::vector<std::string>& by) {
  std::vector<SlurmKey> out;
  for (const std::string& name : by) {
    std::optional<SlurmKey> k;
    for (SlurmKey c : {SlurmKey::kJob, SlurmKey::kStep, SlurmKey::kNode, SlurmKey::kTask}) {
      if (KeyName(c) == name) k = c;
    }
    if (!k) return Error(ErrorCode::kUsage, fmt::format("--by '{}': give job, step, node or task", name));
    if (std::find(out.begin(), out.end(), *k) == out.end()) out.push_back(*k);
  }
  return out;
}

Result<SlurmWindow> SlurmWindowQuery::Run(SlurmView& view, const SlurmWindowRequest& r) {
  XTFQ_ASSIGN_OR_RETURN(std::vector<SlurmKey> by, ParseKeys(r.by));
  XTFQ_ASSIGN_OR_RETURN(std::vector<char> sel, view.Select(r.filter));
  XTFQ_ASSIGN_OR_RETURN(auto span, view.Span(sel));
  // The epoch frame of the selected series: from the first sample's start to the last sample.
  // (100% takes the last sample in, as an open end does.)
  const TimeFrame frame = span ? TimeFrame::JobStats(span->first, span->second) : TimeFrame::JobStats(0, 0);
  XTFQ_ASSIGN_OR_RETURN(TimeWindow w, TimeWindow::Parse(r.time, frame));
  if (!span && (w.open_lo() || w.open_hi())) return Error(ErrorCode::kNotFound, NothingSelected(view, r.filter));
  const int64_t t1 = w.open_lo() ? span->first : w.lo, t2 = w.open_hi() ? span->second + 1 : w.hi;
  if (t1 > t2)
    return Error(ErrorCode::kUsage,
                 fmt::format("--time '{}': the window [{}, {}) ends before it starts", r.time, t1, t2));
  XTFQ_ASSIGN_OR_RETURN(SlurmWindow out, Compute(view, t1, t2, sel, by, r.prorate, r.scan));
  if (span) {
    // The samples cover [first sample's start, last sample's time]: seconds of the window outside
    // them have no data.
    const int64_t a = span->first, b = span->second + 1;
    const int64_t covered = std::max<int64_t>(0, std::min(t2, b) - std::max(t1, a));
    if (covered == 0 && t2 > t1) {
      out.warnings.push_back(fmt::format(
          "the window [{}, {}) lies outside the selected series' samples ({} to {}): its zeros are no data, not no "
          "I/O",
          t1, t2, a, b));
    } else if (covered < t2 - t1) {
      out.warnings.push_back(fmt::format(
          "{} of the window's {} seconds lie outside the selected series' samples ({} to {}): no data there; "
          "--time @{}:@{} is the part they cover",
          t2 - t1 - covered, t2 - t1, a, b, std::max(t1, a), std::min(t2, b)));
    }
  }
  return out;
}

Result<SlurmWindow> SlurmWindowQuery::Compute(SlurmView& view, int64_t t1, int64_t t2,
                                              const std::vector<char>& selected, const std::vector<SlurmKey>& by,
                                              bool prorate, bool scan) {
  Summing w{view, t1, t2, prorate, std::vector<char>(selected.begin(), selected.end()), {}, {}};
  w.out.t1 = t1, w.out.t2 = t2, w.out.prorate = prorate;
  w.use.resize(view.series().size(), 0);
  if (std::find(by.begin(), by.end(), SlurmKey::kStep) == by.end()) KeepOneNodeWideSeries(w);
  MakeGroups(w, by);
  XTFQ_TRY(SumArrays(w, scan));
  AddSeriesNotes(w);
  std::sort(w.out.groups.begin(), w.out.groups.end(), [](const SlurmGroup& a, const SlurmGroup& b) {
    return std::tie(a.kind, a.keys) < std::tie(b.kind, b.keys);
  });
  return std::move(w.out);
}

}  // namespace xtfq
