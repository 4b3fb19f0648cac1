#include "query/jobstats/jobstats_window_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "index/tn_tree.h"
#include "query/core/primitives.h"
#include "query/core/time_window.h"
#include "query/jobstats/jobstats_summary.h"
#include "query/jobstats/rate_peak.h"
#include "store/endian.h"

namespace xtfq {

namespace {
using L = JobStatsLayout;

// The ops that are columns: those asked for (or all), in store order. An op the store lacks, or
// one without rate steps, is an error.
Result<std::vector<std::string>> SelectOps(JobStatsView& view, const JobStatsFilter& filter) {
  for (const std::string& op : filter.ops) {
    if (std::find(view.ops().begin(), view.ops().end(), op) == view.ops().end()) {
      return Error(ErrorCode::kNotFound, fmt::format("{}: no op '{}' in the store ({})", view.reader().store().name(),
                                                     op, fmt::join(view.ops(), " ")));
    }
  }
  const Catalogue& cat = view.reader().store().catalogue();
  // Ops past the importer's limit on other names (JobStatsLayout::kMaxOtherOpArrays) have counters
  // but no rate steps: they are no column of zeros, and asking for one says why.
  size_t other_step_ops = 0;
  for (const ArrayDesc& a : cat.arrays) {
    if (!a.per_process() && a.name.starts_with(L::kStepArrayPrefix) &&
        !L::IsLustreOp(std::string_view(a.name).substr(L::kStepArrayPrefix.size())))
      ++other_step_ops;
  }
  auto stepless = [&](const std::string& op) {
    return !L::IsLustreOp(op) && other_step_ops >= L::kMaxOtherOpArrays && cat.Find(L::StepArrayName(op)) == nullptr;
  };
  for (const std::string& op : filter.ops) {
    if (stepless(op)) {
      return Error(
          ErrorCode::kNotFound,
          fmt::format("{}: op '{}' has no rate steps: the store keeps them for Lustre's own ops and at most {} "
                      "other op names, which it has (its counters are in {})",
                      view.reader().store().name(), op, L::kMaxOtherOpArrays, L::kCounters));
    }
  }
  std::vector<std::string> ops;
  for (const std::string& op : view.ops()) {
    // Every op asked for is a column, also one without any rate step yet (zeros).
    if (stepless(op)) continue;
    if (filter.ops.empty() || std::find(filter.ops.begin(), filter.ops.end(), op) != filter.ops.end())
      ops.push_back(op);
  }
  return ops;
}

}  // namespace

// The state of one ComputeWith, shared by its phases.
struct JobStatsWindowQuery::Summing {
  JobStatsView& view;
  const std::vector<JobStatsKey>& by;
  int64_t t1, t2;
  bool per_series, scan;
  std::vector<char> series;
  std::vector<uint32_t> targets;
  JobStatsWindow out;
  std::unordered_map<std::string, size_t> group_at;  // by key: the group's index in out.groups
  // The rate steps each group sums, per op (the group's peak is taken at the end).
  std::map<std::pair<std::string, std::string>, RatePeak> peaks;  // (group key, op)

