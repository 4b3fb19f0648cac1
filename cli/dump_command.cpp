#include "cli/dump_command.h"

#include <fmt/format.h>

#include "importers/darshan_log.h"
#include "importers/darshan_parser_text.h"

namespace xtfq::cli {

CLI::App* DumpCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("dump", "Print a Darshan log as darshan-parser does");
  app->add_option("LOG", input_, "a binary Darshan log (format 3.00 to 3.41)")->required();
  app->add_flag("--header", header_, "only the job header, the log file regions and the mount table");
  return app;
}

int DumpCommand::Run() {
  auto log = DarshanLog::Open(input_);
  if (!log.ok()) return Fail("dump", log.error());
  fmt::print("{}", DarshanParserText::Header(**log));
  if (header_) return kExitOk;
  return Fail("dump", Error(ErrorCode::kInvalidArgument,
                            "printing module records is not available yet (the record decoders are in progress); "
                            "use --header"));
}

}  // namespace xtfq::cli
