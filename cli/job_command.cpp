#include "cli/job_command.h"

#include <fmt/format.h>

#include "cli/job_report.h"
#include "cli/output.h"
#include "query/answers/job_timeline.h"
#include "query/core/store_reader.h"

namespace xtfq::cli {

CLI::App* JobCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "job",
      "One job on the wall clock: its Darshan windows, its job_stats rates and share of each target, its Slurm "
      "task series");
  app->add_option("ID", job_, "the job id (Slurm's, as Darshan logs and job_stats %j carry it)")->required();
  app->add_option("STORE", stores_, "stores holding Darshan logs, job_stats or Slurm profiles")->required();
  auto* w = app->add_option("--window", window_,
                            "window width in seconds (default: the job's span in at most "
                            "--windows windows)")
                ->check(CLI::Range(1.0, 1e9));
  app->add_option("--windows", windows_, "at most this many windows when --window is not given")
      ->check(CLI::Range(1, 100000))
      ->excludes(w);
  app->add_option("--format", format_, "output format")->check(CLI::IsMember({"text", "json", "csv"}));
  return app;
}

int JobCommand::Run() {
  const Result<int64_t> id = ParseJobId(job_, "ID");
  if (!id.ok()) return Fail("job", id.error());
  std::vector<std::unique_ptr<StoreReader>> readers;
  std::vector<StoreReader*> ptrs;
  for (const std::string& s : stores_) {
    auto r = OpenForReading(s);
    if (!r.ok()) return Fail("job", r.error());
    ptrs.push_back(r->get());
    readers.push_back(std::move(*r));
  }
  JobTimelineRequest req;
  req.job = *id, req.window_s = window_, req.max_windows = windows_;
  Result<JobTimelineAnswer> a = JobTimeline::Run(ptrs, req);
  if (!a.ok()) return Fail("job", a.error());
  if (!a->any()) {
    // JSON readers get the answer (found false, each source's reason) on stdout too.
    if (format_ == "json") fmt::print("{}", JobReport::Json(*a));
    return Fail("job", Error(ErrorCode::kNotFound, a->NotFound()));
  }
  const std::string out = format_ == "json"  ? JobReport::Json(*a)
                          : format_ == "csv" ? JobReport::Csv(*a)
                                             : JobReport::Text(*a);
  return PrintAnswer("job", out);
}

}  // namespace xtfq::cli