  // The group of a key, created empty the first time.
  JobStatsGroup& Group(const std::string& key) {
    auto [it, fresh] = group_at.emplace(key, out.groups.size());
    if (fresh) {
      JobStatsGroup g;
      size_t start = 0;
      for (size_t i = 0; i < by.size(); ++i) {
        const size_t end = key.find('\x1f', start);
        g.keys.push_back(key.substr(start, end == std::string::npos ? std::string::npos : end - start));
        start = end == std::string::npos ? key.size() : end + 1;
      }
      out.groups.push_back(std::move(g));
    }
    return out.groups[it->second];
  }
};

void JobStatsWindowQuery::AddQuietGroups(const JobStatsView& view, const std::vector<JobStatsKey>& by,
                                         const std::vector<char>& series, const std::vector<uint32_t>& targets,
                                         const std::vector<std::string>& ops,
                                         const std::function<JobStatsGroup&(const std::string&)>& group) {
  const bool op_key = std::find(by.begin(), by.end(), JobStatsKey::kOp) != by.end();
  const std::vector<std::string> key_ops = op_key ? ops : std::vector<std::string>{""};
  bool series_keys = false;
  for (JobStatsKey k : by) series_keys |= k != JobStatsKey::kTarget && k != JobStatsKey::kOp;
  if (!series_keys) {
    for (uint32_t g : targets) {
      for (const std::string& op : key_ops) group(view.GroupKey(by, UINT32_MAX, g, op));
    }
    return;
  }
  std::vector<char> on_target(view.targets().size(), 0);
  for (uint32_t g : targets) on_target[g] = 1;
  for (uint32_t s = 0; s < view.series().size(); ++s) {
    const uint32_t g = view.series()[s].target;
    if ((!series.empty() && !series[s]) || g >= on_target.size() || !on_target[g]) continue;
    for (const std::string& op : key_ops) group(view.GroupKey(by, s, g, op));
  }
}

Status JobStatsWindowQuery::AddBlocks(TnTree& t, uint64_t lo, int64_t t2, RatePeak& peak) {
  std::vector<std::byte> rec(t.array().schema.record_width());
  for (uint64_t at = lo; at < t.size();) {
    XTFQ_TRY(t.Record(at, rec));
    const int64_t b0 = I64At(rec.data(), L::kStepT0), b1 = I64At(rec.data(), L::kStepT1);
    if (b0 >= t2) break;
    XTFQ_ASSIGN_OR_RETURN(uint64_t end, t.LowerBound(b1 + 1));
    XTFQ_ASSIGN_OR_RETURN(Summary block, t.Aggregate(at, end));
    peak.Add(b0, b1, static_cast<double>(static_cast<uint64_t>(block.fields[0].i_sum)) / static_cast<double>(b1 - b0));
    at = end;
  }
  return Ok();
}

Result<JobStatsWindow> JobStatsWindowQuery::Compute(JobStatsView& view, int64_t t1, int64_t t2,
                                                    const JobStatsFilter& filter, const std::vector<JobStatsKey>& by,
                                                    bool scan, bool summaries) {
  std::optional<JobStatsSummary> summary;
  if (summaries) {
    XTFQ_ASSIGN_OR_RETURN(summary, JobStatsSummary::ForRows(view, by, filter, scan));
  }
  return ComputeWith(view, t1, t2, filter, by, scan, summary);
}

Result<JobStatsWindow> JobStatsWindowQuery::ComputeWith(JobStatsView& view, int64_t t1, int64_t t2,
                                                        const JobStatsFilter& filter,
                                                        const std::vector<JobStatsKey>& by, bool scan,
                                                        const std::optional<JobStatsSummary>& summary) {
  if (t1 > t2) return Error(ErrorCode::kUsage, fmt::format("the window {}:{} ends before it starts", t1, t2));
  Summing w{view, by, t1, t2, false, scan, {}, {}, {}, {}, {}};
  w.out.t1 = t1, w.out.t2 = t2;
  XTFQ_ASSIGN_OR_RETURN(w.series, view.SelectSeries(filter));
  XTFQ_ASSIGN_OR_RETURN(w.targets, view.SelectTargets(filter, w.series));
  XTFQ_ASSIGN_OR_RETURN(w.out.ops, SelectOps(view, filter));
  w.per_series = !w.series.empty();
  for (JobStatsKey k : by) w.per_series |= k != JobStatsKey::kTarget && k != JobStatsKey::kOp;
  w.out.indexed = !w.per_series && !scan;
  if (t1 == t2) {  // the empty window: nothing changes in it; every group is listed with zeros
    return ListGroups(w);
  }
  if (summary) {
    XTFQ_TRY(AddSummaryParts(w, *summary));
    return ListGroups(w);
  }
  for (const std::string& op : w.out.ops) XTFQ_TRY(AddOp(w, op));
  for (const auto& [key_op, peak] : w.peaks) w.Group(key_op.first).ops[key_op.second].rate_max = peak.Max(t1, t2);
  return ListGroups(w);
}

// Grouped by one summarised key, with no filter but ops: the summaries' cells for the whole bins
// of the window, the steps for its ends (query/jobstats/jobstats_summary.h).
Status JobStatsWindowQuery::AddSummaryParts(Summing& w, const JobStatsSummary& summary) {
  JobStatsView& view = w.view;
  w.out.summarised = true, w.out.summarised_to = summary.summarised_to();
  std::vector<char> wanted(view.ops().size(), 0);
  for (const std::string& op : w.out.ops) {
    wanted[static_cast<size_t>(std::find(view.ops().begin(), view.ops().end(), op) - view.ops().begin())] = 1;
  }
  XTFQ_ASSIGN_OR_RETURN(auto parts, summary.Window(w.t1, w.t2, wanted, w.out.summary_cells, w.out.steps_read));
  for (const auto& [k, p] : parts) {
    const std::string& op = view.ops()[static_cast<uint32_t>(k)];
    JobStatsOpTotals& r = w.Group(view.GroupKey(w.by, static_cast<uint32_t>(k >> 32), 0, op)).ops[op];
    r.total += p.total, r.rate_max = std::max(r.rate_max, p.peak);
    r.series_rate_max = std::max(r.series_rate_max, p.series_max), r.steps += p.steps;
  }
  return Ok();
}

Status JobStatsWindowQuery::AddOp(Summing& w, const std::string& op) {
  const ArrayDesc* steps_array = w.view.reader().store().catalogue().Find(L::StepArrayName(op));
  if (steps_array == nullptr) return Ok();  // no rate step of this op in the store
  const ArrayDesc& steps = *steps_array;
  const JobStatsView::TargetIndex index = w.view.IndexOf(steps);
  if (w.per_series || w.scan || index.array == nullptr) {
    XTFQ_TRY(AddSteps(w, steps, op));
    if (index.array == nullptr && !w.scan) w.out.indexed = false;
    return Ok();
  }
  return AddTargetBlocks(w, index, op);
}

// Each step of the window, read one by one.
Status JobStatsWindowQuery::AddSteps(Summing& w, const ArrayDesc& steps, const std::string& op) {
  const int64_t t1 = w.t1, t2 = w.t2;
  return w.view.Steps(steps, t1, t2, w.targets, w.series, w.scan, w.out.steps_read, [&](const std::byte* r) {
    const uint32_t s = U32At(r, L::kStepSeries), g = U32At(r, L::kStepTarget);
    const std::string key = w.view.GroupKey(w.by, s, g, op);
    JobStatsOpTotals& o = w.Group(key).ops[op];
    o.total += JobStatsView::Part(U64At(r, L::kStepDelta), I64At(r, L::kStepT0), I64At(r, L::kStepT1), t1, t2);
    const double rate = L::StepRate(r);
    o.series_rate_max = std::max(o.series_rate_max, rate);
    ++o.steps;
    w.peaks[{key, op}].Add(I64At(r, L::kStepT0), I64At(r, L::kStepT1), rate);
  });
}

// From the TN tree of each target's blocks (in the legacy layout its steps, a block being
// the run of one t1): the blocks ending in (t1, t2] count whole except the first, which may
// start before t1; the block ending first after t2 counts in part when it starts before t2.
// Steps of one block share t0 and t1.
Status JobStatsWindowQuery::AddTargetBlocks(Summing& w, const JobStatsView::TargetIndex& index, const std::string& op) {
  JobStatsView& view = w.view;
  const int64_t t1 = w.t1, t2 = w.t2;
  Primitives p(view.reader().cache(), *index.array, &view.reader().store().catalogue());
  std::vector<std::byte> rec(index.array->schema.record_width());
  for (uint32_t g : w.targets) {
    XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* pa, JobStatsView::OfTarget(p, g));
    if (pa == nullptr) continue;
    TnTree t(view.reader().cache(), *pa);
    XTFQ_ASSIGN_OR_RETURN(uint64_t lo, t.LowerBound(t1 + 1));
    if (lo == t.size()) continue;
    XTFQ_ASSIGN_OR_RETURN(uint64_t hi, t.LowerBound(t2 + 1));
    double total = 0, rate_max = 0;
    uint64_t count = 0;
    if (lo < hi) {
      XTFQ_ASSIGN_OR_RETURN(Summary whole, t.Aggregate(lo, hi));
      total = static_cast<double>(static_cast<uint64_t>(whole.fields[0].i_sum));
      rate_max = whole.fields[3].f_max, count = index.Steps(whole);
      XTFQ_TRY(t.Record(lo, rec));
      const int64_t a1 = I64At(rec.data(), L::kStepT1), a0 = I64At(rec.data(), L::kStepT0);
      if (a0 < t1) {
        XTFQ_ASSIGN_OR_RETURN(uint64_t a_end, t.LowerBound(a1 + 1));
        XTFQ_ASSIGN_OR_RETURN(Summary a, t.Aggregate(lo, a_end));
        const auto sum = static_cast<double>(static_cast<uint64_t>(a.fields[0].i_sum));
        total -= sum * static_cast<double>(t1 - a0) / static_cast<double>(a1 - a0);
      }
    }
    if (hi < t.size()) {
      XTFQ_TRY(t.Record(hi, rec));
      const int64_t b1 = I64At(rec.data(), L::kStepT1), b0 = I64At(rec.data(), L::kStepT0);
      if (b0 < t2) {
        XTFQ_ASSIGN_OR_RETURN(uint64_t b_end, t.LowerBound(b1 + 1));
        XTFQ_ASSIGN_OR_RETURN(Summary b, t.Aggregate(hi, b_end));
        total += JobStatsView::Part(static_cast<uint64_t>(b.fields[0].i_sum), b0, b1, t1, t2);
        rate_max = std::max(rate_max, b.fields[3].f_max), count += index.Steps(b);
      }
    }
    if (count == 0) continue;
    const std::string key = view.GroupKey(w.by, UINT32_MAX, g, op);
    JobStatsOpTotals& o = w.Group(key).ops[op];
    o.total += total, o.series_rate_max = std::max(o.series_rate_max, rate_max), o.steps += count;
    XTFQ_TRY(AddBlocks(t, lo, t2, w.peaks[{key, op}]));
  }
  return Ok();
}

