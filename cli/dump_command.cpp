#include "cli/dump_command.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "cli/darshan_input.h"
#include "importers/darshan/darshan_log.h"
#include "importers/darshan/darshan_parser_text.h"
#include "query/darshan/darshan_logs.h"
#include "store/posix_file.h"

namespace xtfq::cli {

CLI::App* DumpCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("dump", "Print a Darshan log (or one kept in a store) as darshan-parser does");
  app->add_option("LOG", input_, "a binary Darshan log (format 3.00 to 3.41) or a store holding Darshan logs")
      ->required();
  app->add_flag("--header", header_, "only the job header, the log file regions and the mount table");
  app->add_flag("--show-incomplete", show_incomplete_, "print modules whose data is incomplete (partial flag set)");
  app->add_flag("--dxt", dxt_, "print the DXT traces as darshan-dxt-parser does");
  app->add_flag("--total", total_, "each module's records aggregated into one (darshan-parser --total)");
  app->add_flag("--file", file_, "file counts by kind of access (darshan-parser --file)");
  app->add_flag("--perf", perf_, "aggregate performance: agg_perf_by_slowest and its parts (darshan-parser --perf)");
  app->add_option("--log", log_, "in a store: the log number (xtfq info lists them)");
  app->add_option("--job", job_, "in a store: the log of this job id");
  return app;
}

namespace {
// Prints the whole of `file`.
Status CopyTo(File& file, std::FILE* out) {
  std::vector<std::byte> buf(size_t{1} << 20);
  for (uint64_t off = 0;;) {
    XTFQ_ASSIGN_OR_RETURN(size_t got, file.ReadAt(off, buf));
    if (got == 0) return Ok();
    if (std::fwrite(buf.data(), 1, got, out) != got) {
      return Error(ErrorCode::kIo, fmt::format("cannot write the output: {}", std::strerror(errno)));
    }
    off += got;
  }
}
}  // namespace

int DumpCommand::Run() {
  const bool accumulated = total_ || file_ || perf_;
  if (accumulated && (dxt_ || header_)) {
    return Fail("dump", Error(ErrorCode::kUsage, "--total, --file and --perf do not go with --dxt or --header"));
  }
  std::unique_ptr<File> file;
  std::unique_ptr<DarshanInput> in;  // the store, when the input is one; outlives `file`
  if (!DarshanInput::IsStore(input_)) {
    if (log_ || job_) {
      return Fail("dump",
                  Error(ErrorCode::kInvalidArgument,
                        fmt::format("{}: --log and --job select a log in a store; this is a log file", input_)));
    }
    auto f = PosixFile::Open(input_, PosixFile::Mode::kRead);
    if (!f.ok()) return Fail("dump", f.error());
    file = std::move(*f);
  } else {
    auto opened = DarshanInput::Open(input_, log_, job_);
    if (!opened.ok()) return Fail("dump", opened.error());
    in = std::move(*opened);
    auto src = DarshanLogs::Source(in->reader(), in->info());
    if (!src.ok()) return Fail("dump", src.error());
    if (in->info().source == DarshanLayout::SourceKind::kParserText) {
      if (dxt_) {
        return Fail("dump",
                    Error(ErrorCode::kInvalidArgument,
                          fmt::format("{}: log {} was imported from darshan-parser text, which has no DXT segments",
                                      input_, in->info().log)));
      }
      if (accumulated) {
        return Fail("dump",
                    Error(ErrorCode::kInvalidArgument,
                          fmt::format("{}: log {} was imported from darshan-parser text; --total, --file and "
                                      "--perf need the binary log (the text's times are rounded to 6 decimals); "
                                      "`xtfq query` gives agg_perf_by_slowest as computed from the text",
                                      input_, in->info().log)));
      }
      Status s = Ok();
      if (header_) {
        auto h = in->Header();
        if (h.ok()) fmt::print("{}", *h);
        s = h.ok() ? Ok() : Status(h.error());
      } else {
        s = CopyTo(**src, stdout);
      }
      std::fflush(stdout);
      return s.ok() ? kExitOk : Fail("dump", s.error());
    }
    file = std::move(*src);
  }
  auto log = DarshanLog::Open(std::move(file));
  if (!log.ok()) return Fail("dump", log.error());
  if (header_) {
    fmt::print("{}", dxt_ ? DarshanParserText::DxtHeader(**log) : DarshanParserText::Header(**log));
    return kExitOk;
  }
  Status s = accumulated
                 ? DarshanParserText::Accumulated(**log, {total_, file_, perf_}, show_incomplete_, stdout, stderr)
             : dxt_ ? DarshanParserText::Dxt(**log, show_incomplete_, stdout, stderr)
                    : DarshanParserText::Base(**log, show_incomplete_, stdout, stderr);
  std::fflush(stdout);
  return s.ok() ? kExitOk : Fail("dump", s.error());
}

}  // namespace xtfq::cli
