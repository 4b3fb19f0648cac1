#include "query/jobstats/jobstats_grid_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "index/tn_tree.h"
#include "layouts/jobstats_layout.h"
#include "query/grid/grid_query.h"
#include "query/jobstats/jobstats_summary.h"
#include "query/jobstats/jobstats_window_query.h"
#include "store/endian.h"

namespace xtfq {

namespace {

using L = JobStatsLayout;

// The op's unit: its steps all count bytes, or all events (its first step says which).
Result<std::string> OpUnit(JobStatsView& view, const ArrayDesc& steps) {
  if (steps.record_count() == 0) return std::string("events");
  std::vector<std::byte> first(steps.schema.record_width());
  XTFQ_TRY(TnTree(view.reader().cache(), steps).Record(0, first));
  return std::string((LoadLe<uint32_t>(first.data() + L::kStepFlags) & L::kStepBytes) != 0 ? "bytes" : "events");
}

// Per column, where its part from the steps starts: its end when the cells answer it whole (its
// edges on summarised bins), the last summarised bin edge when it lies across it (the cells
// answer the part before), else its start.
std::vector<int64_t> StepsFrom(const std::vector<int64_t>& edges, const std::optional<JobStatsSummary>& sum) {
  std::vector<int64_t> from(edges.begin(), edges.end() - 1);
  if (!sum) return from;
  const int64_t last = sum->summarised_to() - sum->bin_seconds();
  for (size_t c = 0; c + 1 < edges.size(); ++c) {
    const int64_t x = edges[c], y = edges[c + 1];
    if (sum->FromCells(x, y)) {
      from[c] = y;
    } else if (x < last && last < y && sum->FromCells(x, last)) {
      from[c] = last;
    }
  }
  return from;
}

}  // namespace

Result<JobStatsGrid> JobStatsGridQuery::Run(JobStatsView& view, const JobStatsGridRequest& req) {
  XTFQ_ASSIGN_OR_RETURN(JobStatsKey key, ParseJobStatsKey(req.by));
  if (key == JobStatsKey::kOp) return Error(ErrorCode::kUsage, "--by op: a grid shows one op; give --op");
  XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* steps, view.StepsOf(req.op));
  if (req.cols == 0) return Error(ErrorCode::kUsage, "a grid needs at least one column");
  XTFQ_ASSIGN_OR_RETURN(auto window, JobStatsWindowQuery::ResolveWindow(view, req.time));
  const auto [t1, t2] = window;
  if (t1 >= t2) return Error(ErrorCode::kUsage, fmt::format("--time '{}': the grid's window is empty", req.time));
  JobStatsGrid g;
  g.op = req.op, g.by = req.by;
  XTFQ_ASSIGN_OR_RETURN(g.unit, OpUnit(view, *steps));
  g.asked_t1 = t1, g.asked_t2 = t2, g.asked_cols = req.cols;
  XTFQ_ASSIGN_OR_RETURN(std::vector<char> series, view.SelectSeries(req.filter));
  XTFQ_ASSIGN_OR_RETURN(std::vector<uint32_t> targets, view.SelectTargets(req.filter, series));
  // The key's summaries when the rows are its groups over every target and the cells hold their
  // carry; otherwise the reason, which --snap gives.
  XTFQ_ASSIGN_OR_RETURN(
      std::optional<JobStatsSummary> sum,
      JobStatsSummary::ForRows(view, {key}, req.filter, req.scan, JobStatsSummary::Need::kCarry, &g.unsnapped));
  if (req.snap && sum) {
    g.edges = sum->SnappedEdges(t1, t2, req.cols);
    g.snapped = g.edges != GridQuery::Edges(t1, t2, req.cols);
  } else {
    g.edges = GridQuery::Edges(t1, t2, req.cols);
  }
  if (!req.snap) g.unsnapped.clear();
  const size_t W = g.edges.size() - 1;
  const std::vector<int64_t> from = StepsFrom(g.edges, sum);
  if (sum) g.bin_seconds = sum->bin_seconds();
  XTFQ_ASSIGN_OR_RETURN(g.collections, view.Collections());
  const std::vector<JobStatsView::TargetCollections>& spans = g.collections;
  std::unordered_map<std::string, size_t> index;
  std::vector<std::string> labels;
  std::vector<std::vector<double>> cells;
  std::vector<std::pair<int64_t, int64_t>> cover;  // per label: the hull of its targets' [first, last)
  const auto label_row = [&](const std::string& label) -> size_t {
    auto [it, fresh] = index.try_emplace(label, labels.size());
    if (fresh) labels.push_back(label), cells.emplace_back(W, 0.0), cover.emplace_back(INT64_MAX, INT64_MIN);
    return it->second;
  };
  const auto cover_target = [&](size_t i, uint32_t target) {
    if (target >= spans.size()) return;
    auto& [lo, hi] = cover[i];
    lo = std::min(lo, spans[target].first), hi = std::max(hi, spans[target].last);
  };
  // The steps of columns [ca, cb) (from `from`), each spread over those it overlaps. Rows by target
  // take each block's total (its steps share [t0, t1)), not each step's.
  size_t ca = 0, cb = 0;
  auto visit = [&](const std::byte* r) {
    const uint32_t target = LoadLe<uint32_t>(r + L::kStepTarget), s = LoadLe<uint32_t>(r + L::kStepSeries);
    const size_t i = label_row(view.GroupKey({key}, s, target, req.op));
    std::vector<double>& row = cells[i];
    const uint64_t delta = LoadLe<uint64_t>(r + L::kStepDelta);
    const int64_t a = LoadLe<int64_t>(r + L::kStepT0), b = LoadLe<int64_t>(r + L::kStepT1);
    // The columns the step [a, b) overlaps.
    auto first = std::upper_bound(g.edges.begin() + static_cast<std::ptrdiff_t>(ca),
                                  g.edges.begin() + static_cast<std::ptrdiff_t>(cb) + 1, a);
    for (size_t c = first == g.edges.begin() + static_cast<std::ptrdiff_t>(ca)
                        ? ca
                        : static_cast<size_t>(first - g.edges.begin()) - 1;
         c < cb && g.edges[c] < b; ++c) {
      row[c] += JobStatsView::Part(delta, a, b, from[c], g.edges[c + 1]);
    }
  };
  const auto stepped = [&](size_t c) { return from[c] < g.edges[c + 1]; };
  for (ca = 0; ca < W; ca = cb) {
    for (cb = ca; cb < W && stepped(cb) == stepped(ca);) ++cb;
    if (!stepped(ca)) continue;
    if (key == JobStatsKey::kTarget && series.empty()) {
      g.from_blocks = !req.scan && view.IndexOf(*steps).blocks;
      XTFQ_TRY(view.Blocks(*steps, from[ca], g.edges[cb], targets, req.scan, g.steps_read, visit));
    } else {
      XTFQ_TRY(view.Steps(*steps, from[ca], g.edges[cb], targets, series, req.scan, g.steps_read, visit));
    }
  }
  // The columns' parts from the cells: [start, from).
  std::vector<size_t> celled;
  std::vector<JobStatsSummary::Span> parts;
  for (size_t c = 0; c < W; ++c) {
    if (from[c] > g.edges[c]) celled.push_back(c), parts.emplace_back(g.edges[c], from[c]);
  }
  g.cell_columns = static_cast<uint32_t>(celled.size());
  if (!parts.empty()) {
    const auto op = static_cast<uint32_t>(std::find(view.ops().begin(), view.ops().end(), req.op) - view.ops().begin());
    XTFQ_ASSIGN_OR_RETURN(auto totals, sum->ColumnTotals(parts, op, g.cells_read));
    for (const auto& [grp, v] : totals) {
      if (grp >= view.series().size()) {
        return Error(ErrorCode::kCorrupt, fmt::format("{}: a job_stats summary cell names series {} of {}",
                                                      view.reader().store().name(), grp, view.series().size()));
      }
      const size_t i = label_row(view.GroupKey({key}, grp, view.series()[grp].target, req.op));
      for (size_t k = 0; k < celled.size(); ++k) cells[i][celled[k]] += v[k];
    }
  }
  // A row's targets: the selected targets of its selected series, whether or not they changed the
  // op in the window (a collected target that did not is a known 0).
  if (key == JobStatsKey::kTarget) {  // a row is one target (every series visited is on it)
    for (uint32_t t : targets) {
      if (auto it = index.find(view.GroupKey({key}, 0, t, req.op)); it != index.end()) cover_target(it->second, t);
    }
  } else {
    std::vector<char> selected(view.targets().size(), 0);
    for (uint32_t t : targets) {
      if (t < selected.size()) selected[t] = 1;
    }
    for (uint32_t s = 0; s < view.series().size(); ++s) {
      const uint32_t target = view.series()[s].target;
      if ((!series.empty() && !series[s]) || target >= selected.size() || !selected[target]) continue;
      if (auto it = index.find(view.GroupKey({key}, s, target, req.op)); it != index.end())
        cover_target(it->second, target);
    }
  }
  std::vector<double> totals(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) totals[i] = std::accumulate(cells[i].begin(), cells[i].end(), 0.0);
  std::vector<size_t> order(labels.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t x, size_t y) { return totals[x] != totals[y] ? totals[x] > totals[y] : labels[x] < labels[y]; });
  g.groups = labels.size();
  const size_t keep = req.rows == 0 ? order.size() : std::min<size_t>(req.rows, order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    if (k >= keep) {
      g.others += totals[i];
      continue;
    }
    g.rows.push_back(labels[i]);
    g.totals.push_back(totals[i]);
    g.cells.insert(g.cells.end(), cells[i].begin(), cells[i].end());
    for (size_t c = 0; c < W; ++c) {
      g.covered.push_back(g.edges[c] < cover[i].second && cover[i].first < g.edges[c + 1] ? 1 : 0);
    }
  }
  return g;
}

}  // namespace xtfq
