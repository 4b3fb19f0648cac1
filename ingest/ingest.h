// Ingest: the one path from input files to a committed store with its derived summaries, used by
// `xtfq import` and `xtfq collect --store` (and whatever else fills a store):
//   1. Plan: the files of the inputs (directories expanded by ImporterRegistry::Expand, whose
//      files left out the caller names), each's format (given, or sniffed from its first bytes),
//      grouped by format; job_stats snapshots on their own, one kind of Slurm input at a time;
//   2. ImportAndCommit: each group through its importer into the writer, then one commit, or none
//      when nothing was added to a store that exists (every input skipped, or already held); on an
//      error nothing is committed and the writer is left for the caller to drop;
//   3. Derive: the summaries computed from what is committed, in a commit of their own: job_stats
//      summaries extended to the new seal for a store of job_stats, grid summaries of every array
//      that lacks them otherwise. A failure here leaves the records committed without them (queries
//      then read the steps, or answer per process).
//
// Thread-safety: one thread; the writer is the caller's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "importers/common/importer.h"
#include "query/grid/grid_builder.h"
#include "query/jobstats/jobstats_summary.h"
#include "store/store_writer.h"

namespace xtfq {

struct InputGroup {
  std::string format;  // an ImporterRegistry format; "darshan-any": each Darshan input sniffed again
  std::vector<std::string> inputs;
};

struct IngestPlan {
  std::vector<InputGroup> groups;  // in the order of their first input
  bool jobstats() const { return groups.size() == 1 && groups[0].format == "jobstats"; }
  std::vector<std::string> formats() const;
};

struct IngestReport {
  std::vector<ImportReport> groups;  // each group's report (its notes and warnings), in order
  ImportReport total;                // their counts summed (totals: the last one's)
  std::string slurm_totals;          // the Slurm importers' totals, "; "-joined
  bool committed = false;            // false: nothing new for a store that existed
};

struct DeriveReport {
  std::optional<GridBuildReport> grids;             // a store of other records
  std::optional<JobStatsSummaryReport> jobstats;    // a store of job_stats
  bool committed = false;                           // something was built and committed
};

class Ingest {
 public:
  // `path`: the store the writer writes (the derived summaries read its last commit from it).
  Ingest(StoreWriter& writer, std::string path, ImportOptions options)
      : writer_(writer), path_(std::move(path)), options_(std::move(options)) {}

  StoreWriter& writer() const { return writer_; }

  // `files`: the inputs as ImporterRegistry::Expand gives them. kInvalidArgument when there is
  // none, kUsage for mixed job_stats or Slurm inputs, an error naming the file that cannot be
  // read or sniffed.
  static Result<IngestPlan> Plan(const std::vector<std::string>& files, const std::string& format);
  // `existing`: the store's committed records (nullptr: a new store).
  Result<IngestReport> ImportAndCommit(const std::vector<InputGroup>& groups, RecordSource* existing);
  // `read_ahead`: grid passes read pages on a second thread.
  Result<DeriveReport> Derive(bool jobstats, bool read_ahead);

 private:
  // Records and arrays the writer would commit.
  uint64_t PendingChanges() const;

  StoreWriter& writer_;
  std::string path_;
  ImportOptions options_;
};

}  // namespace xtfq
