// JobStatsGenerator: synthetic `lctl get_param mdt.*.job_stats obdfilter.*.job_stats` snapshots
// of a file system under a Puhti-like load (seed 001, ../shared/docs/lustre-jobstats.md), with
// the ground truth an exact importer must give back.
//
// Targets: target 0 is an MDT (when there are two or more), the rest OSTs, four per server; one
// snapshot file per server and collection, "<server>-<epoch>.txt" in lctl framing, printed in the
// chosen variant's grammar (A: 2.6-2.13, B: 2.14.0, C: EXAScaler 6, D: 2.15.0-2.15.1 with its
// since-boot header, E1: 2.15.2+ with \xHH escapes, E2: 2.16, F: 2.17 where an empty target
// prints nothing). Job ids: compute entries "%j:%u:%H", login and system entries "%e.%u" (uid
// 0 for daemons), missing jobs, FQDN nodes, ids cut at 31 bytes, and a share of malformed ids
// (characters overwritten, as Puhti saw). Jobs come and go; an entry idle for
// job_cleanup_interval (600 s) is purged and re-created when it is active again; a share of
// entries is cleared (a reset) and a share of collections is missed.
//
// Ground truth, written beside the snapshots:
//   truth_steps.csv   target,id,op,t0,t1,delta: the change of each op's value (bytes for bytes
//                     counters, else events) between consecutive collections the files hold,
//                     from the activity the generator drew (never from differencing counters)
//   truth_series.csv  target,id,class,job,uid,node
// Resets are drawn only where a reader can see them (start_time changed, or every counter went
// down), and an entry comes back after a purge only once a written collection showed it gone.
//
// Write() checks the options and creates dir; JobStatsGenRun (jobstats_gen_run.h) draws and writes,
// and JobStatsGenGrammar (jobstats_gen_grammar.h) prints each variant.
//
// Thread-safety: a generator is used by one thread.
#pragma once

#include <cstdint>
#include <string>

#include "gen/jobstats_gen_output.h"
#include "store/result.h"

namespace xtfq {

struct JobStatsGenOptions {
  uint32_t targets = 4, jobs = 20, samples = 30;
  int64_t interval = 120;
  int64_t start = 1767225600;  // 2026-01-01T00:00:00Z
  std::string variant = "E2";  // A B C D E1 E2 F
  double malformed_rate = 0.01, reset_rate = 0.01, missing_rate = 0.02;
  uint64_t seed = 1;
  std::string fs = "scratch";
  // Every job on every target for the whole run (targets x jobs x samples entries, less the
  // first collection, idle collections and purges): the scale shape of issue 17.
  bool dense = false;
};

struct JobStatsGenStats {
  uint64_t files = 0, entries = 0, series = 0, steps = 0, resets = 0, purges = 0, missed = 0;
};

class JobStatsGenerator {
 public:
  // The snapshot files and truth files of `options` in dir (created).
  static Result<JobStatsGenStats> Write(const JobStatsGenOptions& options, const std::string& dir);
  // The same snapshots and truth given to out as they are made (JobStatsGenOutput).
  static Result<JobStatsGenStats> Stream(const JobStatsGenOptions& options, JobStatsGenOutput& out);
  static bool KnownVariant(std::string_view v);
};

}  // namespace xtfq
