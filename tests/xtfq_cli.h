// Xtfq: runs the built `xtfq` with arguments in a test's directory and returns its exit status,
// stdout and stderr.
#pragma once

#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/temp_dir.h"

namespace xtfq::test {

struct Run {
  int status;
  std::string out, err;
};

inline Run Xtfq(const TempDir& dir, const std::string& args) {
  const std::string out = dir.File("stdout"), err = dir.File("stderr");
  const std::string cmd = fmt::format("cd '{}' && BUDGET_S=0.05 MIN_RUNS=1 '{}' {} > '{}' 2> '{}'", dir.path().string(),
                                      XTFQ_CLI_PATH, args, out, err);
  const int rc = std::system(cmd.c_str());
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  return Run{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(out), slurp(err)};
}

}  // namespace xtfq::test
