#include "cli/query_command.h"

#include <fmt/format.h>

#include "cli/array_report.h"
#include "cli/darshan_window_report.h"
#include "cli/jobstats_report.h"
#include "cli/output.h"
#include "cli/slurm_report.h"
#include "query/jobstats/jobstats_view.h"

namespace xtfq::cli {

CLI::App* QueryCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "query", "Statistics of a time and rank window: of an array, of Darshan logs, of job_stats, of Slurm profiles");
  opts_.Register(app);
  app->add_option("--time", time_,
                  "window T1:T2, half-open: s from the job start (Darshan), epoch s (job_stats, Slurm), ns (arrays); "
                  "also 90s/15m/2h, 33%, @EPOCH, ISO 8601 (docs/cli.md, Windows)");
  flags_["--ranks"] = app->add_option("--ranks", ranks_, "arrays, Darshan: process window R1:R2 (half-open)");
  flags_["--buckets"] =
      app->add_option("--buckets", buckets_, "arrays: split the window into B equal time buckets (a histogram)")
          ->check(CLI::Range(1, 10000000));
  flags_["--module"] = app->add_option("--module", darshan_.module,
                                       "Darshan: POSIX, MPI-IO or STDIO (default: POSIX, or the module the log has)")
                           ->check(CLI::IsMember({"POSIX", "MPI-IO", "STDIO"}));
  flags_["--file"] = app->add_option("--file", darshan_.file_glob, "Darshan: only files whose name matches this glob");
  flags_["--job"] = app->add_option("--job", jobs_,
                                    "Darshan: the log of this job id; job_stats, Slurm: only these jobs (repeatable)");
  flags_["--log"] = app->add_option("--log", darshan_.log, "Darshan: the log number");
  flags_["--per-rank"] = app->add_flag("--per-rank", darshan_.per_rank, "Darshan: a row per rank");
  flags_["--per-file"] =
      app->add_flag("--per-file", darshan_.per_file, "Darshan: a row per file (reads the window's segments)");
  flags_["--jobstats"] = app->add_flag("--jobstats", jobstats_,
                                       "job_stats: read the store's job_stats (the default when it holds only those)");
  flags_["--by"] = app->add_option("--by", js_.by,
                                   "job_stats: group by job, uid, node, target, op, class, id; Slurm: by job, step, "
                                   "node, task (repeatable, or comma-separated)")
                       ->delimiter(',');
  flags_["--uid"] = app->add_option("--uid", uids_, "job_stats: only these uids")->delimiter(',');
  flags_["--node"] =
      app->add_option("--node", js_.filter.nodes, "job_stats, Slurm: only these nodes (short names)")->delimiter(',');
  flags_["--slurm"] =
      app->add_flag("--slurm", slurm_, "Slurm: read the store's Slurm profiles (the default when it holds only those)");
  flags_["--step"] = app->add_option("--step", slurm_req_.filter.steps, "Slurm: only these steps (0, 1, batch, extern)")
                         ->delimiter(',');
  flags_["--task"] =
      app->add_option("--task", slurm_req_.filter.tasks, "Slurm: only these tasks (global task ids)")->delimiter(',');
  flags_["--kind"] = app->add_option("--kind", slurm_req_.filter.kinds, "Slurm: only these series: tasks, fs, net")
                         ->delimiter(',')
                         ->check(CLI::IsMember({"tasks", "fs", "net"}));
  flags_["--edges"] = app->add_option("--edges", edges_,
                                      "Slurm: prorate (a sample's deltas spread over its interval, the default) or "
                                      "sample (a sample counts whole where its EpochTime falls)")
                          ->check(CLI::IsMember({"prorate", "sample"}));
  flags_["--target"] = app->add_option("--target", js_.filter.targets, "job_stats: only these targets")->delimiter(',');
  flags_["--op"] = app->add_option("--op", js_.filter.ops, "job_stats: only these ops (repeatable, or comma-separated)")
                       ->delimiter(',');
  flags_["--class"] =
      app->add_option("--class", js_.filter.classes, "job_stats: only these job id classes")->delimiter(',');
  flags_["--id"] = app->add_option("--id", js_.filter.ids, "job_stats: only these raw job ids");
  flags_["--top"] = app->add_option(
      "--top", js_.top,
      "job_stats: the N groups with the largest total of --sort; Darshan with --per-file: the N files with the most "
      "bytes; with --per-rank: the first N ranks of --sort");
  flags_["--sort"] = app->add_option("--sort", js_.sort,
                                     "job_stats: the op whose total orders the groups (default: the first column); "
                                     "Darshan with --per-rank: rank (default), bytes, bw (bytes moved in the window), "
                                     "busy or ops, most first");
  flags_["--snap"] = app->add_flag("--snap", js_.snap,
                                   "job_stats by job, uid or class: move the window outward onto the summaries' bins, "
                                   "read from their cells alone (the answer says the window it took)");
  return app;
}

