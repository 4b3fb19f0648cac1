// docs/cli.md, "Bad input": every row's command is run in a directory holding the files the
// section names, and its whole stderr (lines joined by " / ") and exit status must be the row's.
// The document is the expectation: a message that changes must change there too.
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

struct Row {
  std::string command, stderr_text;
  int exit = 0;
};

std::vector<Row> Rows() {
  std::ifstream in(std::string(XTFQ_SOURCE_DIR) + "/docs/cli.md");
  std::vector<Row> rows;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("## ")) inside = line == "## Bad input";
    if (!inside || !line.starts_with("| `xtfq ")) continue;
    // | `COMMAND` | `STDERR` | EXIT |
    const size_t c1 = line.find('`') + 1, c2 = line.find("` | `", c1);
    const size_t s1 = c2 + 5, s2 = line.rfind("` | ");
    REQUIRE_MESSAGE((c2 != std::string::npos && s2 != std::string::npos && s2 >= s1),
                    "docs/cli.md: a Bad input row I cannot read: " << line);
    rows.push_back({line.substr(c1, c2 - c1), line.substr(s1, s2 - s1), std::stoi(line.substr(s2 + 4))});
  }
  return rows;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

int Shell(const test::TempDir& dir, const std::string& command, std::string* err = nullptr) {
  const std::string e = dir.File(".stderr");
  const int rc = std::system(
      fmt::format("cd '{}' && X='{}' bash -c '{}' > /dev/null 2> '{}'", dir.path().string(), XTFQ_CLI_PATH, command, e)
          .c_str());
  if (err != nullptr) *err = Slurp(e);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST_CASE("cli: every row of the documented bad-input table gives its message and exit status") {
  const std::vector<Row> rows = Rows();
  REQUIRE(rows.size() >= 20);
  test::TempDir dir;
  for (const char* setup :
       {"$X gen events 1000 --ranks 4 -o e.bin", "$X import e.bin -o e.xtfq",
        "$X gen darshan 2000 --ranks 4 --files 10 -o run.darshan", "$X import run.darshan -o run.xtfq",
        "$X gen jobstats --targets 2 --jobs 5 --samples 3 -o js", "$X import js -o js.xtfq",
        "head -c 100 e.bin > bad.bin", "echo hello > notes.txt", "head -c 100 run.darshan > trunc.darshan",
        "cp e.xtfq corrupt.xtfq && printf \"\\x7f\" | dd of=corrupt.xtfq bs=1 seek=16484 conv=notrunc 2> /dev/null"}) {
    REQUIRE_MESSAGE(Shell(dir, setup) == 0, setup);
  }
  for (const Row& r : rows) {
    CAPTURE(r.command);
    std::string err;
    const int status = Shell(dir, "$X" + r.command.substr(4), &err);
    std::string joined;
    for (size_t at = 0; at < err.size();) {
      const size_t nl = err.find('\n', at);
      joined += (joined.empty() ? "" : " / ") + err.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
      at = nl == std::string::npos ? err.size() : nl + 1;
    }
    CHECK(joined == r.stderr_text);
    CHECK(status == r.exit);
  }
}

}  // namespace
}  // namespace xtfq
