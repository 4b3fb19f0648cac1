#include "cli/grid_command.h"

#include <fmt/format.h>

#include <charconv>

#include "cli/grid_report.h"
#include "cli/output.h"
#include "query/core/store_kind.h"

namespace xtfq::cli {

CLI::App* GridCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "grid", "A time x process window as a grid of exact cells: Darshan ranks x time, an array's processes x time");
  opts_.Register(app);
  app->add_option("--time", r_.time,
                  "window T1:T2, half-open: s from the job start (Darshan), ns (arrays); also 90s/15m/2h, 33%, @EPOCH, "
                  "ISO 8601; an open side is the run's start or end");
  app->add_option("--ranks", r_.ranks, "process range R1:R2 (half-open) cut into the --rows rows");
  app->add_option("--processes", processes_, "one row per listed process instead (comma-separated ids)");
  app->add_option("--cols", r_.cols,
                  "W: columns, equal time bins (default 100; a Slurm array: no narrower than its mean sampling "
                  "interval)")
      ->check(CLI::Range(1, 1 << 20));
  app->add_option(
         "--rows", r_.rows,
         "H: rows, contiguous process ranges (at most the processes of the range; default 1); job_stats: the H "
         "largest groups of the window (default all)")
      ->check(CLI::Range(1, 1 << 24));
  app->add_option("--metric", r_.metrics,
                  "what a cell shows (comma-separated): count, FIELD[.sum|.min|.max|.mean]; Darshan DXT: ops, bytes, "
                  "busy; HEATMAP: bytes, bins")
      ->delimiter(',');
  app->add_option("--op", r_.op,
                  "Darshan: read, write or all (default); job_stats: the op whose steps are integrated (default "
                  "write_bytes)");
  by_ = app->add_option("--by", r_.by, "job_stats: rows by target (default), job, uid, node, class or id");
  darshan_flags_["--module"] =
      app->add_option("--module", r_.module,
                      "Darshan: POSIX, MPI-IO or STDIO (default: POSIX, or the module the log has)")
          ->check(CLI::IsMember({"POSIX", "MPI-IO", "STDIO"}));
  darshan_flags_["--log"] = app->add_option("--log", r_.log, "Darshan: the log number");
  app->add_option("--job", jobs_, "Darshan: the log of this job id; job_stats: only these jobs (repeatable)");
  app->add_flag("--fit-rows", r_.fit_rows,
                "at most --rows rows: a row a process when the range has fewer (instead of an error)");
  app->add_flag("--snap", r_.snap,
                "move the window and the row edges onto the grid summaries' bins and blocks (job_stats by job, uid or "
                "class: the window and columns onto the job_stats summaries' bins), so that every cell comes from them "
                "(what a viewer asks; the answer says what it drew)");
  return app;
}

Result<std::string> GridCommand::Answer() {
  XTFQ_TRY(opts_.OpenReader());
  r_.array = opts_.array_name();
  r_.scan = opts_.scan();
  const StoreContents held = StoreContents::Of(opts_.reader().catalogue());
  XTFQ_ASSIGN_OR_RETURN(const StoreKind kind, ChooseKind(held, KindRequest{!r_.array.empty()}, opts_.store()));
  const bool darshan = kind == StoreKind::kDarshan;
  if (darshan && r_.op != "read" && r_.op != "write" && r_.op != "all") {
    return Error(ErrorCode::kUsage, fmt::format("--op {}: read, write or all for Darshan logs", r_.op));
  }
  if (!darshan) {
    for (const auto& [name, opt] : darshan_flags_) {
      if (opt->count() > 0) {
        return Error(ErrorCode::kUsage, fmt::format("{} is for Darshan logs; {} holds {}", name, opts_.store(),
                                                    r_.array.empty() ? "no Darshan log" : "array " + r_.array));
      }
    }
  }
  if (by_->count() > 0 && kind != StoreKind::kJobStats) {
    return Error(
        ErrorCode::kUsage,
        fmt::format("--by is for job_stats (rows by target, job, uid, node, class or id); {} holds {}", opts_.store(),
                    !r_.array.empty()
                        ? "array " + r_.array +
                              (held.jobstats
                                   ? ", drawn as a plain array; drop --array for rows of job_stats (--op names the op)"
                                   : "")
                    : darshan ? "Darshan logs: rows are ranks (--ranks, --processes)"
                              : "no job_stats"));
  }
  if (darshan && jobs_.size() > 1) return Error(ErrorCode::kUsage, "--job: one Darshan job id");
  if (darshan && jobs_.size() == 1) {
    XTFQ_ASSIGN_OR_RETURN(r_.job, ParseJobId(jobs_[0], "--job"));
  } else if (!jobs_.empty() && kind == StoreKind::kJobStats) {
    r_.filter.jobs = jobs_;
  } else if (!jobs_.empty()) {
    return Error(ErrorCode::kUsage, fmt::format("--job is for Darshan logs and job_stats; {} holds {}", opts_.store(),
                                                r_.array.empty() ? "neither" : "array " + r_.array));
  }
  if (!processes_.empty()) {
    if (!r_.ranks.empty()) return Error(ErrorCode::kUsage, "--processes and --ranks: give one");
    size_t pos = 0;
    while (pos <= processes_.size()) {
      const size_t comma = std::min(processes_.find(',', pos), processes_.size());
      int64_t v = 0;
      const char* b = processes_.data() + pos;
      const char* e = processes_.data() + comma;
      auto [ptr, ec] = std::from_chars(b, e, v);
      if (b == e || ec != std::errc() || ptr != e) {
        return Error(ErrorCode::kUsage, fmt::format("--processes: '{}' is not a process id",
                                                    std::string_view(b, static_cast<size_t>(e - b))));
      }
      r_.processes.push_back(v);
      pos = comma + 1;
    }
  }
  XTFQ_ASSIGN_OR_RETURN(GridAnswer a, GridAnswerQuery::Run(opts_.reader(), r_));
  return GridReport::Render(a, opts_.format());
}

int GridCommand::Run() { return PrintAnswer("grid", Answer()); }

}  // namespace xtfq::cli
