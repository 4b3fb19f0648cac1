// TimeWindow: the one syntax of `--time T1:T2` for every command and every kind of store
// (docs/cli.md, "Windows"), parsed against the frame of the store being read.
//
// A window is half-open, [T1, T2); either side may be empty (`:T2`, `T1:`, `:`). Each side is
//   N          a plain number (fraction allowed) in the store's own unit: seconds from the job's
//              start for Darshan logs, epoch seconds for job_stats, the time field's unit (ns for
//              events) for a raw array;
//   N<unit>    a duration from the run's origin, unit ns, us, ms, s, m, h or d (`90s`, `15m`,
//              `2h`): the job's start (Darshan), the first collection (job_stats), time 0 (raw
//              arrays, whose unit must be ns: `1500ns`);
//   P%         a percentage of the run's span (`33%:67%`): the job's run time (Darshan), first to
//              last collection (job_stats), first to last record (raw arrays); 100% takes the end in;
//   @E         epoch seconds (`@1767225600`), and
//   ISO 8601   a UTC wall-clock time (`2026-01-01T00:30:00Z`, seconds may have a fraction), both
//              for stores that know the wall clock (Darshan: the job's start; job_stats); a raw
//              array has none and refuses them.
// A side that parses in none of these forms, a reversed window (T1 > T2) or a form the store
// cannot place is ErrorCode::kUsage. T:T is the empty window, answered with zeros.
//
// Thread-safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "store/result.h"

namespace xtfq {

enum class TimeFrameKind : uint8_t { kDarshan = 0, kJobStats = 1, kRaw = 2 };

// Where a store's times sit. Native values are ns from the job's start (Darshan), epoch seconds
// (job_stats) or the raw time field (raw arrays).
struct TimeFrame {
  TimeFrameKind kind = TimeFrameKind::kRaw;
  int64_t first = 0, last = 0;  // the run's span, native, inclusive (for percentages)
  int64_t epoch_origin = 0;     // Darshan: the job's start in epoch seconds
  bool raw_ns = true;           // raw arrays: the time field counts ns (durations allowed)

  static TimeFrame Darshan(int64_t job_start_epoch, int64_t run_ns);
  static TimeFrame JobStats(int64_t first_epoch, int64_t last_epoch);
  static TimeFrame Raw(int64_t first, int64_t last, bool ns = true);
  // The native unit's name, for messages and --help ("s from the job's start", ...).
  std::string_view UnitName() const;
};

struct TimeWindow {
  int64_t lo = INT64_MIN, hi = INT64_MAX;  // native, half-open; INT64_MIN/MAX: open
  bool open_lo() const { return lo == INT64_MIN; }
  bool open_hi() const { return hi == INT64_MAX; }

  // Parses `text` (the value of --time) in `frame`; kUsage on a malformed or reversed window.
  static Result<TimeWindow> Parse(std::string_view text, const TimeFrame& frame);
  // One side alone ("T"), as for `search --time T`.
  static Result<int64_t> ParsePoint(std::string_view text, const TimeFrame& frame);
  // "UTC seconds" from "2026-01-01T00:00:00Z" (Z optional, fraction allowed); nullopt otherwise.
  static std::optional<double> ParseIso8601(std::string_view text);
};

}  // namespace xtfq
