#include "query/darshan/rank_imbalance.h"

#include <algorithm>
#include <vector>

namespace xtfq {

std::optional<RankImbalance> RankImbalance::Of(const std::map<int64_t, std::array<DarshanOpStats, 2>>& ranks,
                                               bool timed) {
  if (ranks.empty()) return std::nullopt;
  std::vector<Rank> rows;
  for (const auto& [rank, ops] : ranks) rows.push_back({rank, ops[0].bytes + ops[1].bytes, ops[0].busy + ops[1].busy});
  const auto by_bytes =
      std::minmax_element(rows.begin(), rows.end(), [](const Rank& a, const Rank& b) { return a.bytes < b.bytes; });
  const auto by_busy =
      std::minmax_element(rows.begin(), rows.end(), [](const Rank& a, const Rank& b) { return a.busy < b.busy; });
  RankImbalance r;
  r.ranks = rows.size();
  r.max_bytes = *by_bytes.second, r.min_bytes = *by_bytes.first;
  if (timed) r.slowest = *by_busy.second, r.fastest = *by_busy.first;
  for (const Rank& x : rows) r.mean_bytes += static_cast<double>(x.bytes);
  r.mean_bytes /= static_cast<double>(rows.size());
  if (timed && r.fastest->bytes != 0) {
    r.slowest_to_fastest_bytes = static_cast<double>(r.slowest->bytes) / static_cast<double>(r.fastest->bytes);
  }
  return r;
}

}  // namespace xtfq
