// DarshanCounterWindow: Darshan's window signals for a log that has neither DXT segments nor
// HEATMAP bins of a module, from its counter records (docs/signals.md, "Windows from counters").
// Every record says how many operations and bytes it made and when its reads and its writes
// began and ended (F_READ_START/END_TIMESTAMP, F_WRITE_START/END_TIMESTAMP, seconds from the job's
// start); the estimate spreads them evenly over that interval: a record counts in the window by
// the share of its interval inside it (all or nothing when the interval is an instant). Busy
// time (F_READ_TIME, F_WRITE_TIME), sequential and consecutive counts and size classes follow the
// same share. A record wholly inside or outside the window counts exactly; the answer says
// `exact` only when every record did (the whole run always does). Shared records (rank -1) count
// in the totals of an unbounded rank range but in no rank's row.
//
// Cost: reads every counter record of the module (there is no index by interval).
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <array>
#include <functional>
#include <string>

#include "layouts/darshan_layout.h"
#include "query/darshan/darshan_window.h"

namespace xtfq {

// What one counter record says of one operation: when it ran (seconds from the job's start) and
// how much it did.
struct DarshanCounterActivity {
  int64_t rank = 0;
  uint64_t id = 0;
  int op = 0;  // 0 read, 1 write
  double start = 0, end = 0;
  double ops = 0, bytes = 0, busy = 0, seq = 0, consec = 0;
  std::array<double, DarshanLayout::kSizeClasses> size_classes{};
};

class DarshanCounterWindow {
 public:
  // Calls fn for each operation of each counter record of `module` that made any (ops > 0).
  // kNotFound (naming the modules the log has) when it has no records of `module`.
  static Status ForEachActivity(StoreReader& reader, const DarshanLogInfo& info, const std::string& module,
                                const std::function<void(const DarshanCounterActivity&)>& fn);
  // The share of [a, b] (seconds from the job's start) inside [w1, w2) (ns; INT64_MIN/MAX open):
  // the overlap over the length, or all or nothing for an instant.
  static double Share(double a, double b, int64_t w1, int64_t w2);
  // kNotFound when the log has no counter records of the module.
  static Result<DarshanWindowStats> Compute(StoreReader& reader, const DarshanLogInfo& info,
                                            const DarshanWindowSpec& spec);
};

}  // namespace xtfq
