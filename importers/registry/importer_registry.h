// ImporterRegistry: the floor above the formats' importers, the one place that knows every format.
// It builds the Importer of a format (Make), tells an input's format from its name and first bytes
// (Sniff), lists a directory's inputs (Expand: ExpandInputs with Sniff) and chooses a new store's
// page size (PageSizeFor). `xtfq import` and `xtfq collect` dispatch through it; the importers that
// sniff their inputs (DarshanFileImporter, JobStatsFileImporter, SlurmHdf5Importer,
// SlurmInfluxImporter) are handed Sniff by Make, so no format's room includes this one.
//
// Thread-safety: the functions keep no state; any thread may call them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "importers/common/importer.h"
#include "store/result.h"

namespace xtfq {

class ImporterRegistry {
 public:
  // kUsage for an unknown format.
  static Result<std::unique_ptr<Importer>> Make(std::string_view format, const ImportOptions& options);
  // The files of `inputs`, each sniffed by Sniff (ExpandInputs, importers/common/importer.h): a
  // file as it is; a directory's regular files by name, its subdirectories' too (hidden ones are
  // left out and listed in `skipped`), and those that are not inputs (of `format`, unless "auto")
  // left out and listed in `skipped` with the reason ("DIR/README.md: not ..."), so that a README
  // beside the snapshots or the logs neither aborts the import nor is lost silently.
  static Result<Importer::Inputs> Expand(const std::vector<std::string>& inputs, std::string_view format);
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
  // "darshan-text" (darshan-parser text), "slurm-hdf5", "slurm-influx"; an error naming the file
  // when it is none of them. An InputSniffer.
  static Result<std::string> Sniff(const std::string& path);
};

}  // namespace xtfq
