#include "gen/jobstats_generator.h"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "gen/jobstats_gen_files.h"
#include "gen/jobstats_gen_run.h"

namespace xtfq {

namespace {
Status CheckOptions(const JobStatsGenOptions& o) {
  if (!JobStatsGenerator::KnownVariant(o.variant)) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("variant '{}' is not one of A B C D E1 E2 F", o.variant));
  }
  if (o.targets == 0 || o.samples == 0 || o.interval <= 0) {
    return Error(ErrorCode::kInvalidArgument, "targets, samples and interval must be positive");
  }
  return Ok();
}

Status CreateDirectory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error(ErrorCode::kIo, fmt::format("{}: cannot create: {}", dir, ec.message()));
  return Ok();
}
}  // namespace

bool JobStatsGenerator::KnownVariant(std::string_view v) {
  for (std::string_view k : {"A", "B", "C", "D", "E1", "E2", "F"}) {
    if (k == v) return true;
  }
  return false;
}

Result<JobStatsGenStats> JobStatsGenerator::Write(const JobStatsGenOptions& options, const std::string& dir) {
  XTFQ_TRY(CheckOptions(options));
  XTFQ_TRY(CreateDirectory(dir));
  XTFQ_ASSIGN_OR_RETURN(auto files, JobStatsGenFiles::Create(dir));
  return JobStatsGenRun::Write(options, *files);
}

Result<JobStatsGenStats> JobStatsGenerator::Stream(const JobStatsGenOptions& options, JobStatsGenOutput& out) {
  XTFQ_TRY(CheckOptions(options));
  return JobStatsGenRun::Write(options, out);
}

}  // namespace xtfq
