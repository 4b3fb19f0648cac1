// JobStatsStore: the job_stats of a store (layouts/JobStatsLayout) for queries: targets, ops and
// series with their parsed job ids; window totals and rates grouped by job, uid, node, target,
// op, class or raw id; the seed's log-binned heatmap.
//
// A window [t1, t2) (seconds) takes from each rate step [t0, t1') of a series the part of its
// change that falls inside: Δv · |[t0, t1') ∩ [t1, t2)| / (t1' - t0), the exact integral of the
// step function. rate_mean is the total over (t2 - t1); rate_max the highest rate of a step that
// overlaps the window.
//
// Cost. Totals grouped by target and op only (filters by target and op) come from the TN tree of
// each (op, target) per-process array: at most six descents per target and op, whatever the window
// holds. Grouping by series attributes (job, uid, node, class, id), or filtering by them, reads
// the window's steps of the targets involved (one descent per leaf page). --scan reads every step
// (the flat-scan baseline). The series table is read whole when the store is opened.
//
// Thread-safety: one JobStatsStore per thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "query/store_reader.h"
#include "layouts/jobstats_layout.h"

namespace xtfq {

struct JobStatsSeriesInfo {
  uint32_t target = 0;
  JobIdClass cls = JobIdClass::kMalformed;
  int8_t tmpl = -1;
  bool quoted = false;
  int64_t first = 0;                                // first collection (seconds)
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
};

struct JobStatsOpResult {
  double total = 0;     // events or bytes in the window
  double rate_max = 0;  // per second
  uint64_t steps = 0;   // steps that overlap the window
};

struct JobStatsGroup {
  std::vector<std::string> keys;                 // in --by order
  std::map<std::string, JobStatsOpResult> ops;   // by op name
};

struct JobStatsWindow {
  int64_t t1 = 0, t2 = 0;
  std::vector<std::string> ops;  // the ops asked for (or all), in store order
  std::vector<JobStatsGroup> groups;  // sorted by keys
  bool indexed = false;               // answered from index aggregates (no step read)
  uint64_t steps_read = 0;            // step records read one by one
};

struct JobStatsHeatmap {
  int64_t t1 = 0, t2 = 0, step = 0;
  double base = 2;
  std::string op;
  uint64_t groups = 0;  // step functions binned
  struct Cell {
    int64_t t = 0;  // the cell's start
    int k = 0;      // rates in [base^k, base^(k+1))
    uint64_t count = 0;
  };
  std::vector<Cell> cells;  // non-zero cells, by t then k
};

class JobStatsStore {
 public:
  // kNotFound when the store holds no job_stats.
  static Result<std::unique_ptr<JobStatsStore>> Open(StoreReader& reader);
  static bool Holds(const Store& store);

  const std::vector<std::string>& targets() const { return targets_; }
  const std::vector<std::string>& ops() const { return ops_; }
  const std::vector<JobStatsSeriesInfo>& series() const { return series_; }
  uint64_t collections() const;
  uint64_t entries() const;
  // First and last collection times; nullopt when there is none.
  Result<std::optional<std::pair<int64_t, int64_t>>> Span();

  Result<JobStatsWindow> Window(int64_t t1, int64_t t2, const JobStatsFilter& filter, const std::vector<JobStatsKey>& by,
                                bool scan = false);
  // z_b(t, k) over cells of `step` seconds from t1: the number of step functions (one per group
  // of `by`; per series when empty) whose rate, resampled onto the cell with its integral kept,
  // lies in [base^k, base^(k+1)). Zero rates are in no bin.
  Result<JobStatsHeatmap> Heatmap(int64_t t1, int64_t t2, int64_t step, const std::string& op, double base,
                                  const JobStatsFilter& filter, const std::vector<JobStatsKey>& by);

 private:
  explicit JobStatsStore(StoreReader& reader) : reader_(reader) {}
  Status Load();
  // The series the filter keeps (empty vector: all), and the targets involved.
  Result<std::vector<char>> SelectSeries(const JobStatsFilter& filter) const;
  Result<std::vector<uint32_t>> SelectTargets(const JobStatsFilter& filter, const std::vector<char>& series) const;
  std::string GroupKey(const std::vector<JobStatsKey>& by, uint32_t series, uint32_t target, const std::string& op) const;
  // Visits each step of `op` that overlaps [t1, t2) of the given targets (all when scanning) with
  // the series filter applied: fn(record).
  Status Steps(const ArrayDesc& steps, int64_t t1, int64_t t2, const std::vector<uint32_t>& targets,
               const std::vector<char>& series, bool scan, uint64_t& read, const std::function<void(const std::byte*)>& fn);

  StoreReader& reader_;
  std::vector<std::string> targets_, ops_;
  std::vector<JobStatsSeriesInfo> series_;
};

}  // namespace xtfq
