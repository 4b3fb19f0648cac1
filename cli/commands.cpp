#include "cli/commands.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <system_error>
#include <vector>

#include "cli/bench_command.h"
#include "cli/check_command.h"
#include "cli/collect_command.h"
#include "cli/command.h"
#include "cli/darshan_input.h"
#include "cli/dump_command.h"
#include "cli/gen_command.h"
#include "cli/grid_command.h"
#include "cli/heatmap_command.h"
#include "cli/import_command.h"
#include "cli/info_command.h"
#include "cli/job_command.h"
#include "cli/primitive_command.h"
#include "cli/query_command.h"
#include "cli/segments_command.h"
#include "cli/serve_command.h"
#include "cli/signals_command.h"

namespace xtfq::cli {

int Fail(std::string_view command, const Error& error) {
  fmt::print(stderr, "xtfq {}: {}\n", command, error.message());
  // Damage in a store (the error names the store's file: "S.xtfq: page 1 ...: checksum mismatch"):
  // say how to see all of it. Damage in an input (a Darshan log) names that file, not a store.
  if (error.code() == ErrorCode::kCorrupt && command != "check") {
    const std::string& m = error.message();
    const size_t colon = m.find(": ");
    if (colon != std::string::npos && DarshanInput::IsStore(m.substr(0, colon))) {
      fmt::print(stderr,
                 "xtfq {}: the store is damaged: 'xtfq check {}' lists every damaged page and the array it belongs "
                 "to\n",
                 command, m.substr(0, colon));
    }
  }
  return error.code() == ErrorCode::kUsage ? kExitUsage : kExitFailure;
}

int PrintAnswer(std::string_view command, const Result<std::string>& answer) {
  if (!answer.ok()) {
    const Error& e = answer.error();
    return Fail(command, e.code() == ErrorCode::kInvalidArgument ? Error(ErrorCode::kUsage, e.message()) : e);
  }
  fmt::print("{}", *answer);
  return kExitOk;
}

int RunChecked(Command& command, const std::string& name) {
  // A closed pipe is a write error like any other (EPIPE), not a silent death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  int rc = kExitFailure;
  try {
    rc = command.Run();
  } catch (const std::system_error& e) {  // fmt::print reports a failed write this way
    std::fflush(stdout);
    std::clearerr(stdout);
    fmt::print(stderr, "xtfq {}: cannot write the output: {}\n", name, e.code().message());
    return kExitFailure;
  }
  // What is still buffered goes out now; a full disk or a closed reader shows here.
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int err = errno;
    std::clearerr(stdout);
    fmt::print(stderr, "xtfq {}: cannot write the output: {}\n", name, err != 0 ? std::strerror(err) : "write error");
    return kExitFailure;
  }
  return rc;
}

int RunCli(int argc, char** argv) {
  CLI::App app("xtfq: an indexed trace store and query engine for HPC I/O data (Darshan, Lustre job_stats)", "xtfq");
  app.require_subcommand(1);
  app.set_version_flag("--version", "xtfq 0.1.0");
  std::vector<std::unique_ptr<Command>> commands;
  commands.push_back(std::make_unique<InfoCommand>());
  commands.push_back(std::make_unique<CheckCommand>());
  commands.push_back(std::make_unique<GenCommand>());
  commands.push_back(std::make_unique<ImportCommand>());
  commands.push_back(std::make_unique<PrimitiveCommand>(PrimitiveOp::kSearch));
  commands.push_back(std::make_unique<PrimitiveCommand>(PrimitiveOp::kSize));
  commands.push_back(std::make_unique<PrimitiveCommand>(PrimitiveOp::kNext));
  commands.push_back(std::make_unique<QueryCommand>());
  commands.push_back(std::make_unique<BenchCommand>());
  commands.push_back(std::make_unique<DumpCommand>());
  commands.push_back(std::make_unique<SignalsCommand>());
  commands.push_back(std::make_unique<JobCommand>());
  commands.push_back(std::make_unique<HeatmapCommand>());
  commands.push_back(std::make_unique<GridCommand>());
  commands.push_back(std::make_unique<SegmentsCommand>());
  commands.push_back(std::make_unique<CollectCommand>());
  commands.push_back(std::make_unique<ServeCommand>());
  std::vector<CLI::App*> subs;
  for (auto& c : commands) subs.push_back(c->Register(app));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-') {
      fmt::print(stderr, "xtfq: '{}' is not an xtfq command; see 'xtfq --help'\n", argv[1]);
      return kExitUsage;
    }
    // Point to the help of the command being parsed ("xtfq check --help"), not the list of commands.
    std::string command = "xtfq";
    for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
      sub = sub->get_subcommands().front();
      command += " " + sub->get_name();
    }
    fmt::print(stderr, "{}: {}; see '{} --help'\n", command, e.what(), command);
    return kExitUsage;
  }
  for (size_t i = 0; i < commands.size(); ++i) {
    if (subs[i]->parsed()) return RunChecked(*commands[i], subs[i]->get_name());
  }
  return kExitUsage;
}

}  // namespace xtfq::cli
