// ArrayWindowQuery: the statistics of a raw array (events, or any array a store holds by name) over
// a time window and process range: the count, and per aggregate field its sum, min, max, mean and
// population standard deviation, with the p50/p90/p99 intervals of the fields that have
// distributions; or the same per bucket of B equal time buckets (a histogram). What `xtfq query`
// answers on a store of raw arrays and the viewer's /api/query on an "arrays" store.
//
// How: the array's primitives (query/core/primitives.h; the P index for a process range), the
// percentiles from DistributionQuery; with `scan`, every answer from a read of every record.
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "query/core/store_reader.h"
#include "query/grid/distribution_query.h"

namespace xtfq {

struct ArrayWindowRequest {
  std::string array;       // the array's name; empty: the store's only array, else "events"
  std::string time = ":";  // --time T1:T2 (query/core/time_window.h)
  std::string ranks;       // process window R1:R2 (needs a process field)
  uint32_t buckets = 0;    // > 0: a histogram of this many equal buckets (needs a bounded window)
  bool scan = false;       // read every record instead of the index
};

// One aggregate field of a window: its statistics as stored, its moments (NaN when the window is
// empty; the standard deviation also when the squares overflow a double) and, where the field has
// distributions, its percentiles.
struct ArrayFieldAnswer {
  std::string name;
  FieldStats stats;
  double mean = 0, stddev = 0;
  std::vector<WindowPercentile> percentiles;  // empty: the field has no distributions
};

struct ArrayWindowStats {
  uint64_t count = 0;
  std::vector<ArrayFieldAnswer> fields;  // in the schema's aggregate order
};

struct ArrayBucket {
  int64_t start = 0, end = 0;  // [start, end), native time
  ArrayWindowStats stats;
};

struct ArrayWindowAnswer {
  std::string array;
  int64_t t1 = INT64_MIN, t2 = INT64_MAX;  // the window taken, native
  bool histogram = false;
  ArrayWindowStats whole;            // without buckets
  std::vector<ArrayBucket> buckets;  // with buckets
  bool has_percentiles = false;      // some field of `whole` carries percentiles
};

class ArrayWindowQuery {
 public:
  // kUsage on a malformed window or range, a range over an array without a process field, or
  // buckets over an open window; kNotFound when the array is not in the store.
  static Result<ArrayWindowAnswer> Run(StoreReader& reader, const ArrayWindowRequest& request);
  // The array a request names: by name, or the store's only array of its own (grid summaries and
  // per-process arrays are not arrays of their own), else "events".
  static Result<const ArrayDesc*> Choose(StoreReader& reader, const std::string& name);
  // The statistics of one summary with the moments computed.
  static ArrayWindowStats Stats(const Schema& schema, const Summary& s);
};

}  // namespace xtfq
