#include "cli/dump_command.h"

#include <fmt/format.h>

#include <cstring>

#include "importers/darshan_log.h"
#include "importers/darshan_parser_text.h"
#include "query/darshan_logs.h"
#include "store/format.h"
#include "store/posix_file.h"

namespace xtfq::cli {

CLI::App* DumpCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("dump", "Print a Darshan log (or one kept in a store) as darshan-parser does");
  app->add_option("LOG", input_, "a binary Darshan log (format 3.00 to 3.41) or a store holding Darshan logs")->required();
  app->add_flag("--header", header_, "only the job header, the log file regions and the mount table");
  app->add_flag("--show-incomplete", show_incomplete_, "print modules whose data is incomplete (partial flag set)");
  app->add_flag("--dxt", dxt_, "print the DXT traces as darshan-dxt-parser does");
  app->add_option("--log", log_, "in a store: the log number (xtfq info lists them)");
  app->add_option("--job", job_, "in a store: the log of this job id");
  return app;
}

namespace {
// Prints `text` (a darshan-parser output kept in a store); with `header_only`, up to the mount
// table, as the header of the binary log would print.
Status PrintText(File& text, bool header_only) {
  std::vector<std::byte> buf(size_t{1} << 20);
  std::string carry;
  for (uint64_t off = 0;;) {
    XTFQ_ASSIGN_OR_RETURN(size_t got, text.ReadAt(off, buf));
    if (got == 0) break;
    off += got;
    if (!header_only) {
      std::fwrite(buf.data(), 1, got, stdout);
      continue;
    }
    carry.append(reinterpret_cast<const char*>(buf.data()), got);
    const size_t end = carry.find("\n\n# description of columns:");
    if (end != std::string::npos) {
      std::fwrite(carry.data(), 1, end + 1, stdout);
      return Ok();
    }
  }
  if (header_only) std::fwrite(carry.data(), 1, carry.size(), stdout);
  return Ok();
}
}  // namespace

int DumpCommand::Run() {
  std::unique_ptr<File> file;
  std::unique_ptr<StoreReader> reader;
  {
    auto f = PosixFile::Open(input_, PosixFile::Mode::kRead);
    if (!f.ok()) return Fail("dump", f.error());
    char magic[8] = {};
    auto got = (*f)->ReadAt(0, std::as_writable_bytes(std::span(magic)));
    const bool store = got.ok() && *got == 8 && std::memcmp(magic, format::kMagic.data(), 8) == 0;
    if (!store && (log_ || job_)) {
      return Fail("dump", Error(ErrorCode::kInvalidArgument, fmt::format("{}: --log and --job select a log in a store; this is a log file", input_)));
    }
    if (!store) {
      file = std::move(*f);
    } else {
      auto r = StoreReader::Open(input_);
      if (!r.ok()) return Fail("dump", r.error());
      reader = std::move(*r);
      auto info = DarshanLogs::Find(*reader, log_, job_);
      if (!info.ok()) return Fail("dump", info.error());
      auto src = DarshanLogs::Source(*reader, *info);
      if (!src.ok()) return Fail("dump", src.error());
      if (info->source == DarshanLayout::SourceKind::kParserText) {
        if (dxt_) {
          return Fail("dump", Error(ErrorCode::kInvalidArgument,
                                    fmt::format("{}: log {} was imported from darshan-parser text, which has no DXT segments",
                                                input_, info->log)));
        }
        Status s = PrintText(**src, header_);
        std::fflush(stdout);
        return s.ok() ? kExitOk : Fail("dump", s.error());
      }
      file = std::move(*src);
    }
  }
  auto log = DarshanLog::Open(std::move(file));
  if (!log.ok()) return Fail("dump", log.error());
  if (header_) {
    fmt::print("{}", DarshanParserText::Header(**log));
    return kExitOk;
  }
  Status s = dxt_ ? DarshanParserText::Dxt(**log, show_incomplete_, stdout, stderr)
                  : DarshanParserText::Base(**log, show_incomplete_, stdout, stderr);
  std::fflush(stdout);
  return s.ok() ? kExitOk : Fail("dump", s.error());
}

}  // namespace xtfq::cli