JobStatsWindow JobStatsWindowQuery::ListGroups(Summing& w) {
  AddQuietGroups(w.view, w.by, w.series, w.targets, w.out.ops,
                 [&](const std::string& key) -> JobStatsGroup& { return w.Group(key); });
  std::sort(w.out.groups.begin(), w.out.groups.end(),
            [](const JobStatsGroup& a, const JobStatsGroup& b) { return a.keys < b.keys; });
  return std::move(w.out);
}

std::string JobStatsWindow::How() const {
  if (summarised) {
    return fmt::format("from the summaries ({} cells, summarised to {}) and {} steps at the window's ends",
                       summary_cells, summarised_to, steps_read);
  }
  return indexed ? "from the index" : fmt::format("{} steps read", steps_read);
}

const JobStatsOpTotals* JobStatsWindowAnswer::Column(const JobStatsGroup& g, const std::string& column) {
  if (column.empty()) return g.ops.empty() ? nullptr : &g.ops.begin()->second;
  auto it = g.ops.find(column);
  return it == g.ops.end() ? nullptr : &it->second;
}

std::optional<double> JobStatsWindowAnswer::RateMean(const JobStatsOpTotals& o) const {
  if (window.t2 == window.t1) return std::nullopt;
  return o.total / static_cast<double>(window.t2 - window.t1);
}

