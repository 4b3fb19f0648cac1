// JobStatsState: what appending job_stats to a store must know of what it already holds
// (docs/format.md, "Job stats layout"): the ids of targets, ops and series, the interned strings,
// the record counts of the entry and counter arrays, and for each target its last collection time
// and the counters of that collection's entries (the previous values the next collection's rates
// are taken against). Load() reads it from a store's committed records; the importer updates it
// as it appends. A series absent from its target's last collection is new at the next one, so
// nothing older is needed.
//
// Thread-safety: value type.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "store/record_source.h"

namespace xtfq {

struct JobStatsState {
  struct OpValue {
    uint32_t op = 0;
    uint64_t samples = 0, sum = 0;
  };
  struct Previous {
    std::optional<double> start_time;
    std::vector<OpValue> values;  // the entry's non-zero counters
  };
  struct Target {
    std::string name;
    int64_t last_time = std::numeric_limits<int64_t>::min();  // none yet
    std::unordered_map<uint32_t, Previous> entries;           // series -> its counters at last_time
  };
  // Maps keyed by string, looked up by string_view (no string made per lookup).
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <class V>
  using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

  std::vector<Target> targets;
  StringMap<uint32_t> target_ids;
  std::vector<std::string> ops;
  StringMap<uint32_t> op_ids;
  StringMap<uint32_t> series_ids;  // SeriesKey(target, raw id) -> series
  // An op's step array (jobstats/op/<op>): the records it holds, and whether it is of the legacy
  // layout (target the process field: a P index of step copies and no block array), which an
  // import goes on appending to as it is.
  struct StepArray {
    uint64_t records = 0;
    bool legacy = false;
  };
  // The ops that have a step array, and how many of them are not Lustre's own (at most
  // JobStatsLayout::kMaxOtherOpArrays).
  StringMap<StepArray> step_ops;
  size_t other_step_ops = 0;
  uint64_t series = 0, entries = 0, counters = 0;           // records held
  int64_t last_time = std::numeric_limits<int64_t>::min();  // the newest collection of any target
  // Interned string -> StringRef (packed).
  StringMap<uint64_t> strings;

  // What `source` holds: its targets, ops and series with their strings, and each target's last
  // collection with its entries and counters (found through the collections' per-target arrays,
  // so O(targets x log N) pages plus the entries of those collections). Empty for a store
  // without job_stats.
  static Result<JobStatsState> Load(RecordSource& source);
  // Whether `source` holds a collection of the target named `target` at time t: a binary search
  // of the target's collections, O(log^2 N) pages (only asked of snapshots older than the newest).
  Result<bool> Holds(RecordSource& source, std::string_view target, int64_t t) const;

  static std::string SeriesKey(uint32_t target, std::string_view raw) {
    std::string k;
    SeriesKey(target, raw, k);
    return k;
  }
  // The same into `k` (its buffer reused).
  static void SeriesKey(uint32_t target, std::string_view raw, std::string& k) {
    k.assign(reinterpret_cast<const char*>(&target), sizeof target);
    k.append(raw);
  }
};

}  // namespace xtfq
