// SlurmWindowQuery: Slurm profile totals of a window, grouped by job, step, node or task (`xtfq
// query STORE --slurm`, and the Slurm lanes of `xtfq job`).
//
// What a row means. A Slurm sample at EpochTime t holds deltas (CPUTime, ReadMB, WriteMB; the
// Filesystem changes; Network bytes and packets) accrued over [t - interval, t), interval being
// the seconds since the row before it in its series (docs/format.md, "Slurm tasks record"), and
// levels (RSS, VMSize) as they stood at t. Row 0 and repeats have interval 0: their deltas are
// points at t.
//
// Window rule (prorate, the default): a window [t1, t2) takes of each delta the share of
// [t - interval, t) it covers (a point at t counts when t1 <= t < t2), as job_stats rates are
// integrated; windows that tile a span partition its totals. The sample rule (prorate false)
// counts a row whole in the window that holds t. Levels are the maximum over rows with t in the
// window, either way.
//
// Cost. The sample rule is one TN-tree or P-index aggregate per group run of series (consecutive
// series ids of a group): O(log N) per run, whatever the window holds. Prorating adds the rows
// within the array's largest interval after each edge (`edge_rows`). `scan` reads every row of
// the arrays involved and prorates each (the flat-scan baseline).
//
// Network and Filesystem series are node-wide (every process on the node). When a job has such
// series of several steps on one node (the batch step's and step 0's counters are the same
// counters), a grouping without `step` takes one series per (job, node, kind), the one with the
// most rows, and the answer notes the others.
//
// Thread-safety: one thread at a time (shares the view's reader).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "query/slurm/slurm_view.h"

namespace xtfq {

enum class SlurmKey : uint8_t { kJob, kStep, kNode, kTask };

struct SlurmGroup {
  uint8_t kind = 0;               // SlurmLayout::kTasks, kNetwork, kFilesystem
  std::vector<std::string> keys;  // in `by` order
  uint32_t series = 0;            // series summed
  uint64_t rows = 0;              // rows with t in the window
  std::vector<double> totals;     // SlurmWindowQuery::Metrics(kind) order
  // Tasks: the highest RSS and VMSize of one series' row in the window (KiB, as Slurm gives them; 0
  // without rows).
  uint64_t rss_max = 0, vmsize_max = 0;
};

struct SlurmWindow {
  int64_t t1 = 0, t2 = 0;
  bool prorate = true;
  std::vector<SlurmGroup> groups;  // by kind, then keys
  std::vector<std::string> notes;
  // A window (Run) partly or wholly outside the selected series' samples: its zeros there are no
  // data, not no I/O.
  std::vector<std::string> warnings;
  uint64_t edge_rows = 0;  // rows read one by one at the window's edges (prorating), or by the scan
};

struct SlurmWindowRequest {
  std::string time = ":";  // --time, epoch frame (query/core/time_window.h)
  std::vector<std::string> by;
  SlurmFilter filter;
  bool prorate = true;
  bool scan = false;
};

class SlurmWindowQuery {
 public:
  // The metrics of a kind, all deltas summed over the window: tasks read_bytes, write_bytes,
  // cpu_s; fs read_bytes, write_bytes, reads, writes; net in_bytes, out_bytes, in_packets,
  // out_packets.
  static const std::vector<std::string_view>& Metrics(uint8_t kind);
  static Result<std::vector<SlurmKey>> ParseKeys(const std::vector<std::string>& by);
  static std::string_view KeyName(SlurmKey k);

  static Result<SlurmWindow> Run(SlurmView& view, const SlurmWindowRequest& request);
  // The groups of the series `selected` marks over [t1, t2) (INT64_MIN / INT64_MAX: open).
  static Result<SlurmWindow> Compute(SlurmView& view, int64_t t1, int64_t t2, const std::vector<char>& selected,
                                     const std::vector<SlurmKey>& by, bool prorate = true, bool scan = false);
};

}  // namespace xtfq
