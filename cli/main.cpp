// xtfq: the command line. Everything is in cli/commands.cpp.
#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "cli/commands.h"

int main(int argc, char** argv) {
  try {
    return xtfq::cli::RunCli(argc, argv);
  } catch (const std::exception& e) {
    // (std::fprintf, which cannot throw: stderr may be the closed pipe that threw)
    std::fprintf(stderr, "xtfq: internal error: %s\n", e.what());
    return 1;
  }
}
