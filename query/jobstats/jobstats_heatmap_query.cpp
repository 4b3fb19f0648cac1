#include "query/jobstats/jobstats_heatmap_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "index/tn_tree.h"
#include "query/core/primitives.h"
#include "query/jobstats/jobstats_summary.h"
#include "query/jobstats/jobstats_window_query.h"
#include "store/endian.h"
#include "store/log_histogram.h"

namespace xtfq {

namespace {
using L = JobStatsLayout;
}  // namespace

Result<JobStatsHeatmap> JobStatsHeatmapQuery::Compute(JobStatsView& view, int64_t t1, int64_t t2, int64_t cell,
                                                      const std::string& op, double base, const JobStatsFilter& filter,
                                                      const std::vector<JobStatsKey>& by, bool summaries) {
  if (t1 > t2) return Error(ErrorCode::kUsage, fmt::format("the window {}:{} ends before it starts", t1, t2));
  if (cell <= 0) return Error(ErrorCode::kUsage, "the heatmap cell must be a positive number of seconds");
  if (!(base > 1) || !std::isfinite(base))
    return Error(ErrorCode::kInvalidArgument, fmt::format("the base must be > 1 (got {})", base));
  JobStatsHeatmap out;
  out.t1 = t1, out.t2 = t2, out.cell = cell, out.base = base, out.op = op;
  XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* steps, view.StepsOf(op));
  XTFQ_ASSIGN_OR_RETURN(std::vector<char> series, view.SelectSeries(filter));
  XTFQ_ASSIGN_OR_RETURN(std::vector<uint32_t> targets, view.SelectTargets(filter, series));
  // From the summaries' heatmap cells, when they serve.
  if (summaries && by.empty() && base == 2 && !filter.BySeries() && t1 < t2) {
    XTFQ_ASSIGN_OR_RETURN(auto summary, JobStatsSummary::Load(view, JobStatsKey::kJob));
    const ArrayDesc* z = view.reader().catalogue().Find(L::kZSummary);
    const auto o = static_cast<uint32_t>(std::find(view.ops().begin(), view.ops().end(), op) - view.ops().begin());
    if (summary && z != nullptr && z->schema == L::ZCellSchema() && cell == summary->bin_seconds() && t1 % cell == 0 &&
        t2 % cell == 0 && t2 <= summary->summarised_to()) {
      std::vector<char> want(view.targets().size(), 0);
      for (uint32_t g : targets) want[g] = 1;
      std::map<std::pair<int64_t, int>, uint64_t> counts;  // (t, bin)
      bool beyond = false;                                 // a rate outside the bins the summaries keep
      uint64_t read = 0;
      TnTree tree(view.reader().cache(), *z);
      XTFQ_ASSIGN_OR_RETURN(uint64_t a, tree.LowerBound(t1));
      XTFQ_ASSIGN_OR_RETURN(uint64_t b, tree.LowerBound(t2));
      XTFQ_TRY(tree.ForEach(a, b, [&](const std::byte* r) -> Result<bool> {
        ++read;
        const uint32_t g = U32At(r, L::kZTarget);
        if (U32At(r, L::kZOp) != o || g >= want.size() || !want[g]) return true;
        for (int i = 0; i < LogHistogram::kBins; ++i) {
          const uint32_t n = U32At(r, L::kZCounts + 4 * static_cast<uint32_t>(i));
          if (n == 0) continue;
          beyond = beyond || i == 0 || i == LogHistogram::kBins - 1;
          counts[{I64At(r, L::kZT), i}] += n;
        }
        return true;
      }));
      if (!beyond) {
        // Bin i holds [2^(e+i-1), 2^(e+i)): k = e + i - 1.
        for (const auto& [ti, n] : counts) out.cells.push_back({ti.first, L::kZRateExponent + ti.second - 1, n});
        out.summarised = true, out.summary_cells = read;
        return out;
      }
    }
  }
  const std::vector<JobStatsKey> keys =
      by.empty() ? std::vector<JobStatsKey>{JobStatsKey::kTarget, JobStatsKey::kId} : by;
  const auto cells = static_cast<size_t>((t2 - t1 + cell - 1) / cell);
  // Each group's integral over each cell (the resampling that keeps integrals).
  std::unordered_map<std::string, std::vector<double>> integral;
  uint64_t read = 0;
  XTFQ_TRY(view.Steps(*steps, t1, t2, targets, series, false, read, [&](const std::byte* r) {
    std::vector<double>& v = integral[view.GroupKey(keys, U32At(r, L::kStepSeries), U32At(r, L::kStepTarget), op)];
    if (v.empty()) v.assign(cells, 0.0);
    const int64_t a0 = I64At(r, L::kStepT0), a1 = I64At(r, L::kStepT1);
    const int64_t s0 = std::max(a0, t1), s1 = std::min(a1, t2);
    const uint64_t delta = U64At(r, L::kStepDelta);
    for (auto c = static_cast<size_t>((s0 - t1) / cell); c < cells; ++c) {
      const int64_t c0 = t1 + static_cast<int64_t>(c) * cell;
      if (c0 >= s1) break;
      v[c] += JobStatsView::Part(delta, a0, a1, c0, std::min(c0 + cell, t2));
    }
  }));
  out.groups = integral.size();
  std::map<std::pair<int64_t, int>, uint64_t> z;
  const double lb = std::log(base);
  for (const auto& [key, v] : integral) {
    for (size_t c = 0; c < cells; ++c) {
      if (v[c] <= 0) continue;
      const int64_t c0 = t1 + static_cast<int64_t>(c) * cell;
      const double rate = v[c] / static_cast<double>(std::min(c0 + cell, t2) - c0);
      auto k = static_cast<int>(std::floor(std::log(rate) / lb));
      // Correct the logarithm's rounding at bin edges: base^k <= rate < base^(k+1).
      if (std::pow(base, k) > rate)
        --k;
      else if (std::pow(base, k + 1) <= rate)
        ++k;
      ++z[{c0, k}];
    }
  }
  for (const auto& [tk, n] : z) out.cells.push_back({tk.first, tk.second, n});
  return out;
}

Result<JobStatsHeatmap> JobStatsHeatmapQuery::Run(JobStatsView& view, const JobStatsHeatmapRequest& r) {
  XTFQ_ASSIGN_OR_RETURN(auto w, JobStatsWindowQuery::ResolveWindow(view, r.time));
  XTFQ_ASSIGN_OR_RETURN(std::vector<JobStatsKey> by, JobStatsWindowQuery::ParseKeys(r.by));
  if (r.op.empty()) return Error(ErrorCode::kUsage, fmt::format("give --op (one of: {})", fmt::join(view.ops(), " ")));
  return Compute(view, w.first, w.second, r.cell > 0 ? r.cell : 120, r.op, r.base, r.filter, by);
}

}  // namespace xtfq
