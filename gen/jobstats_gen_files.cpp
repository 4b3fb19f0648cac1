#include "gen/jobstats_gen_files.h"

#include <fmt/format.h>

#include <filesystem>
#include <span>
#include <system_error>

namespace xtfq {

Result<std::unique_ptr<JobStatsGenFiles>> JobStatsGenFiles::Create(std::string dir) {
  const std::string path = dir + "/truth_steps.csv";
  std::error_code ec;
  std::filesystem::remove(path, ec);  // a run into the same directory replaces its truth
  if (ec) return Error(ErrorCode::kIo, fmt::format("{}: cannot remove: {}", path, ec.message()));
  XTFQ_ASSIGN_OR_RETURN(auto steps, PosixFile::Open(path, PosixFile::Mode::kCreateNew));
  return std::unique_ptr<JobStatsGenFiles>(new JobStatsGenFiles(std::move(dir), std::move(steps)));
}

Status JobStatsGenFiles::Snapshot(const std::string& name, int64_t, std::string text) {
  return PosixFile::WriteAtomically(dir_ + "/" + name, std::as_bytes(std::span(text)));
}

Status JobStatsGenFiles::TrueStep(const Step& s) {
  fmt::format_to(std::back_inserter(steps_text_), "{},{},{},{},{},{}\n", s.target, s.id, s.op, s.t0, s.t1, s.delta);
  return steps_text_.size() >= kFlushAt ? FlushSteps() : Ok();
}

Status JobStatsGenFiles::FlushSteps() {
  XTFQ_TRY(steps_->WriteAt(steps_written_, std::as_bytes(std::span(steps_text_))));
  steps_written_ += steps_text_.size();
  steps_text_.clear();
  return Ok();
}

Status JobStatsGenFiles::TrueSeries(const SeriesTruth& s) {
  fmt::format_to(std::back_inserter(series_text_), "{},{},{},{},{},{}\n", s.target, s.id, s.cls, s.job, s.uid, s.node);
  return Ok();
}

Status JobStatsGenFiles::Finish() {
  XTFQ_TRY(FlushSteps());
  XTFQ_TRY(steps_->Sync());
  return PosixFile::WriteAtomically(dir_ + "/truth_series.csv", std::as_bytes(std::span(series_text_)));
}

}  // namespace xtfq
