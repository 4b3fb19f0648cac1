// JobStatsGenFiles: the JobStatsGenOutput of `xtfq gen jobstats`: each snapshot a file of dir
// (written whole: a reader never sees part of one), truth_steps.csv written as the steps come (so
// its size does not bound a run), truth_series.csv at the end.
//
// Thread-safety: one thread.
#pragma once

#include <memory>
#include <string>

#include "gen/jobstats_gen_output.h"
#include "store/posix_file.h"

namespace xtfq {

class JobStatsGenFiles final : public JobStatsGenOutput {
 public:
  // REQUIRES: dir exists.
  static Result<std::unique_ptr<JobStatsGenFiles>> Create(std::string dir);

  Status Snapshot(const std::string& name, int64_t collected, std::string text) override;
  Status TrueStep(const Step& step) override;
  Status TrueSeries(const SeriesTruth& series) override;
  Status Finish() override;

 private:
  static constexpr size_t kFlushAt = size_t{4} << 20;

  JobStatsGenFiles(std::string dir, std::unique_ptr<PosixFile> steps)
      : dir_(std::move(dir)), steps_(std::move(steps)) {}
  Status FlushSteps();

  std::string dir_;
  std::unique_ptr<PosixFile> steps_;
  uint64_t steps_written_ = 0;  // bytes of truth_steps.csv written
  std::string steps_text_ = "target,id,op,t0,t1,delta\n";
  std::string series_text_ = "target,id,class,job,uid,node\n";
};

}  // namespace xtfq
