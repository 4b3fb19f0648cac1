// JobTimeline: what a set of stores knows of one job, on the wall clock (`xtfq job ID STORE...`):
// its Darshan logs (what the application asked for), the job_stats rates of the same job id on
// each target (what the file system saw, and the job's share of each target's load), and its
// Slurm task series (what the node's counters saw), cut into the same windows of epoch seconds.
//
// Matching, by job id and time (ids are reused): Slurm series of job ID anchor the span (from the
// first sample's start, EpochTime - ElapsedTime, to the last sample); a Darshan log whose header's
// job id is ID counts when its run overlaps that span (a minute of slack), else it is left out and
// named; a job_stats series whose job (the %j of its jobid_name) is ID counts within the span, and
// a note gives its bytes outside it. Without Slurm, the Darshan logs' runs make the span; with
// neither, the job_stats collections. A source with nothing for the job says so, with what the
// store does hold.
//
// Window rules (each source keeps its own, stated in the answer): a Darshan DXT segment's bytes
// are spread over its duration (DxtWindowSpread), its operation counts in the window holding its
// start; a job_stats total is the exact integral of the rate step
// functions over the window (JobStatsWindowQuery); a Slurm row's deltas, accrued over the interval
// since the row before it, count in proportion to the part of that interval a window covers
// (SlurmWindowQuery). So each source's windows partition its own totals over the span.
//
// Thread-safety: one thread at a time (shares the readers' caches).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "query/core/store_reader.h"
#include "query/darshan/rank_imbalance.h"

namespace xtfq {

struct JobTimelineRequest {
  int64_t job = 0;
  std::optional<double> window_s;  // window width in seconds (default: the span in at most max_windows)
  uint32_t max_windows = 60;
};

// One job_stats target in one window: the job's bytes there and the target's (every job's).
struct JobTargetLoad {
  std::string store, target;
  double job_read = 0, job_write = 0, target_read = 0, target_write = 0;
  // The job's share of the target's bytes (read + written); nullopt when the target moved none.
  std::optional<double> Share() const;
};

struct JobWindow {
  int64_t t1 = 0, t2 = 0;  // epoch seconds, half-open
  // Darshan (every matched log): bytes and operations; nullopt without a log. Operations only
  // where they are known (DXT, or counters exact for the window), not spread from counters.
  std::optional<int64_t> darshan_read, darshan_write;
  std::optional<uint64_t> darshan_ops;
  // Some log's bytes here are spread from its counter records over their time spans (a log with
  // neither DXT nor HEATMAP, a window inside its run): an estimate.
  bool darshan_estimated = false;
  // Stragglers: how unevenly the ranks shared the window's I/O (the log, of several, whose
  // slowest rank was busiest); nullopt without I/O in the window or where operations are unknown.
  std::optional<RankImbalance> darshan_ranks;
  int64_t darshan_ranks_log = 0;
  std::vector<JobTargetLoad> targets;  // job_stats: the targets the job touched
  // Slurm task series: bytes (ReadMB/WriteMB x 2^20), CPU seconds, rows; nullopt without series.
  std::optional<double> slurm_read, slurm_write;
  std::optional<double> slurm_cpu;
  uint64_t slurm_rows = 0;
  // Slurm Filesystem and Network series (node-wide: every process on the job's nodes), the
  // metrics of SlurmWindowQuery::Metrics(kFilesystem / kNetwork); nullopt without such series.
  std::optional<std::vector<double>> slurm_fs, slurm_net;
};

struct JobSource {
  std::string kind;   // "darshan", "jobstats", "slurm"
  std::string store;  // the store's path ("" when no store holds this kind)
  bool found = false;
  std::string detail;  // what was found, or why nothing was
};

struct JobTimelineAnswer {
  int64_t job = 0;
  int64_t t1 = 0, t2 = 0;  // the span, epoch seconds
  double window_s = 0;
  std::vector<JobSource> sources;
  std::vector<JobWindow> windows;
  JobWindow totals;                // over the span (t1, t2)
  std::vector<std::string> notes;  // the window rules, and what the user should know
  // Whether some store holds something of the job; when none does, why, per source.
  bool any() const;
  std::string NotFound() const;
};

class JobTimeline {
 public:
  // When no store holds anything of the job, an answer with no windows whose sources say why
  // (any() is false).
  static Result<JobTimelineAnswer> Run(const std::vector<StoreReader*>& stores, const JobTimelineRequest& request);
};

}  // namespace xtfq
