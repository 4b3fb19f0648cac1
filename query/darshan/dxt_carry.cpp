#include "query/darshan/dxt_carry.h"

#include <algorithm>

#include "query/darshan/dxt_edge_finder.h"

namespace xtfq {

Result<DxtCarry> DxtCarry::Compute(StoreReader& reader, const std::vector<const ArrayDesc*>& arrays,
                                   const std::vector<int64_t>& times,
                                   const std::vector<std::pair<int64_t, int64_t>>& rows) {
  DxtCarry out;
  out.times = times.size();
  out.bytes.assign(rows.size() * times.size(), 0.0);
  out.seconds.assign(rows.size() * times.size(), 0.0);
  if (times.empty() || rows.empty()) return out;
  // Rows by their first rank, to find those holding a rank.
  std::vector<size_t> by_lo(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) by_lo[i] = i;
  std::sort(by_lo.begin(), by_lo.end(), [&](size_t a, size_t b) { return rows[a].first < rows[b].first; });
  int64_t widest = 0;
  for (const auto& [lo, hi] : rows) widest = std::max(widest, hi - lo);
  auto add = [&](const DxtSegment& g) {
    ++out.crossing;
    // The rows whose range holds the rank: their first rank is at most the rank and within the widest row of it.
    auto it = std::upper_bound(by_lo.begin(), by_lo.end(), g.rank,
                               [&](int64_t rank, size_t row) { return rank < rows[row].first; });
    const double end = g.End(), ns = g.duration * 1e9;
    while (it != by_lo.begin()) {
      --it;
      const auto [lo, hi] = rows[*it];
      if (g.rank - lo >= widest) break;
      if (g.rank >= hi) continue;
      for (auto k = std::upper_bound(times.begin(), times.end(), g.t);
           k != times.end() && static_cast<double>(*k) < end; ++k) {
        const double after = end - static_cast<double>(*k);
        const size_t i = *it * times.size() + static_cast<size_t>(k - times.begin());
        out.bytes[i] += static_cast<double>(g.bytes) * after / ns;
        out.seconds[i] += after / 1e9;
      }
    }
  };
  for (const ArrayDesc* a : arrays) {
    DxtEdgeFinder f(reader, *a);
    XTFQ_ASSIGN_OR_RETURN(int64_t first, f.FirstStart());
    XTFQ_TRY(f.Crossing(times, std::min(first, times.front()), times.back(), add));
    out.records_read += f.records_read();
  }
  return out;
}

}  // namespace xtfq
