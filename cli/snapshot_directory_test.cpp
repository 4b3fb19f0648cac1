// SnapshotDirectory: one collector per directory and name (a second Open is refused while the first
// lives, and allowed after), names never replaced, only "<name>-<digits>.txt" listed and in time
// order, and a killed collector's temporary files removed at the next Open.
#include "cli/snapshot_directory.h"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/temp_dir.h"
#include "tests/why.h"

namespace xtfq::cli {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST_CASE("SnapshotDirectory: one collector per directory and name") {
  test::TempDir tmp;
  const std::string dir = tmp.File("snaps");
  auto a = SnapshotDirectory::Open(dir, "oss1");
  REQUIRE_MESSAGE(a.ok(), test::Why(a));
  CHECK(!(*a)->lock_warning());
  auto b = SnapshotDirectory::Open(dir, "oss1");
  REQUIRE(!b.ok());
  CHECK(b.error().code() == ErrorCode::kBusy);
  CHECK(b.error().message() == fmt::format(
                                   "{}: another collector (host {}, pid {}) writes the oss1-*.txt snapshots "
                                   "here; stop it, or give another --out or --name",
                                   dir,
                                   [] {
                                     char h[256] = {};
                                     ::gethostname(h, sizeof h - 1);
                                     return std::string(h);
                                   }(),
                                   ::getpid()));
  // Another name shares the directory.
  auto c = SnapshotDirectory::Open(dir, "oss2");
  CHECK_MESSAGE(c.ok(), test::Why(c));
  // The lock goes with its holder.
  a->reset();
  auto d = SnapshotDirectory::Open(dir, "oss1");
  CHECK_MESSAGE(d.ok(), test::Why(d));
  // A name with a '/' is not a prefix.
  auto bad = SnapshotDirectory::Open(dir, "a/b");
  REQUIRE(!bad.ok());
  CHECK(bad.error().code() == ErrorCode::kUsage);
}

TEST_CASE("SnapshotDirectory: a published name is never replaced and List gives this name's files by time") {
  test::TempDir tmp;
  const std::string dir = tmp.File("snaps");
  auto d = SnapshotDirectory::Open(dir, "x");
  REQUIRE_MESSAGE(d.ok(), test::Why(d));
  auto p = (*d)->Publish(1700000100, "first\n");
  REQUIRE_MESSAGE(p.ok(), test::Why(p));
  CHECK(*p == dir + "/x-1700000100.txt");
  auto again = (*d)->Publish(1700000100, "second\n");
  REQUIRE(!again.ok());
  CHECK(again.error().message() ==
        dir + "/x-1700000100.txt exists (another collector of the same name?); it is not replaced");
  CHECK(Slurp(*p) == "first\n");
  REQUIRE((*d)->Publish(99, "early\n").ok());
  REQUIRE((*d)->Publish(1700000200, "later\n").ok());
  // Files that are not this collector's snapshots.
  for (const char* other : {"x-12a.txt", "x-1-2.txt", "xy-5.txt", "y-5.txt", "x-.txt", "x-5.txt.tmp-1-0", "x-5.csv"}) {
    std::ofstream(dir + "/" + other) << "other\n";
  }
  auto list = (*d)->List();
  REQUIRE_MESSAGE(list.ok(), test::Why(list));
  REQUIRE(list->size() == 3);
  CHECK((*list)[0].time == 99);
  CHECK((*list)[1].time == 1700000100);
  CHECK((*list)[2].time == 1700000200);
  CHECK((*list)[2].path == dir + "/x-1700000200.txt");
  // No temporary file is left by a publish, and none of another name is removed.
  d->reset();
  auto reopened = SnapshotDirectory::Open(dir, "x");
  REQUIRE(reopened.ok());
  REQUIRE((*reopened)->stale_removed().size() == 1);  // the planted x-5.txt.tmp-1-0
  CHECK((*reopened)->stale_removed()[0] == dir + "/x-5.txt.tmp-1-0");
  CHECK(std::filesystem::exists(dir + "/x-5.csv"));
  CHECK(std::filesystem::exists(dir + "/y-5.txt"));
}

TEST_CASE("SnapshotDirectory: a failed write leaves nothing behind") {
  test::TempDir tmp;
  const std::string dir = tmp.File("snaps");
  auto d = SnapshotDirectory::Open(dir, "x");
  REQUIRE(d.ok());
  // The name is taken by a directory: the rename fails, the temporary file is removed.
  std::filesystem::create_directories(dir + "/x-7.txt");
  auto p = (*d)->Publish(7, "text\n");
  CHECK(!p.ok());
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
  CHECK(files == 1);  // the lock file only
}

}  // namespace
}  // namespace xtfq::cli
