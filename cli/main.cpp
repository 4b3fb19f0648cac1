// xtfq: the command line. Everything is in cli/commands.cpp.
#include <fmt/format.h>

#include <exception>

#include "cli/commands.h"

int main(int argc, char** argv) {
  try {
    return xtfq::cli::RunCli(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "xtfq: internal error: {}\n", e.what());
    return 1;
  }
}
