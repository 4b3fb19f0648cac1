// JobStatsView: a read-only view of the job_stats of a store (layouts/JobStatsLayout): targets,
// ops and series with their parsed job ids (the series table is read whole when the view
// opens), the span of the collections, the series and targets a filter selects, group keys, and
// the rate steps of a window (JobStatsWindowQuery and JobStatsHeatmapQuery are built on them).
//
// A window [t1, t2) (seconds) takes from each rate step [t0, t1') of a series the part of its
// change that falls inside (Part): Δv · |[t0, t1') ∩ [t1, t2)| / (t1' - t0), the exact integral
// of the step function.
//
// Thread-safety: one JobStatsView per thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "layouts/jobstats_layout.h"
#include "query/core/store_reader.h"
#include "store/summary.h"

namespace xtfq {

struct JobStatsSeriesInfo {
  uint32_t target = 0;
  JobIdClass cls = JobIdClass::kMalformed;
  int8_t tmpl = -1;
  bool quoted = false;
  int64_t first = 0;                                          // first collection (seconds)
  int64_t uid = INT64_MIN, gid = INT64_MIN, pid = INT64_MIN;  // INT64_MIN: absent
  std::string raw, job, node, exe;
};

enum class JobStatsKey { kJob, kUid, kNode, kTarget, kOp, kClass, kId };
Result<JobStatsKey> ParseJobStatsKey(std::string_view name);  // job uid node target op class id
std::string_view JobStatsKeyName(JobStatsKey k);

struct JobStatsFilter {
  std::vector<std::string> jobs, nodes, targets, ops, classes, ids;
  std::vector<int64_t> uids;
  // Whether the filter looks at series attributes (not only targets and ops).
  bool BySeries() const { return !jobs.empty() || !nodes.empty() || !classes.empty() || !ids.empty() || !uids.empty(); }
  bool operator==(const JobStatsFilter&) const = default;
};

class Primitives;

class JobStatsView {
 public:
  // kNotFound when the store holds no job_stats.
  static Result<std::unique_ptr<JobStatsView>> Open(StoreReader& reader);
  static bool Holds(const Store& store);

  StoreReader& reader() { return reader_; }
  const std::vector<std::string>& targets() const { return targets_; }
  const std::vector<std::string>& ops() const { return ops_; }
  const std::vector<JobStatsSeriesInfo>& series() const { return series_; }
  uint64_t collections() const;
  uint64_t entries() const;
  // First and last collection times; nullopt when there is none.
  Result<std::optional<std::pair<int64_t, int64_t>>> Span();
  // Per target (indexed as targets()): how many collections hold it, the first and the last. A
  // target's rate steps cover [first, last): its first collection is a baseline.
  struct TargetCollections {
    uint64_t count = 0;
    int64_t first = 0, last = 0;
  };
  Result<std::vector<TargetCollections>> Collections();
  // Whether the steps array of `op` holds a step of target g.
  Result<bool> HasSteps(const std::string& op, uint32_t g);

  // The series the filter keeps (empty vector: all), and the targets involved. The last selection
  // is kept: a report asks the same filter over many windows.
  Result<std::vector<char>> SelectSeries(const JobStatsFilter& filter) const;
  Result<std::vector<uint32_t>> SelectTargets(const JobStatsFilter& filter, const std::vector<char>& series) const;
  // The key of a step's group: the values of `by` joined by '\x1f' ("-" for what a series lacks).
  std::string GroupKey(const std::vector<JobStatsKey>& by, uint32_t series, uint32_t target,
                       const std::string& op) const;
  // Visits each step of `op` that overlaps [t1, t2) of the given targets (all when scanning) with
  // the series filter applied: fn(record); `read` counts the step records read.
  Status Steps(const ArrayDesc& steps, int64_t t1, int64_t t2, const std::vector<uint32_t>& targets,
               const std::vector<char>& series, bool scan, uint64_t& read,
               const std::function<void(const std::byte*)>& fn);
  // The same for callers that need only a target's total over each step's [t0, t1): fn gets block
  // records (JobStatsLayout::BlockSchema: t1, target, t0, flags, delta and rate where a step has
  // them) when the store has the block array's index, else step records. `read` counts records.
  Status Blocks(const ArrayDesc& steps, int64_t t1, int64_t t2, const std::vector<uint32_t>& targets, bool scan,
                uint64_t& read, const std::function<void(const std::byte*)>& fn);

  // Where a target's steps are found by time: the block array's per-target arrays, or in the
  // legacy layout the step array's own per-target copies; `array` nullptr when neither has a P
  // index (the steps are then read in time order).
  struct TargetIndex {
    const ArrayDesc* array = nullptr;
    bool blocks = false;
    // The steps in records [lo, hi) of a per-target array whose aggregate is s.
    uint64_t Steps(const Summary& s) const;
  };
  TargetIndex IndexOf(const ArrayDesc& steps) const;
  // Checks each block array against its steps (docs/format.md, invariant J3): the blocks, in time
  // order, tile the steps, and each holds its steps' target, t0, t1, count, flags, sums and
  // highest rate. kCorrupt names the first block that does not. Returns the steps checked.
  Result<uint64_t> VerifyBlocks();

  // The steps array of `op`; kNotFound says why there is none: no such op, an op whose values never
  // changed, or a store without two collections of any target yet.
  Result<const ArrayDesc*> StepsOf(const std::string& op) const;

  // The part of a step [t0, t1) of change `delta` inside [w1, w2): delta * overlap / (t1 - t0).
  static double Part(uint64_t delta, int64_t t0, int64_t t1, int64_t w1, int64_t w2);
  // The per-process array of target g in a steps array (nullptr when g has no record there).
  static Result<const ArrayDesc*> OfTarget(Primitives& p, uint32_t g);

 private:
  explicit JobStatsView(StoreReader& reader) : reader_(reader) {}
  Status Load();
  // Steps and Blocks: with whole_blocks (and no series filter), block records where the store has
  // them.
  Status Walk(const ArrayDesc& steps, int64_t t1, int64_t t2, const std::vector<uint32_t>& targets,
              const std::vector<char>& series, bool scan, bool whole_blocks, uint64_t& read,
              const std::function<void(const std::byte*)>& fn);
  // Every record of `steps` that ends after t1 (all when scanning), in time order.
  Status InTimeOrder(const ArrayDesc& steps, int64_t t1, bool scan, const std::function<void(const std::byte*)>& visit);
  // Each record of index's per-target arrays of `targets` that ends after t1 and starts before t2.
  Status TargetBlocks(const TargetIndex& index, int64_t t1, int64_t t2, const std::vector<uint32_t>& targets,
                      const std::function<Status(const std::byte*)>& fn);

  StoreReader& reader_;
  std::vector<std::string> targets_, ops_;
  std::vector<JobStatsSeriesInfo> series_;
  mutable std::optional<std::pair<JobStatsFilter, std::vector<char>>> selected_;  // SelectSeries' last
};

}  // namespace xtfq
