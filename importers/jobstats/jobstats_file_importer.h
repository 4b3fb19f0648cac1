// JobStatsFileImporter: the Importer of job_stats snapshots (files, or directories of them):
// continues from what the store holds (JobStatsState::Load), orders the snapshots by collection
// time (--at, a "# collected_at:" line or the file name), imports each (JobStatsImporter), and
// reports every skipped entry as a warning naming its file and line (nothing is dropped
// silently), and each file whose collection the store already holds as a note (also one older than
// the newest collection held: a directory imported again).
//
// Thread-safety: one import at a time.
#pragma once

#include <string_view>

#include "importers/common/importer.h"
#include "importers/jobstats/jobstats_importer.h"
#include "importers/jobstats/jobstats_state.h"

namespace xtfq {

class JobStatsFileImporter final : public Importer {
 public:
  // `sniff` tells the format of each file of an input directory (ExpandInputs).
  JobStatsFileImporter(ImportOptions options, InputSniffer sniff)
      : options_(std::move(options)), sniff_(std::move(sniff)) {}
  std::string_view format() const override { return "jobstats"; }
  Result<ImportReport> Import(const std::vector<std::string>& inputs, RecordSink& sink,
                              RecordSource* existing) override;

  // Whether the first bytes look like job_stats text.
  static bool LooksLikeJobStats(std::string_view head);

  // `targets` when `existing` holds the collection of each of them at `time` (seconds); none when
  // there is no target or one is not held.
  static Result<std::vector<std::string>> Held(RecordSource& existing, const JobStatsState& state,
                                               std::vector<std::string> targets, int64_t time);
  // The targets a parsed snapshot names: its `param=` targets and its entries', non-empty, once.
  static std::vector<std::string> ParsedTargets(const JobStatsParsed& p);

 private:
  ImportOptions options_;
  InputSniffer sniff_;
};

}  // namespace xtfq
