// Importer: the one interface `xtfq import` and `xtfq collect` dispatch through. An importer turns
// a list of input files of its format into records pushed to a RecordSink; it reads what the
// store already holds through a RecordSource when it must continue from it (job_stats rates, the
// next Darshan log number). It never commits: the caller commits once, or not at all when an
// input fails (the store then stays at its previous generation).
//
// Formats: "events" (32-byte events, one file per array), "darshan" (binary logs and
// darshan-parser text, each input sniffed; "darshan-text" forces text), "jobstats" (snapshot files
// or directories, imported in collection order). ImporterRegistry
// (importers/registry/importer_registry.h) builds one (Make) and tells an input's format from its
// name and first bytes (Sniff); this file includes no format's importer, so every format's room
// includes it. ExpandInputs lists a directory's inputs with the sniffer it is given.
//
// Thread-safety: one import per sink at a time.
#pragma once

#include <cstdint>
#include <functional>
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

  // The files of a list of inputs (ExpandInputs).
  struct Inputs {
    std::vector<std::string> files;
    std::vector<std::string> skipped;
  };
};

// Tells an input's format from its path and first bytes ("events", "jobstats", "darshan",
// "darshan-text", "slurm-hdf5", "slurm-influx"), or an error naming the file when it is none of
// them: ImporterRegistry::Sniff, handed to the importers that sniff their inputs.
using InputSniffer = std::function<Result<std::string>(const std::string& path)>;

// The files of `inputs`: a file as it is; a directory's regular files by name, its
// subdirectories' too (hidden ones are left out and listed in `skipped`), each sniffed by `sniff`,
// and those that are not inputs (of `format`, unless "auto") left out and listed in `skipped` with
// the reason ("DIR/README.md: not ..."), so that a README beside the snapshots or the logs
// neither aborts the import nor is lost silently.
Result<Importer::Inputs> ExpandInputs(const std::vector<std::string>& inputs, std::string_view format,
                                      const InputSniffer& sniff);

}  // namespace xtfq
