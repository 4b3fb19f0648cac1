// The golden outputs: the commands of tests/golden/cases.txt (the README demo's commands on smaller
// inputs, the outputs docs/cli.md describes, a few usage errors) run in order in one scratch
// directory, each compared byte for byte with tests/golden/NAME.out (stdout, stderr, exit status).
// A refactoring keeps them equal; a deliberate change of output rewrites them
// (XTFQ_GOLDEN_UPDATE=1) and says so in its commit.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/temp_dir.h"

namespace xtfq {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Case {
  std::string name, command;
};

std::vector<Case> Cases() {
  std::ifstream in(std::string(XTFQ_SOURCE_DIR) + "/tests/golden/cases.txt");
  std::vector<Case> cases;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t colon = line.find(": ");
    REQUIRE_MESSAGE(colon != std::string::npos, "cases.txt: no 'NAME: ' in: " << line);
    cases.push_back({line.substr(0, colon), line.substr(colon + 2)});
  }
  return cases;
}

TEST_CASE("golden: the documented commands print what they printed before") {
  const std::vector<Case> cases = Cases();
  REQUIRE(cases.size() > 20);
  const bool update = std::getenv("XTFQ_GOLDEN_UPDATE") != nullptr;
  test::TempDir dir;
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CAPTURE(c.command);
    const std::string out = dir.File(".stdout"), err = dir.File(".stderr");
    const std::string cmd = fmt::format(
        "cd '{}' && X='{}' TZ=UTC bash -o pipefail -c '{}' > '{}' 2> '{}'", dir.path().string(), XTFQ_CLI_PATH,
        [&] {
          std::string q;  // the command inside single quotes
          for (char ch : c.command) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
          return q;
        }(),
        out, err);
    const int rc = std::system(cmd.c_str());
    const std::string got =
        fmt::format("{}--- stderr\n{}--- exit {}\n", Slurp(out), Slurp(err), WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
    const std::string path = std::string(XTFQ_SOURCE_DIR) + "/tests/golden/" + c.name + ".out";
    if (update) {
      std::ofstream(path, std::ios::binary) << got;
      continue;
    }
    const std::string want = Slurp(path);
    CHECK_MESSAGE(got == want, "tests/golden/" << c.name << ".out differs; got:\n" << got);
  }
}

}  // namespace
}  // namespace xtfq
