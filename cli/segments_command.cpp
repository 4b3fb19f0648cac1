#include "cli/segments_command.h"

#include <fmt/format.h>

#include "cli/output.h"
#include "query/answers/result_json.h"
#include "query/core/store_kind.h"

namespace xtfq::cli {

CLI::App* SegmentsCommand::Register(CLI::App& parent) {
  CLI::App* app =
      parent.add_subcommand("segments", "The DXT segments of a Darshan window, a page at a time, in time order");
  opts_.Register(app);
  app->add_option("--time", r_.time,
                  "window T1:T2, half-open, s from the job start; also 90s/15m/2h, 33%, @EPOCH, ISO 8601, 5ns");
  app->add_option("--ranks", r_.ranks, "rank range R1:R2 (half-open)");
  app->add_option("--op", r_.op, "read, write or all (default)")->check(CLI::IsMember({"read", "write", "all"}));
  app->add_option("--module", r_.module, "POSIX (default) or MPI-IO")->check(CLI::IsMember({"POSIX", "MPI-IO"}));
  app->add_option("--log", r_.log, "the log number");
  app->add_option("--job", r_.job, "the log of this job id");
  app->add_option("--offset", r_.offset, "segments to skip (the page's first is the window's K-th)");
  app->add_option("--limit", r_.limit,
                  fmt::format("segments to list, 1 to {} (default 100)", DarshanSegmentsQuery::kMaxLimit));
  return app;
}

std::string SegmentsCommand::Render(const DarshanSegmentsAnswer& a, const std::string& format) {
  if (format == "json") return ResultJson::Of(a).dump(2) + "\n";
  if (format == "csv") {
    std::string out = "op,rank,start_ns,start_s,end_s,duration_s,offset,length,file_id,file,thread\n";
    for (const DarshanSegment& s : a.segments) {
      const double start = static_cast<double>(s.start) / 1e9;
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", s.write ? "write" : "read", s.rank, s.start, start,
                         start + s.duration, s.duration, s.offset, s.length, s.file, CsvField(a.FileName(s.file)),
                         s.thread);
    }
    return out;
  }
  std::string out =
      fmt::format("log {} (job {}), {} {} segments, window [{}, {}) s, ranks {}: {} in all", a.info.log, a.info.job,
                  a.source, a.request.op, ResultJson::EdgeSeconds(a.t1, true), ResultJson::EdgeSeconds(a.t2, false),
                  a.request.ranks.empty() ? "all" : a.request.ranks, a.total);
  if (a.segments.empty()) {
    out += a.request.offset > 0 && a.total > 0 ? fmt::format("; --offset {} is past them\n", a.request.offset) : "\n";
    return out;
  }
  out += fmt::format("; {} to {}, by start time\n", a.request.offset + 1, a.request.offset + a.segments.size());
  out += fmt::format("{:<5} {:>6} {:>14} {:>12} {:>16} {:>12}  {}\n", "op", "rank", "start_s", "duration_s", "offset",
                     "length", "file");
  for (const DarshanSegment& s : a.segments) {
    out += fmt::format("{:<5} {:>6} {:>14.9f} {:>12.6g} {:>16} {:>12}  {}\n", s.write ? "write" : "read", s.rank,
                       static_cast<double>(s.start) / 1e9, s.duration, s.offset, s.length, a.FileName(s.file));
  }
  return out;
}

Result<std::string> SegmentsCommand::Answer() {
  XTFQ_TRY(opts_.OpenReader());
  if (opts_.array_given() || opts_.scan()) {
    return Error(ErrorCode::kUsage, "--array and --scan do not apply to segments (it reads a Darshan log's DXT)");
  }
  if (!StoreContents::Of(opts_.reader().catalogue()).darshan) {
    return Error(ErrorCode::kUsage, fmt::format("{} holds no Darshan log", opts_.store()));
  }
  XTFQ_ASSIGN_OR_RETURN(DarshanSegmentsAnswer a, DarshanSegmentsQuery::Run(opts_.reader(), r_));
  for (const std::string& w : a.warnings) fmt::print(stderr, "xtfq segments: warning: {}\n", w);
  return Render(a, opts_.format());
}

int SegmentsCommand::Run() { return PrintAnswer("segments", Answer()); }

}  // namespace xtfq::cli
