// JobStatsGenRun: one run of JobStatsGenerator (see jobstats_generator.h for what it writes): the
// targets, the jobs and their series, the collection loop and the ground truth, with the variant's
// printing left to JobStatsGenGrammar.
//
// Same options and seed, same bytes. One std::mt19937_64 seeded with options.seed makes every
// draw, and the draws happen in this order (changing it changes every file):
//   1. per job: its start and end sample (not when dense), its uid, its node, the exe (login and
//      system entries), the malformed draw (not for truncated ids), the number of OSTs it touches
//      (not when dense);
//   2. per collection: whether each server was collected (none at collection 0), then per series
//      in order: whether it is active (only inside its job's samples), whether it is reset (only
//      when present and its server was written this time and last time), and when active: its
//      start_time (when not present), its last update, then per driven op whether it moves, its
//      event count and per event the size class and (for events) the value.
// Rendering the snapshots and the truth draws nothing.
//
// Invariants:
//   1. One series per (target, id): a later job printing the same id on a target adds none.
//   2. A series' `pending` holds the change of each op since its target's last written collection
//      and is cleared when that target is written.
//   3. A purged series comes back only after a written collection showed it gone (purge_seen).
//
// Thread-safety: a run is used by one thread.
#pragma once

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gen/jobstats_gen_grammar.h"
#include "gen/jobstats_gen_output.h"
#include "gen/jobstats_generator.h"
#include "store/result.h"

namespace xtfq {

class JobStatsGenRun {
 public:
  // Gives the snapshots and truth of `options` to out, in the order JobStatsGenOutput says.
  // REQUIRES: options.variant is known; options.targets, samples and interval are positive.
  static Result<JobStatsGenStats> Write(const JobStatsGenOptions& options, JobStatsGenOutput& out);

 private:
  using Op = JobStatsGenGrammar::Op;
  using Counter = JobStatsGenGrammar::Counter;
  static constexpr int64_t kNotWritten = std::numeric_limits<int64_t>::min();

  struct Target {
    std::string name, param;
    bool mdt = false;
    uint32_t server = 0;
    std::vector<Op> ops;
    int64_t last_written = kNotWritten;  // the collection time of its last written snapshot
  };
  struct Job {
    uint32_t start = 0, end = 0;  // samples [start, end)
    int kind = 0;                 // j % 20: 0 login, 1 system, 2 missing job, 3 FQDN, 4 cut, else compute
    std::string id, cls, job, uid, node;
  };
  struct Series {
    uint32_t target = 0;
    std::string id, cls, job, uid, node;
    uint32_t job_index = 0;
    bool present = false, purge_seen = true, reset_pending = false;
    int64_t start_time = 0, last_active = 0, last_update = 0;
    std::vector<Counter> cum;       // per printed op of the target
    std::vector<uint64_t> pending;  // truth: value change since the last written collection
  };

  JobStatsGenRun(const JobStatsGenOptions& options, JobStatsGenOutput& out);
  Result<JobStatsGenStats> Run();

  double Uniform();
  uint64_t Pick(uint64_t n);  // uniform in [0, n)
  bool HasMdt() const { return options_.targets >= 2; }

  // Targets, jobs and series.
  void BuildTargets();
  void DrawJobs();
  Job DrawJob(uint32_t j);
  void NameJob(Job& job, uint32_t j, uint64_t uid, const std::string& node);
  static void Malform(Job& job);
  std::vector<uint32_t> DrawJobTargets(uint32_t j);
  void AddSeries(uint32_t j, const std::vector<uint32_t>& on);
  void DropDuplicateSeries();

  // The collection loop.
  Status Collect(uint32_t k);
  void DrawCollectedServers(uint32_t k);
  void DrawActivity(Series& s, uint32_t k, int64_t base_t);
  bool DrawActive(const Series& s, uint32_t k);
  void DrawReset(Series& s, uint32_t k, int64_t prev_c);
  void DrawUpdate(Series& s, int64_t c, int64_t prev_c);
  void DrawOpActivity(Series& s, size_t i);
  void DrawEvent(Counter& counter);
  uint64_t DrawTransfers(uint64_t count, Counter& counter);
  void PurgeIfIdle(Series& s, int64_t c);
  static bool Driven(const Target& target, std::string_view op);
  void RenderTarget(uint32_t g, int64_t c, std::string& text);
  Status RecordSteps(uint32_t g, int64_t c);

  JobStatsGenOptions options_;
  JobStatsGenOutput& out_;
  JobStatsGenGrammar grammar_;
  std::mt19937_64 rng_;
  std::vector<Target> targets_;
  uint32_t servers_ = 0;
  std::vector<Job> jobs_;
  std::vector<Series> series_;
  std::vector<std::vector<uint32_t>> of_target_;  // per target: its series, in series_ order
  std::vector<char> written_, written_before_;    // per server: collected this time, last time
  JobStatsGenStats stats_;
  std::string body_;  // the entries of the target being rendered (kept for its capacity)
};

}  // namespace xtfq
