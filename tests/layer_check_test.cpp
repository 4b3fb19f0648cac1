// scripts/check_layers.sh, the include matrix of docs/architecture.md: the tree passes, and a copy
// of the layer folders with an upward include planted fails naming the file and line; the
// matrix is read from the document (allowing the include there makes the copy pass again).
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/temp_dir.h"

namespace xtfq {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = XTFQ_SOURCE_DIR;

struct Check {
  int status;
  std::string out;  // stdout and stderr
};

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Runs scripts/check_layers.sh on ROOT.
Check CheckLayers(const fs::path& root, const test::TempDir& scratch) {
  const std::string out = scratch.File("check_layers.out");
  const std::string cmd =
      fmt::format("bash '{}' '{}' > '{}' 2>&1", (kSource / "scripts" / "check_layers.sh").string(), root.string(), out);
  const int rc = std::system(cmd.c_str());
  return Check{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, Slurp(out)};
}

// Inserts LINE before line number AT (1-based) of PATH.
void InsertLine(const fs::path& path, size_t at, const std::string& line) {
  std::vector<std::string> lines;
  {
    std::ifstream in(path);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  REQUIRE(at <= lines.size() + 1);
  lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at - 1), line);
  std::ofstream out(path, std::ios::trunc);
  for (const std::string& l : lines) out << l << '\n';
  REQUIRE(out.good());
}

void Replace(const fs::path& path, const std::string& from, const std::string& to) {
  std::string text = Slurp(path);
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from, " not in ", path.string());
  text.replace(at, from.size(), to);
  std::ofstream(path, std::ios::trunc) << text;
}

// The first header (by name) and the first unit test of a folder.
fs::path First(const fs::path& dir, const std::string& suffix) {
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() > suffix.size() && name.ends_with(suffix)) found.push_back(e.path());
  }
  REQUIRE_MESSAGE(!found.empty(), "no *", suffix, " in ", dir.string());
  return *std::min_element(found.begin(), found.end());
}

TEST_CASE("layers: no file of the tree includes a header of a layer above it") {
  test::TempDir scratch;
  const Check c = CheckLayers(kSource, scratch);
  CHECK_MESSAGE(c.status == 0, c.out);
  CHECK(c.out.find("no upward include") != std::string::npos);
}

TEST_CASE("layers: an upward include planted in a copy is reported with its file and line") {
  test::TempDir dir;
  const fs::path root = dir.path() / "tree";
  fs::create_directories(root);
  for (const char* layer : {"store", "layouts", "cache", "index", "query", "importers", "cli", "serve"}) {
    if (fs::exists(kSource / layer)) fs::copy(kSource / layer, root / layer, fs::copy_options::recursive);
  }
  fs::create_directories(root / "docs");
  fs::copy_file(kSource / "docs" / "architecture.md", root / "docs" / "architecture.md");
  {
    const Check c = CheckLayers(root, dir);
    REQUIRE_MESSAGE(c.status == 0, c.out);
  }

  const fs::path header = First(root / "store", ".h");
  const std::string name = "store/" + header.filename().string();
  InsertLine(header, 3, "#include \"query/primitives.h\"");
  // Test code may include anything, and folders that are no layer are not checked.
  InsertLine(First(root / "store", "_test.cpp"), 2, "#include \"cli/command.h\"");
  InsertLine(First(root / "cache", ".h"), 2, "#include \"nolayer/x.h\"");

  const Check c = CheckLayers(root, dir);
  CHECK(c.status == 1);
  const std::string want =
      name + ":3: layer 'store' may not include 'query/primitives.h' (docs/architecture.md, Include matrix)";
  CHECK_MESSAGE(c.out.find(want) != std::string::npos, c.out);
  CHECK_MESSAGE(std::count(c.out.begin(), c.out.end(), '\n') == 1, c.out);  // that violation only

  // The matrix is the document's: a row that allows the include makes the same tree pass.
  Replace(root / "docs" / "architecture.md", "| `store` | `store` |", "| `store` | `store`, `query` |");
  const Check allowed = CheckLayers(root, dir);
  CHECK_MESSAGE(allowed.status == 0, allowed.out);

  // Without the section there is nothing to check against.
  std::ofstream(root / "docs" / "architecture.md", std::ios::trunc) << "# Architecture\n";
  CHECK(CheckLayers(root, dir).status == 2);
}

}  // namespace
}  // namespace xtfq
