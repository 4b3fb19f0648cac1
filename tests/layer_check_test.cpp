// scripts/check_layers.sh, the include matrix of docs/architecture.md: the tree passes, and a copy
// of the layer folders with an upward include planted fails naming the file and line; the
// matrix is read from the document (allowing the include there makes the copy pass again). The
// rooms of a layer (query/darshan, importers/common, ...) are rows of their own: a kind including
// another kind, a room including the floor above it and a library including gen/ fail too, and a
// file left beside the rooms is named.
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

// A copy of the layer folders and docs/architecture.md under DIR/tree, which passes the check.
fs::path CopyTree(const test::TempDir& dir) {
  const fs::path root = dir.path() / "tree";
  fs::create_directories(root);
  for (const char* layer : {"store", "layouts", "cache", "index", "query", "importers", "gen", "cli", "serve"}) {
    if (fs::exists(kSource / layer)) fs::copy(kSource / layer, root / layer, fs::copy_options::recursive);
  }
  fs::create_directories(root / "docs");
  fs::copy_file(kSource / "docs" / "architecture.md", root / "docs" / "architecture.md");
  const Check c = CheckLayers(root, dir);
  REQUIRE_MESSAGE(c.status == 0, c.out);
  return root;
}

// The line check_layers.sh prints for an include of HEADER at line 3 of FILE (in layer LAYER).
std::string Violation(const std::string& file, const std::string& layer, const std::string& header) {
  return fmt::format("{}:3: layer '{}' may not include '{}' (docs/architecture.md, Include matrix)", file, layer,
                     header);
}

TEST_CASE("layers: an upward include planted in a copy is reported with its file and line") {
  test::TempDir dir;
  const fs::path root = CopyTree(dir);

  const fs::path header = First(root / "store", ".h");
  const std::string name = "store/" + header.filename().string();
  InsertLine(header, 3, "#include \"query/core/primitives.h\"");
  // Test code may include anything, and folders that are no layer are not checked.
  InsertLine(First(root / "store", "_test.cpp"), 2, "#include \"cli/command.h\"");
  InsertLine(First(root / "cache", ".h"), 2, "#include \"nolayer/x.h\"");

  const Check c = CheckLayers(root, dir);
  CHECK(c.status == 1);
  const std::string want = Violation(name, "store", "query/core/primitives.h");
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

TEST_CASE("layers: a room including another kind, the floor above it or gen/ is reported") {
  test::TempDir dir;
  const fs::path root = CopyTree(dir);

  // Each planted include at line 3 of the first header of a room, and the violation it must give.
  struct Planted {
    std::string room, layer, header;
  };
  const std::vector<Planted> bad = {
      {"query/darshan", "query/darshan", "query/jobstats/jobstats_view.h"},                    // a kind, sideways
      {"query/jobstats", "query/jobstats", "query/slurm/slurm_view.h"},                        // a kind, sideways
      {"query/grid", "query/grid", "query/answers/grid_answer.h"},                             // up to the floor
      {"importers/common", "importers/common", "importers/darshan/darshan_log.h"},             // common, up to a kind
      {"importers/jobstats", "importers/jobstats", "importers/registry/importer_registry.h"},  // up to the registry
      {"importers/darshan", "importers/darshan", "importers/slurm/hdf5_handle.h"},             // a kind, sideways
      {"query/core", "query/core", "gen/events_generator.h"},                                  // a library, gen
      {"serve", "serve", "gen/events_generator.h"},                                            // a library, gen
  };
  std::vector<std::string> want;
  for (const Planted& p : bad) {
    const fs::path header = First(root / p.room, ".h");
    InsertLine(header, 3, "#include \"" + p.header + "\"");
    want.push_back(Violation(p.room + "/" + header.filename().string(), p.layer, p.header));
  }
  // What the matrix allows: a kind its own room, the grid and the core; the floors every room of
  // their layer; gen the importers; cli gen. Unit tests in a room follow the tests row.
  InsertLine(First(root / "query" / "jobstats", ".cpp"), 3, "#include \"query/grid/grid_query.h\"");
  InsertLine(First(root / "query" / "slurm", ".cpp"), 3, "#include \"query/core/primitives.h\"");
  InsertLine(First(root / "query" / "answers", ".cpp"), 3, "#include \"query/slurm/slurm_view.h\"");
  InsertLine(First(root / "importers" / "registry", ".cpp"), 3, "#include \"importers/events/event_record.h\"");
  InsertLine(First(root / "gen", ".cpp"), 3, "#include \"importers/common/line_reader.h\"");
  InsertLine(First(root / "cli", ".cpp"), 3, "#include \"gen/jobstats_generator.h\"");
  InsertLine(First(root / "query" / "core", "_test.cpp"), 3, "#include \"query/answers/result_json.h\"");
  // A file beside the rooms belongs to none of them.
  std::ofstream(root / "query" / "stray.cpp") << "namespace xtfq {}\n";

  const Check c = CheckLayers(root, dir);
  CHECK(c.status == 1);
  for (const std::string& w : want) CHECK_MESSAGE(c.out.find(w) != std::string::npos, w, " not in:\n", c.out);
  const std::string loose = "query/stray.cpp: no row holds its folder (docs/architecture.md, Include matrix)";
  CHECK_MESSAGE(c.out.find(loose) != std::string::npos, c.out);
  CHECK_MESSAGE(std::count(c.out.begin(), c.out.end(), '\n') == static_cast<std::ptrdiff_t>(want.size() + 1),
                c.out);  // those violations only
}

}  // namespace
}  // namespace xtfq
