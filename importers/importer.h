// Importer: the one interface `xtfq import` and `xtfq collect` dispatch through. An importer turns
// a list of input files of its format into records pushed to a RecordSink; it reads what the
// store already holds through a RecordSource when it must continue from it (job_stats rates, the
// next Darshan log number). It never commits: the caller commits once, or not at all when an
// input fails (the store then stays at its previous generation).
//
// Formats: "events" (32-byte events, one file per array), "darshan" (binary logs and
// darshan-parser text, each input sniffed; "darshan-text" forces text), "jobstats" (snapshot files
// or directories, imported in collection order). Make() builds one; Sniff() tells an input's
// format from its name and first bytes.
//
// Thread-safety: one import per sink at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/progress.h"
#include "store/record_sink.h"
#include "store/record_source.h"
#include "store/result.h"

namespace xtfq {

struct ImportOptions {
  std::string array = "events";           // events: the array to create
  size_t sort_memory = size_t{64} << 20;  // Darshan: bytes of records sorted in memory before runs spill
  std::string temp_dir = "/tmp";          // Darshan: where spilled runs go
  std::vector<std::string> jobid_names;   // job_stats: jobid_name templates (default '%j:%u:%H', '%e.%u', '%j')
  std::string target;                     // job_stats: the target of a plain cat of one job_stats file
  std::optional<double> at;               // job_stats: the collection time of every input
  Progress* progress = nullptr;           // told of the bytes of the inputs read (nullptr: none)
  // Slurm: the version that wrote the profiles (the files do not say): up to 25.05 the lustre
  // gatherer's Filesystem series are running totals, from 25.11 per-interval deltas.
  std::string slurm_version = "22.05";
  // job_stats: read and parse the next snapshot on a second thread while one is imported.
  bool parse_ahead = true;
  // Darshan: import an input that is byte for byte a log the store holds or an earlier input of the
  // run (otherwise skipped with a warning: it would count the run twice).
  bool keep_duplicates = false;
};

struct ImportReport {
  uint64_t inputs = 0, records = 0, segments = 0, source_bytes = 0;
  std::vector<std::string> notes;     // one line per input worth naming ("x as Darshan log 0: ...")
  std::vector<std::string> warnings;  // what was read but skipped, with file and line
  std::string totals;                 // the format's own totals, for the summary line ("" when none)
  uint64_t entries = 0, steps = 0;    // job_stats: entries read, rate steps written
};

class Importer {
 public:
  virtual ~Importer() = default;
  virtual std::string_view format() const = 0;
  // Appends `inputs` to `sink`. `existing`: the store's committed records (nullptr: a new store).
  virtual Result<ImportReport> Import(const std::vector<std::string>& inputs, RecordSink& sink,
                                      RecordSource* existing) = 0;

  // kUsage for an unknown format.
  static Result<std::unique_ptr<Importer>> Make(std::string_view format, const ImportOptions& options);
  // The files of `inputs`: a file as it is; a directory's regular files by name, its
  // subdirectories' too (hidden ones are left out and listed in `skipped`), each sniffed, and
  // those that are not inputs (of `format`, unless "auto") left out and listed in `skipped` with
  // the reason ("DIR/README.md: not ..."), so that a README beside the snapshots or the logs
  // neither aborts the import nor is lost silently.
  struct Inputs {
    std::vector<std::string> files;
    std::vector<std::string> skipped;
  };
  static Result<Inputs> Expand(const std::vector<std::string>& inputs, std::string_view format);
  // The page size of a new store whose first import is of `formats` (Groups' names: "events",
  // "darshan-any", "darshan", "darshan-text", "jobstats", "slurm-..."): 8 KiB when every input is a
  // Darshan log or job_stats, 4 KiB otherwise (docs/format.md, "The file"). A DXT segment is 68
  // bytes, so a 4 KiB page holds 59 of them, and a process's copy of a rank's few hundred segments
  // is a handful of pages, each paying its header and compressing alone: at 8 KiB the
  // 10^6-segment log's store is 12% smaller (3.27x -> 2.87x the log), the 28 real logs' 5%, while a
  // window over all ranks sums twice the records at its edges (1.2x warm, no more pages read
  // cold). job_stats stores are 9-10% smaller at 8 KiB (imported at once or a collection at a
  // time, as `collect` does); the summaries and steps paths are as fast warm, and windows read half
  // the pages cold (an import takes job_stats alone, never mixed with Darshan logs). The 32-byte
  // events keep 4 KiB: there 8 KiB saves 4% and costs 1.2-1.35x warm on the shared benchmark's
  // Q1-Q4. Slurm profiles (a few KiB of samples a job) keep 4 KiB too: nothing measured gains.
  static uint32_t PageSizeFor(const std::vector<std::string>& formats);
  // "events" (.bin), "jobstats" (a directory, or job_stats text), "darshan" (a binary log),
  // "darshan-text" (darshan-parser text); an error naming the file when it is none of them.
  static Result<std::string> Sniff(const std::string& path);
};

}  // namespace xtfq
