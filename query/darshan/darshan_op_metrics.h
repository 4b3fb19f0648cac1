// DarshanOpMetrics: the rates and ratios derived from one operation's window totals
// (DarshanOpStats): MiB per busy second (a per-operation speed, not the window's bandwidth: that is
// DarshanWindowAnswer::rate), IOPS over busy time, average request size,
// and the sequential, consecutive and small (< 10 KiB: Darshan's first three size classes) shares
// of the operations. A ratio whose denominator is zero, or whose counts the source does not keep
// (DarshanOpStats' *_known), has no value (printed NA), never 0.
//
// Thread-safety: value type.
#pragma once

#include <optional>

#include "query/darshan/darshan_window.h"

namespace xtfq {

struct DarshanOpMetrics {
  std::optional<double> mib_per_busy_s, iops, avg_size, seq_ratio, consec_ratio, small_ratio;

  static DarshanOpMetrics Of(const DarshanOpStats& s);
};

}  // namespace xtfq
