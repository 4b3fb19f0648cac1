// SlurmProfileWriter: a synthetic Slurm job profile, written as Slurm 22.05's
// acct_gather_profile/hdf5 plugin writes one (docs/plan-slurm.md, section 1.1), with the ground
// truth an exact importer must give back. `xtfq gen slurm` runs it.
//
// The job: `nodes` nodes n1..nN, `tasks` tasks on each (global task ids 0..N*T-1, task k on node
// k / T), one srun step 0 on every node and the batch step on n1. Files in `dir`:
//   <job>_0_<node>.h5, <job>_batch_n1.h5  node-step files: "/<node>" with its five attributes
//       (Node Index I32, Node Name, Number of Tasks I32, CPUs per Task I32, Start Time of 24
//       characters), "/<node>/Tasks/<task>", "/<node>/Network", "/<node>/Filesystem": compound
//       datasets of little-endian U64 and F64 fields, chunked 10 records a chunk, deflate level 0,
//       unlimited maxdims, superblock version 0
//   job_<job>.h5 (`merged`)  as `sh5util -S -j <job>` makes it: "/" with "Number of Steps",
//       "/Steps/<batch|0>/Nodes/<node>" copies of the node groups (H5Ocopy, as sh5util does);
//       "Number of Nodes" on every step but the last merged (0), sh5util's bug
//   truth.csv  one line per node-step dataset: file, dataset, step, node, task, kind, rows,
//       start, and the totals of what its rows hold (bytes, CPU seconds, counts)
//   truth_rows.csv (`truth_rows`)  one line per node-step dataset row: file, dataset, row and its
//       values in the dataset's field order (integers in decimal, doubles as %.17g)
//
// The 22.05 behaviour modelled: every series starts at the step's start (EpochTime - ElapsedTime
// = `start`, Start Time is `start` in UTC); Tasks rows at ElapsedTime 1, 1 + I, ... and their
// last row written twice at the same time (Slurm's final poll; the repeat carries a small delta
// or none, and CPUUtilization 0); row 0 of Tasks has zero deltas and CPUFrequency 0 (a
// CPU-time-weighted average that ramps); CPUTime in hundredths of a second; CPUUtilization =
// 100 x CPUTime / interval; ReadMB and WriteMB = whole bytes / 2^20 (exact doubles); RSS varies,
// VMSize and Pages never fall (no process exits); Network (sysfs, node-wide) with two rows at
// ElapsedTime 0, bytes under PacketsIn/Out and packets / 2^16 under InMB/OutMB, per interval;
// Filesystem (lustre, node-wide) at ElapsedTime 0, I, ... as running totals from 0 (Slurm up to
// 25.05). The batch step's Network and Filesystem are the same counters as step 0's on n1. The
// same options give the same values.
//
// Thread-safety: the serial HDF5 library is not thread-safe; one writer at a time per process.
#pragma once

#include <cstdint>
#include <string>

#include "store/result.h"

namespace xtfq {

struct SlurmGenOptions {
  int64_t job = 1;
  int64_t start = 1795319205;  // 2026-11-22T03:46:45Z, the start of job 100 of ../shared/data/slurm
  uint32_t nodes = 2, tasks = 2, samples = 60;
  int64_t interval = 10;  // seconds between samples
  uint64_t seed = 1;
  bool merged = false;      // also job_<job>.h5, as sh5util -S merges
  bool truth_rows = false;  // also truth_rows.csv, every row's values
};

struct SlurmGenStats {
  uint64_t files = 0, datasets = 0, rows = 0;  // HDF5 files; the node-step files' datasets and rows
  uint64_t bytes = 0;                          // of the HDF5 files
};

class SlurmProfileWriter {
 public:
  // Creates `dir` (and its parents) and writes the files there, replacing files of the same names.
  // Options that make no profile (no nodes, tasks or samples, an interval below 1 s, a job or time
  // out of range) are a kUsage error.
  static Result<SlurmGenStats> Write(const SlurmGenOptions& options, const std::string& dir);
};

}  // namespace xtfq
