#include "cli/heatmap_command.h"

#include <fmt/format.h>

#include "cli/output.h"

namespace xtfq::cli {

CLI::App* HeatmapCommand::Register(CLI::App& parent) {
  CLI::App* app =
      parent.add_subcommand("heatmap", "Log-binned heatmap of job_stats rates: series per rate bin and time cell");
  app->add_option("STORE", store_, "store file")->required();
  app->add_flag("--jobstats", jobstats_, "job_stats rates (the default, and the only kind for now)");
  app->add_option("--op", r_.op, "the op (write_bytes, open, ...)")->required();
  app->add_option("--base", r_.base, "bin base b > 1 (default 2): bin k holds rates in [b^k, b^(k+1))")
      ->check(CLI::Range(1.000001, 1e9));
  app->add_option("--cell,--step", r_.cell, "cell width in seconds (default 120; --step is the old name)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app->add_option(
      "--time", r_.time,
      "window T1:T2: epoch seconds, ISO 8601, 30m:90m, 10%:20%, ... (docs/cli.md, Windows; default: every collection)");
  app->add_option("--by", r_.by, "one step function per group of these keys (default: per series)")->delimiter(',');
  app->add_option("--job", r_.filter.jobs, "only these jobs");
  app->add_option("--uid", uids_, "only these uids");
  app->add_option("--node", r_.filter.nodes, "only these nodes");
  app->add_option("--target", r_.filter.targets, "only these targets");
  app->add_option("--class", r_.filter.classes, "only these job id classes");
  app->add_option("--format", format_, "csv (t,k,lo,hi,count), json or svg")
      ->check(CLI::IsMember({"csv", "json", "svg"}));
  return app;
}

int HeatmapCommand::Run() {
  auto reader = OpenForReading(store_);
  if (!reader.ok()) return Fail("heatmap", reader.error());
  auto uids = JobStatsReport::ParseUids(uids_);
  if (!uids.ok()) return Fail("heatmap", uids.error());
  r_.filter.uids = *uids;
  auto view = JobStatsView::Open(**reader);
  if (!view.ok()) return Fail("heatmap", view.error());
  auto h = JobStatsHeatmapQuery::Run(**view, r_);
  if (!h.ok()) return Fail("heatmap", h.error());
  fmt::print("{}", JobStatsReport::Heatmap(*h, format_));
  return kExitOk;
}

}  // namespace xtfq::cli