Result<StoreKind> QueryCommand::KindOfStore() {
  StoreContents held;
  std::string name;
  if (!opts_.array_given()) {
    XTFQ_TRY(opts_.OpenReader());
    held = StoreContents::Of(opts_.reader().catalogue());
    name = opts_.reader().store().name();
  }
  return ChooseKind(held, KindRequest{opts_.array_given(), jobstats_, slurm_}, name);
}

Status QueryCommand::OnlyFlags(StoreKind kind, const std::vector<std::string>& allowed) const {
  std::vector<std::string> wrong;
  for (const auto& [name, opt] : flags_) {
    if (opt->count() > 0 && std::find(allowed.begin(), allowed.end(), name) == allowed.end()) wrong.push_back(name);
  }
  if (wrong.empty()) return Ok();
  return Error(ErrorCode::kUsage,
               fmt::format("{} {} not apply to {} (this query reads {}; flags for it: {})", fmt::join(wrong, ", "),
                           wrong.size() == 1 ? "does" : "do", StoreKindName(kind), StoreKindName(kind),
                           fmt::format("--time {}", fmt::join(allowed, " "))));
}

Result<std::string> QueryCommand::Answer() {
  XTFQ_ASSIGN_OR_RETURN(StoreKind kind, KindOfStore());
  switch (kind) {
    case StoreKind::kJobStats:
      XTFQ_TRY(OnlyFlags(kind, {"--jobstats", "--by", "--uid", "--node", "--target", "--op", "--class", "--id", "--top",
                                "--sort", "--job", "--snap"}));
      return JobStats();
    case StoreKind::kDarshan: {
      Status flags = OnlyFlags(
          kind, {"--ranks", "--module", "--file", "--job", "--log", "--per-rank", "--per-file", "--top", "--sort"});
      Result<std::string> d = flags.ok() ? Darshan() : Result<std::string>(flags.error());
      // A store that also holds other data: a Darshan usage error says how to ask for that instead.
      const StoreContents held = StoreContents::Of(opts_.reader().catalogue());
      const bool js = held.jobstats, slurm = held.slurm;
      if (d.ok() || d.error().code() != ErrorCode::kUsage || (!js && !slurm)) return d;
      return Error(ErrorCode::kUsage,
                   fmt::format("{} (the store also holds {}: give {} for those)", d.error().message(),
                               js && slurm ? "job_stats and Slurm profiles"
                               : js        ? "job_stats"
                                           : "Slurm profiles",
                               js && slurm ? "--jobstats or --slurm"
                               : js        ? "--jobstats"
                                           : "--slurm"));
    }
    case StoreKind::kSlurm:
      XTFQ_TRY(OnlyFlags(kind, {"--slurm", "--by", "--job", "--node", "--step", "--task", "--kind", "--edges"}));
      return Slurm();
    case StoreKind::kRaw:
      XTFQ_TRY(OnlyFlags(kind, {"--ranks", "--buckets"}));
      return Raw();
  }
  return Error(ErrorCode::kUsage, "unknown kind of store");
}

