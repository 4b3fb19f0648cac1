// JobStatsInput: job_stats snapshots (files, or directories of them) appended to a store by
// `xtfq import --format jobstats` and `xtfq collect --store`: reads the store's state
// (importers/JobStatsState::Load), orders the snapshots by collection time, imports each, and prints
// every skipped entry as a warning naming its file and line (nothing is dropped silently).
//
// Thread-safety: as Command.
#pragma once

#include <string>
#include <vector>

#include "importers/jobstats_importer.h"
#include "store/store_writer.h"

namespace xtfq::cli {

class JobStatsInput {
 public:
  // Regular files of the inputs (a directory gives its files, except *.csv, by name).
  static Result<std::vector<std::string>> Expand(const std::vector<std::string>& inputs);
  // Whether the first bytes look like job_stats text.
  static bool LooksLikeJobStats(std::string_view head);
  // Appends the snapshots to the store `w` writes (at `path`; `exists`: it had committed data).
  // Does not commit.
  static Result<JobStatsImportStats> Import(StoreWriter& w, const std::string& path, bool exists,
                                            const std::vector<std::string>& files, const JobStatsImportOptions& options);
};

}  // namespace xtfq::cli
