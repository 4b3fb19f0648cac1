#include "cli/dump_command.h"

#include <fmt/format.h>

#include "importers/darshan_log.h"
#include "importers/darshan_parser_text.h"

namespace xtfq::cli {

CLI::App* DumpCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("dump", "Print a Darshan log as darshan-parser does");
  app->add_option("LOG", input_, "a binary Darshan log (format 3.00 to 3.41)")->required();
  app->add_flag("--header", header_, "only the job header, the log file regions and the mount table");
  app->add_flag("--show-incomplete", show_incomplete_, "print modules whose data is incomplete (partial flag set)");
  app->add_flag("--dxt", dxt_, "print the DXT traces as darshan-dxt-parser does");
  return app;
}

int DumpCommand::Run() {
  auto log = DarshanLog::Open(input_);
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