Result<std::pair<int64_t, int64_t>> JobStatsWindowQuery::ResolveWindow(JobStatsView& view, const std::string& time) {
  XTFQ_ASSIGN_OR_RETURN(auto span, view.Span());
  const TimeFrame frame = span ? TimeFrame::JobStats(span->first, span->second) : TimeFrame::JobStats(0, 0);
  XTFQ_ASSIGN_OR_RETURN(TimeWindow w, TimeWindow::Parse(time, frame));
  if (!span && (w.open_lo() || w.open_hi()))
    return Error(ErrorCode::kNotFound, "the store holds no job_stats collection");
  // An open end is the last collection, or the start when that is later (100%: takes the last
  // instant in, so "100%:" is the empty window after it, not a window that ends before it starts).
  const int64_t t1 = w.open_lo() ? span->first : w.lo, t2 = w.open_hi() ? std::max(span->second, t1) : w.hi;
  if (t1 > t2) {
    return Error(ErrorCode::kUsage,
                 fmt::format("--time '{}': the window [{}, {}) ends before it starts (the collections span {} to {})",
                             time, t1, t2, span ? span->first : 0, span ? span->second : 0));
  }
  return std::pair{t1, t2};
}

Result<std::vector<JobStatsKey>> JobStatsWindowQuery::ParseKeys(const std::vector<std::string>& names) {
  std::vector<JobStatsKey> by;
  for (const std::string& k : names) {
    XTFQ_ASSIGN_OR_RETURN(JobStatsKey key, ParseJobStatsKey(k));
    if (std::find(by.begin(), by.end(), key) == by.end()) by.push_back(key);
  }
  return by;
}

