#include "cli/query_command.h"

#include <fmt/format.h>

#include "cli/output.h"
#include "layouts/darshan_layout.h"

namespace xtfq::cli {

CLI::App* QueryCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("query", "Statistics of the aggregate fields over a time and rank window");
  opts_.Register(app);
  app->add_option("--time", time_, "window T1:T2 (half-open, ns; either side may be empty; default: everything)");
  app->add_option("--ranks", ranks_, "process window R1:R2 (half-open)");
  app->add_option("--buckets", buckets_, "split the window into B equal time buckets (a histogram)")->check(CLI::Range(1, 10000000));
  app->add_option("--module", darshan_.module, "Darshan: POSIX or MPI-IO (DXT, or heatmaps), STDIO (heatmaps)")->check(CLI::IsMember({"POSIX", "MPI-IO", "STDIO"}));
  app->add_option("--file", darshan_.file_glob, "Darshan: only files whose name matches this glob");
  app->add_option("--job", jobs_, "Darshan: the log of this job id; job_stats: only these jobs (repeatable)");
  app->add_flag("--jobstats", jobstats_, "job_stats: totals and rates per group over --time (epoch seconds or ISO 8601)");
  app->add_option("--by", js_.by, "job_stats: group by job, uid, node, target, op, class, id (repeatable, or comma-separated)")
      ->delimiter(',');
  app->add_option("--uid", js_.uids, "job_stats: only these uids");
  app->add_option("--node", js_.filter.nodes, "job_stats: only these nodes (short names)");
  app->add_option("--target", js_.filter.targets, "job_stats: only these targets");
  app->add_option("--op", js_.filter.ops, "job_stats: only these ops");
  app->add_option("--class", js_.filter.classes, "job_stats: only these job id classes");
  app->add_option("--id", js_.filter.ids, "job_stats: only these raw job ids");
  app->add_option("--top", js_.top, "job_stats: the N groups with the largest total of --sort");
  app->add_option("--sort", js_.sort, "job_stats: the op whose total orders the groups (default: the first column)");
  app->add_option("--log", darshan_.log, "Darshan: the log number");
  app->add_flag("--per-rank", darshan_.per_rank, "Darshan: a row per rank");
  app->add_flag("--per-file", darshan_.per_file, "Darshan: a row per file (reads the window's segments)");
  return app;
}

Result<std::string> QueryCommand::Answer() {
  if (jobstats_) {
    XTFQ_TRY(opts_.OpenReader());
    js_.time = time_, js_.format = opts_.format(), js_.scan = opts_.scan(), js_.filter.jobs = jobs_;
    return JobStatsReport::Window(opts_.reader(), js_);
  }
  if (!js_.by.empty() || !js_.uids.empty() || !js_.filter.nodes.empty() || !js_.filter.targets.empty() ||
      !js_.filter.ops.empty() || !js_.filter.classes.empty() || !js_.filter.ids.empty() || js_.top != 0 || !js_.sort.empty()) {
    return Error(ErrorCode::kInvalidArgument, "--by, --uid, --node, --target, --op, --class, --id, --top and --sort need --jobstats");
  }
  if (jobs_.size() > 1) return Error(ErrorCode::kInvalidArgument, "--job: one Darshan job id");
  if (jobs_.size() == 1) {
    char* end = nullptr;
    const long long v = std::strtoll(jobs_[0].c_str(), &end, 10);
    if (jobs_[0].empty() || *end != '\0') return Error(ErrorCode::kInvalidArgument, fmt::format("--job '{}' is not a Darshan job id", jobs_[0]));
    darshan_.job = v;
  }
  if (!opts_.array_given()) {
    XTFQ_TRY(opts_.OpenReader());
    if (opts_.reader().store().catalogue().Find(DarshanLayout::kLogs) != nullptr) {
      darshan_.time = time_;
      darshan_.ranks = ranks_;
      darshan_.scan = opts_.scan();
      darshan_.format = opts_.format();
      if (buckets_ != 0) return Error(ErrorCode::kInvalidArgument, "--buckets on Darshan windows: give --array NAME for a histogram of one array");
      return DarshanWindowReport::Render(opts_.reader(), darshan_);
    }
  }
  if (!darshan_.file_glob.empty() || darshan_.job || darshan_.log || darshan_.per_rank || darshan_.per_file) {
    return Error(ErrorCode::kInvalidArgument, "--module, --file, --job, --log, --per-rank and --per-file are for stores of Darshan logs");
  }
  XTFQ_TRY(opts_.Open());
  Primitives& p = opts_.primitives();
  const Schema& schema = opts_.array().schema;
  XTFQ_ASSIGN_OR_RETURN(Range w, ParseRange(time_, "--time"));
  Range r;
  if (!ranks_.empty()) {
    XTFQ_ASSIGN_OR_RETURN(r, ParseRange(ranks_, "--ranks"));
    if (!schema.process_field()) {
      return Error(ErrorCode::kInvalidArgument, fmt::format("array '{}' has no process field for --ranks", opts_.array().name));
    }
  }
  if (buckets_ == 0) {
    XTFQ_ASSIGN_OR_RETURN(Summary s, opts_.scan() ? p.ScanAggregate(w.lo, w.hi, r.lo, r.hi) : p.Aggregate(w.lo, w.hi, r.lo, r.hi));
    return opts_.json() ? SummaryJson(schema, s).dump(2) : SummaryText(schema, s);
  }
  if (w.lo == INT64_MIN || w.hi == INT64_MAX) {
    return Error(ErrorCode::kInvalidArgument, "--buckets needs a bounded --time T1:T2");
  }
  XTFQ_ASSIGN_OR_RETURN(std::vector<Summary> h,
                        opts_.scan() ? p.ScanHistogram(w.lo, w.hi, buckets_, r.lo, r.hi)
                                     : p.Histogram(w.lo, w.hi, buckets_, r.lo, r.hi));
  nlohmann::json j = nlohmann::json::array();
  std::string text;
  for (uint32_t b = 0; b < buckets_; ++b) {
    const int64_t b0 = Primitives::BucketStart(b, w.lo, w.hi, buckets_), b1 = Primitives::BucketStart(b + 1, w.lo, w.hi, buckets_);
    if (opts_.json()) {
      nlohmann::json bj = SummaryJson(schema, h[b]);
      bj["bucket"] = b;
      bj["start"] = b0;
      bj["end"] = b1;
      j.push_back(bj);
    } else {
      text += fmt::format("# bucket {} [{}, {})\n{}", b, b0, b1, SummaryText(schema, h[b]));
    }
  }
  return opts_.json() ? j.dump(2) : text;
}

int QueryCommand::Run() {
  Result<std::string> out = Answer();
  if (!out.ok()) return Fail("query", out.error());
  fmt::print("{}", *out);
  if (opts_.json()) fmt::print("\n");
  return kExitOk;
}

}  // namespace xtfq::cli
