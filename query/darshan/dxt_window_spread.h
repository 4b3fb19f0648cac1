// DxtWindowSpread: what DXT segments move *during* a time window, on the wall clock: each
// segment's bytes spread evenly over its [start, end) and its busy time counted where it overlaps
// the window (docs/signals.md, "Rates on the wall clock"). Bytes during the window divided by its
// length is the bandwidth an analyst reads off a timeline (MiB/s of wall time), where bytes per
// busy second is a per-operation speed.
//
// Exact, from the window's totals by start (DarshanWindowStats) and the few segments that cross its
// edges: a segment that starts inside and ends after t2 gives back its part beyond t2; one that
// starts before t1 and ends after it adds its part inside. Those are found without reading the
// rest: the TN tree's aggregates give each run of start times its count and longest duration, a
// run that cannot reach the edge is skipped, the others are halved until they are small enough to
// read (O(log^2 N) descents an edge, plus the crossing segments and their neighbours).
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>

#include "query/core/store_reader.h"
#include "query/darshan/darshan_window.h"

namespace xtfq {

struct DxtSpread {
  double bytes = 0;  // bytes moved inside the window
  double busy = 0;   // seconds of the segments inside the window
};

struct DxtWindowSpreadResult {
  int64_t t1 = 0,
          t2 = 0;  // the window the rates are over: open edges closed at the job's start and the last segment's end
  std::array<DxtSpread, 2> total;                     // read, write
  std::map<int64_t, std::array<DxtSpread, 2>> ranks;  // with per-rank rows
  uint64_t crossing = 0;                              // segments that cross an edge of the window
  uint64_t records_read = 0;                          // segments read to find them

  double Seconds() const { return static_cast<double>(t2 - t1) / 1e9; }
  // MiB/s of wall time over the window (nullopt for an empty window).
  std::optional<double> MiBps(int op) const;
};

class DxtWindowSpread {
 public:
  // `started`: DarshanWindow's answer for the same spec (segments counted by their start), from DXT
  // segments. An open end of the window is the later of `frame_last` (ns from the job's start: the
  // log's run) and the last segment's end; an open start is the job's start.
  static Result<DxtWindowSpreadResult> Compute(StoreReader& reader, const DarshanLogInfo& info,
                                               const DarshanWindowSpec& spec, const DarshanWindowStats& started,
                                               int64_t frame_last);
};

}  // namespace xtfq
