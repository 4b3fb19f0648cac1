#include "query/jobstats_grid_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "layouts/jobstats_layout.h"
#include "query/grid_query.h"
#include "query/jobstats_window_query.h"
#include "store/endian.h"

namespace xtfq {

Result<JobStatsGrid> JobStatsGridQuery::Run(JobStatsView& view, const JobStatsGridRequest& req) {
  using L = JobStatsLayout;
  XTFQ_ASSIGN_OR_RETURN(JobStatsKey key, ParseJobStatsKey(req.by));
  if (key == JobStatsKey::kOp) return Error(ErrorCode::kUsage, "--by op: a grid shows one op; give --op");
  XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* steps, view.StepsOf(req.op));
  if (req.cols == 0) return Error(ErrorCode::kUsage, "a grid needs at least one column");
  XTFQ_ASSIGN_OR_RETURN(auto window, JobStatsWindowQuery::ResolveWindow(view, req.time));
  const auto [t1, t2] = window;
  if (t1 >= t2) return Error(ErrorCode::kUsage, fmt::format("--time '{}': the grid's window is empty", req.time));
  JobStatsGrid g;
  g.op = req.op, g.by = req.by;
  g.unit = "events";
  g.edges = GridQuery::Edges(t1, t2, req.cols);
  XTFQ_ASSIGN_OR_RETURN(std::vector<char> series, view.SelectSeries(req.filter));
  XTFQ_ASSIGN_OR_RETURN(std::vector<uint32_t> targets, view.SelectTargets(req.filter, series));
  const size_t W = req.cols;
  XTFQ_ASSIGN_OR_RETURN(g.collections, view.Collections());
  const std::vector<JobStatsView::TargetCollections>& spans = g.collections;
  std::unordered_map<std::string, size_t> index;
  std::vector<std::string> labels;
  std::vector<std::vector<double>> cells;
  std::vector<std::pair<int64_t, int64_t>> cover;  // per label: the hull of its targets' [first, last)
  // Rows by target take each block's total (its steps share [t0, t1)), not each step's.
  auto visit = [&](const std::byte* r) {
    const uint32_t target = LoadLe<uint32_t>(r + L::kStepTarget), s = LoadLe<uint32_t>(r + L::kStepSeries);
    const std::string label = view.GroupKey({key}, s, target, req.op);
    auto [it, fresh] = index.try_emplace(label, labels.size());
    if (fresh) labels.push_back(label), cells.emplace_back(W, 0.0), cover.emplace_back(INT64_MAX, INT64_MIN);
    std::vector<double>& row = cells[it->second];
    if (target < spans.size()) {
      auto& [lo, hi] = cover[it->second];
      lo = std::min(lo, spans[target].first), hi = std::max(hi, spans[target].last);
    }
    const uint64_t delta = LoadLe<uint64_t>(r + L::kStepDelta);
    if ((LoadLe<uint32_t>(r + L::kStepFlags) & L::kStepBytes) != 0) g.unit = "bytes";
    const int64_t a = LoadLe<int64_t>(r + L::kStepT0), b = LoadLe<int64_t>(r + L::kStepT1);
    // The columns the step [a, b) overlaps.
    auto first = std::upper_bound(g.edges.begin(), g.edges.end(), a);
    for (size_t c = first == g.edges.begin() ? 0 : static_cast<size_t>(first - g.edges.begin()) - 1;
         c < W && g.edges[c] < b; ++c) {
      row[c] += JobStatsView::Part(delta, a, b, g.edges[c], g.edges[c + 1]);
    }
  };
  if (key == JobStatsKey::kTarget && series.empty()) {
    g.from_blocks = !req.scan && view.IndexOf(*steps).blocks;
    XTFQ_TRY(view.Blocks(*steps, t1, t2, targets, req.scan, g.steps_read, visit));
  } else {
    XTFQ_TRY(view.Steps(*steps, t1, t2, targets, series, req.scan, g.steps_read, visit));
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