void JobStatsWindowQuery::Snap(const std::optional<JobStatsSummary>& loaded, std::string why, JobStatsWindowAnswer& a,
                               std::pair<int64_t, int64_t>& w) {
  const JobStatsSummary* sum = loaded ? &*loaded : nullptr;
  if (sum != nullptr) {
    if (std::optional<std::string> lacks = sum->Lacks(JobStatsSummary::Need::kAlive))
      why = std::move(*lacks), sum = nullptr;
  }
  if (sum && w.first == w.second) why = "the window is empty", sum = nullptr;
  // The window on bin edges, kept only when the cells then answer it alone: otherwise its ends
  // read steps anyway, and a wider window would only change its means.
  const std::vector<int64_t> edges = sum ? sum->SnappedEdges(w.first, w.second, 1) : std::vector<int64_t>{};
  if (sum && !sum->FromCells(edges.front(), edges.back())) {
    // (the cells at a bin's start hold the carry and alive counts there: the last summarised bin's
    // end has none yet)
    why = fmt::format(
        "the window on the summaries' {} s bins would end after {}, the last bin edge their cells answer alone "
        "(the start of the last summarised bin): its ends would read steps",
        sum->bin_seconds(), sum->summarised_to() - sum->bin_seconds());
    sum = nullptr;
  }
  if (!sum) {
    a.notes.push_back("--snap: not applied: " + why);
    return;
  }
  a.snapped = edges.front() != w.first || edges.back() != w.second;
  if (a.snapped) {
    a.notes.push_back(fmt::format("snapped onto the {} summaries' {} s bins: [{}, {}) instead of [{}, {})",
                                  JobStatsKeyName(a.by[0]), sum->bin_seconds(), edges.front(), edges.back(), w.first,
                                  w.second));
  }
  w = {edges.front(), edges.back()};
}

Result<JobStatsWindowAnswer> JobStatsWindowQuery::Run(JobStatsView& view, const JobStatsWindowRequest& r) {
  JobStatsWindowAnswer a;
  XTFQ_ASSIGN_OR_RETURN(auto w, ResolveWindow(view, r.time));
  XTFQ_ASSIGN_OR_RETURN(a.by, ParseKeys(r.by));
  a.asked_t1 = w.first, a.asked_t2 = w.second;
  // The summaries are loaded once, for --snap and for the window.
  std::string why;
  XTFQ_ASSIGN_OR_RETURN(std::optional<JobStatsSummary> summary,
                        JobStatsSummary::ForRows(view, a.by, r.filter, r.scan, JobStatsSummary::Need::kCells, &why));
  if (r.snap) Snap(summary, std::move(why), a, w);
  XTFQ_ASSIGN_OR_RETURN(auto span, view.Span());
  if (span && (w.second <= span->first || w.first >= span->second)) {
    a.warnings.push_back(
        fmt::format("the window [{}, {}) lies outside the collections ({} to {}, epoch seconds): no rate step is in "
                    "it, and its zeros say nothing of the I/O then",
                    w.first, w.second, span->first, span->second));
  } else if (span && (w.first < span->first || w.second > span->second)) {
    // Rates are known from the first collection to the last; seconds of the window outside that
    // count as zero in its means.
    const int64_t before = std::max<int64_t>(0, span->first - w.first);
    const int64_t after = std::max<int64_t>(0, w.second - span->second);
    a.warnings.push_back(fmt::format(
        "the window [{}, {}) runs {} s {} the collections ({} to {}, epoch seconds): no rate step covers those {} of "
        "its {} s, so its rate means count them as zero (--time {}:{} is the part the collections cover)",
        w.first, w.second, before + after,
        before > 0 && after > 0 ? "before and after"
        : before > 0            ? "before"
                                : "past",
        span->first, span->second, before + after, w.second - w.first, std::max(w.first, span->first),
        std::min(w.second, span->second)));
  }
  XTFQ_ASSIGN_OR_RETURN(a.window, ComputeWith(view, w.first, w.second, r.filter, a.by, r.scan, summary));
  const bool op_key = std::find(a.by.begin(), a.by.end(), JobStatsKey::kOp) != a.by.end();
  a.columns = op_key ? std::vector<std::string>{""} : a.window.ops;
  a.groups_in_window = a.window.groups.size();
  a.request_top = r.top;
  if (r.top > 0 || !r.sort.empty()) {
    const std::string key = r.sort.empty() ? (a.columns.empty() ? std::string() : a.columns.front()) : r.sort;
    if (!op_key && std::find(a.columns.begin(), a.columns.end(), key) == a.columns.end()) {
      return Error(ErrorCode::kUsage,
                   fmt::format("--sort {}: not an op of this answer ({})", key, fmt::join(a.columns, " ")));
    }
    std::stable_sort(a.window.groups.begin(), a.window.groups.end(),
                     [&](const JobStatsGroup& x, const JobStatsGroup& y) {
                       const JobStatsOpTotals* p = JobStatsWindowAnswer::Column(x, op_key ? "" : key);
                       const JobStatsOpTotals* q = JobStatsWindowAnswer::Column(y, op_key ? "" : key);
                       return (p ? p->total : 0) > (q ? q->total : 0);
                     });
    a.sorted_by = op_key ? "total" : key;
    if (r.top > 0 && a.window.groups.size() > r.top) a.window.groups.resize(r.top);
  }
  return a;
}

}  // namespace xtfq
