// RunCli: the `xtfq` command line: builds every subcommand, parses argv, runs the chosen one.
//
// Thread-safety: call from one thread.
#pragma once

namespace xtfq::cli {

int RunCli(int argc, char** argv);

}  // namespace xtfq::cli
