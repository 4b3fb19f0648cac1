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

#include "query/darshan_window.h"

namespace xtfq {

class DarshanCounterWindow {
 public:
  // kNotFound when the log has no counter records of the module.
  static Result<DarshanWindowResult> Compute(StoreReader& reader, const DarshanLogInfo& info,
                                             const DarshanWindowSpec& spec);
};

}  // namespace xtfq
