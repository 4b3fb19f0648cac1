// RankImbalance: how unevenly the ranks of a window share its I/O (docs/signals.md, "Windows"):
// over the ranks with I/O in the window, the largest, smallest and mean bytes per rank, the
// slowest rank (most busy time) and the fastest (least), and the slowest rank's bytes over the
// fastest's. Without times (bytes from HEATMAP bins) there is no slowest or fastest rank. Ties: the lowest rank for a
// minimum, the highest for a maximum.
//
// Thread-safety: value type.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>

#include "query/darshan/darshan_window.h"

namespace xtfq {

struct RankImbalance {
  struct Rank {
    int64_t rank = 0, bytes = 0;
    double busy = 0;  // seconds
  };
  uint64_t ranks = 0;
  Rank max_bytes, min_bytes;
  std::optional<Rank> slowest, fastest;  // none when busy times are unknown
  double mean_bytes = 0;
  std::optional<double> slowest_to_fastest_bytes;  // none when the fastest rank moved no bytes

  // nullopt when no rank has I/O. `timed`: the busy times are known (DXT, not heatmaps).
  static std::optional<RankImbalance> Of(const std::map<int64_t, std::array<DarshanOpStats, 2>>& ranks,
                                         bool timed = true);
};

}  // namespace xtfq
