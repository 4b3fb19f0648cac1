// RunCli: the `xtfq` command line: builds every subcommand, parses argv, runs the chosen one.
// Every command's output is checked: a write that fails (a full disk, /dev/full, a closed pipe:
// SIGPIPE is ignored so that it shows as EPIPE) or a final flush that fails ends the command with
// one line, `xtfq COMMAND: cannot write the output: REASON`, and exit 1.
//
// Thread-safety: call from one thread.
#pragma once

#include <string>

namespace xtfq::cli {

int RunCli(int argc, char** argv);

class Command;
// Runs `command` (called `name`) and checks its writes to stdout as above.
int RunChecked(Command& command, const std::string& name);

}  // namespace xtfq::cli