Result<std::string> QueryCommand::JobStats() {
  if (flags_["--top"]->count() > 0 && js_.top == 0)
    return Error(ErrorCode::kUsage, "--top 0: give the number of groups to list");
  js_.time = time_, js_.scan = opts_.scan(), js_.filter.jobs = jobs_;
  XTFQ_ASSIGN_OR_RETURN(js_.filter.uids, JobStatsReport::ParseUids(uids_));
  XTFQ_ASSIGN_OR_RETURN(auto view, JobStatsView::Open(opts_.reader()));
  XTFQ_ASSIGN_OR_RETURN(JobStatsWindowAnswer a, JobStatsWindowQuery::Run(*view, js_));
  for (const std::string& w : a.warnings) fmt::print(stderr, "xtfq query: warning: {}\n", w);
  // (text and JSON carry the notes; CSV has no place for them)
  if (opts_.format() == "csv") {
    for (const std::string& n : a.notes) fmt::print(stderr, "xtfq query: note: {}\n", n);
  }
  return JobStatsReport::Window(a, opts_.format());
}

Result<std::string> QueryCommand::Slurm() {
  for (const std::string& j : jobs_) {
    XTFQ_ASSIGN_OR_RETURN(int64_t id, ParseJobId(j, "--job"));
    slurm_req_.filter.jobs.push_back(id);
  }
  slurm_req_.filter.nodes = js_.filter.nodes;
  slurm_req_.by = js_.by;
  slurm_req_.time = time_, slurm_req_.scan = opts_.scan(), slurm_req_.prorate = edges_ != "sample";
  XTFQ_ASSIGN_OR_RETURN(std::vector<SlurmKey> by, SlurmWindowQuery::ParseKeys(slurm_req_.by));
  XTFQ_ASSIGN_OR_RETURN(auto view, SlurmView::Open(opts_.reader()));
  XTFQ_ASSIGN_OR_RETURN(SlurmWindow w, SlurmWindowQuery::Run(*view, slurm_req_));
  for (const std::string& x : w.warnings) fmt::print(stderr, "xtfq query: warning: {}\n", x);
  return SlurmReport::Window(w, by, opts_.format());
}

Result<std::string> QueryCommand::Darshan() {
  if (jobs_.size() > 1) return Error(ErrorCode::kUsage, "--job: one Darshan job id");
  if (jobs_.size() == 1) {
    XTFQ_ASSIGN_OR_RETURN(darshan_.job, ParseJobId(jobs_[0], "--job"));
  }
  if (darshan_.per_rank && darshan_.per_file) {
    return Error(ErrorCode::kUsage, "--per-rank and --per-file: one table at a time");
  }
  if (flags_["--top"]->count() > 0) {
    if (!darshan_.per_file && !darshan_.per_rank) {
      return Error(ErrorCode::kUsage, "--top on Darshan logs keeps rows of a table: give --per-file or --per-rank");
    }
    if (js_.top == 0) return Error(ErrorCode::kUsage, "--top 0: give the number of rows to keep");
    (darshan_.per_file ? darshan_.top_files : darshan_.top_ranks) = js_.top;
  }
  if (flags_["--sort"]->count() > 0) {
    if (!darshan_.per_rank) return Error(ErrorCode::kUsage, "--sort on Darshan logs orders ranks: give --per-rank");
    darshan_.rank_sort = js_.sort;
  }
  darshan_.time = time_, darshan_.ranks = ranks_, darshan_.scan = opts_.scan();
  XTFQ_ASSIGN_OR_RETURN(DarshanWindowAnswer a, DarshanWindowQuery::Run(opts_.reader(), darshan_));
  for (const std::string& w : a.warnings) fmt::print(stderr, "xtfq query: warning: {}\n", w);
  return DarshanWindowReport::Render(a, opts_.format());
}

Result<std::string> QueryCommand::Raw() {
  XTFQ_TRY(opts_.Open());
  ArrayWindowRequest q;
  q.array = opts_.array().name, q.time = time_, q.ranks = ranks_, q.buckets = buckets_, q.scan = opts_.scan();
  XTFQ_ASSIGN_OR_RETURN(ArrayWindowAnswer a, ArrayWindowQuery::Run(opts_.reader(), q));
  return ArrayReport::Window(a, opts_.json());
}

int QueryCommand::Run() {
  Result<std::string> out = Answer();
  if (!out.ok()) return Fail("query", out.error());
  fmt::print("{}", *out);
  if (opts_.json()) fmt::print("\n");
  return kExitOk;
}

}  // namespace xtfq::cli
