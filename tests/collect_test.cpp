// `xtfq collect` as a daemon (issue 14, defect 5), through the built binary: two collectors on one
// directory, collection times in whole seconds (file name, "# collected_at:" stamp and store
// agree), a busy store and a full disk (a file-size limit stands in for it) skip a collection
// without ending the daemon or losing its snapshot, snapshots written but never committed go in
// at the next start, one already in the store is recognised, and SIGKILL at moments between
// writing a snapshot and committing it (3, 6 or 60 by tier: tests/tier.h) ends with a store
// that passes `check` and holds every snapshot file of the directory exactly once.
//
// Expectations come from the snapshot files themselves, read naively here (target lines and
// job ids), never from the importer.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "layouts/jobstats_layout.h"
#include "query/core/store_reader.h"
#include "store/endian.h"
#include "store/store_writer.h"
#include "tests/temp_dir.h"
#include "tests/tier.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using L = JobStatsLayout;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A script that prints the next snapshot of a directory of `gen jobstats` snapshots at each call
// (in name order, cycling), with an optional marker line first: the COMMAND of the collectors here.
void WriteSnapshotScript(const test::TempDir& dir) {
  std::ofstream(dir.File("snap.sh")) << "#!/bin/sh\n"
                                        "d=$1; c=$d.counter\n"
                                        "n=$(cat $c 2>/dev/null || echo 0)\n"
                                        "[ -n \"$2\" ] && echo \"# by $2\"\n"
                                        "set -- $(ls $d/*.txt | sort)\n"
                                        "k=$(( n % $# + 1 ))\n"
                                        "eval f=\\${$k}\n"
                                        "echo $((n+1)) > $c\n"
                                        "cat $f\n";
  fs::permissions(dir.File("snap.sh"), fs::perms::owner_all);
}

// `gen jobstats` snapshots of one server (an MDT, or four OSTs for server1) copied into `to`.
void GenerateSnapshots(const test::TempDir& dir, const std::string& to, const std::string& server, int jobs,
                       int samples) {
  test::Run g = test::Xtfq(
      dir, fmt::format("gen jobstats -o gen-{} --targets 5 --jobs {} --samples {} --seed 7", to, jobs, samples));
  REQUIRE_MESSAGE(g.status == 0, g.err);
  fs::create_directories(dir.File(to));
  for (const auto& e : fs::directory_iterator(dir.File("gen-" + to))) {
    if (e.path().filename().string().rfind(server + "-", 0) == 0) fs::copy(e.path(), dir.File(to) + "/");
  }
}

// The snapshot script over 12 collections of server1 in s0, and a first collection by `x` into
// snaps/ and the store c.xtfq, which it creates (`store` false: into snaps/ alone).
void FirstCollection(const test::TempDir& dir, bool store = true) {
  WriteSnapshotScript(dir);
  GenerateSnapshots(dir, "s0", "server1", 5, 12);
  test::Run first = test::Xtfq(dir, fmt::format("collect --interval 1 --count 1 --name x --out snaps{} -- ./snap.sh s0",
                                                store ? " --store c.xtfq" : ""));
  REQUIRE_MESSAGE(first.status == 0, first.err);
}

// A child running `sh -c CMD` in `dir`, stdout and stderr to files.
struct Child {
  pid_t pid = -1;
  // Waits and returns the exit status (-1 when killed by a signal).
  int Wait() {
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    pid = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
};

// Starts `xtfq ARGS` in `dir` with stderr to `err`. `file_limit` > 0: RLIMIT_FSIZE in bytes (writes
// past it fail with EFBIG, as a full disk fails them with ENOSPC), SIGXFSZ ignored.
Child Spawn(const test::TempDir& dir, const std::string& args, const std::string& err, rlim_t file_limit = 0) {
  const std::string cmd =
      fmt::format("cd '{}' && exec '{}' {} > /dev/null 2> '{}'", dir.path().string(), XTFQ_CLI_PATH, args, err);
  Child c;
  c.pid = ::fork();
  REQUIRE(c.pid >= 0);
  if (c.pid == 0) {
    if (file_limit > 0) {
      ::signal(SIGXFSZ, SIG_IGN);
      struct rlimit rl = {file_limit, file_limit};
      if (::setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(120);
    }
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return c;
}

// The snapshot files of collector `name` in `dir` (name-<digits>.txt), time -> path.
std::map<int64_t, std::string> SnapshotFiles(const std::string& dir, const std::string& name) {
  std::map<int64_t, std::string> out;
  const std::regex re(name + "-([0-9]+)\\.txt");
  std::smatch m;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    if (std::regex_match(f, m, re)) out[std::stoll(m[1])] = e.path().string();
  }
  return out;
}

// Naively from a snapshot's text: target -> distinct job ids (the last of duplicates stands).
std::map<std::string, std::set<std::string>> TargetsOf(const std::string& path) {
  std::map<std::string, std::set<std::string>> out;
  std::istringstream in(Slurp(path));
  const std::regex param("^(?:mdt|obdfilter)\\.([^.]+)\\.job_stats=.*");
  std::string line, target;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, param)) {
      target = m[1];
      out[target];
    } else if (line.rfind("- job_id:", 0) == 0) {
      std::string id = line.substr(9);
      id.erase(0, id.find_first_not_of(' '));
      out[target].insert(id);
    }
  }
  return out;
}

// The store's collections: (time, target) -> entries, counting repeats.
std::multimap<std::pair<int64_t, std::string>, uint64_t> StoredCollections(const std::string& store) {
  std::multimap<std::pair<int64_t, std::string>, uint64_t> out;
  auto r = StoreReader::Open(store);
  REQUIRE_MESSAGE(r.ok(), test::Why(r));
  std::vector<std::string> targets;
  auto ta = (*r)->Array(L::kTargets);
  if (!ta.ok()) return out;
  REQUIRE((*r)->ForEach(**ta,
                        [&](const std::byte* rec) -> Status {
                          XTFQ_ASSIGN_OR_RETURN(std::string name, (*r)->String(StringRef::Unpack(U64At(rec, 0))));
                          targets.push_back(name);
                          return Ok();
                        })
              .ok());
  auto ca = (*r)->Array(L::kCollections);
  REQUIRE_MESSAGE(ca.ok(), test::Why(ca));
  REQUIRE((*r)->ForEach(**ca,
                        [&](const std::byte* rec) -> Status {
                          out.emplace(std::make_pair(I64At(rec, L::kColT), targets.at(U64At(rec, L::kColTarget))),
                                      U32At(rec, L::kColEntries));
                          return Ok();
                        })
              .ok());
  return out;
}

// The page size the store was created with.
uint32_t PageSizeOf(const std::string& store) {
  auto r = StoreReader::Open(store);
  REQUIRE_MESSAGE(r.ok(), test::Why(r));
  return (*r)->store().page_size();
}

// Every snapshot file of `name` in `dir` is in the store exactly once: each of its targets has one
// collection at the file's time with its distinct entries, and the store holds nothing else.
void CheckExactlyOnce(const test::TempDir& dir, const std::string& snaps, const std::string& name,
                      const std::string& store) {
  std::multimap<std::pair<int64_t, std::string>, uint64_t> want;
  for (const auto& [t, path] : SnapshotFiles(dir.File(snaps), name)) {
    for (const auto& [target, ids] : TargetsOf(path)) want.emplace(std::make_pair(t, target), ids.size());
  }
  const auto got = StoredCollections(dir.File(store));
  CHECK(got.size() == want.size());
  for (const auto& [key, n] : want) {
    CAPTURE(key.first);
    CAPTURE(key.second);
    CHECK(got.count(key) == 1);
    auto it = got.find(key);
    if (it != got.end()) CHECK(it->second == n);
  }
  for (const auto& [key, n] : got) {
    CAPTURE(key.first);
    CAPTURE(key.second);
    CHECK(want.count(key) == 1);
  }
}

// The "collect: FILE ..." lines of a collector's stderr: the files it says it wrote.
std::vector<std::string> ReportedFiles(const std::string& err) {
  std::vector<std::string> out;
  std::istringstream in(err);
  const std::regex re("^collect: (\\S+\\.txt) .*");
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, m, re)) out.push_back(m[1]);
  }
  return out;
}

TEST_CASE("collect: a second collector of the same name on one directory is refused and nothing is overwritten" *
          doctest::test_suite("long")) {
  test::TempDir dir;
  WriteSnapshotScript(dir);
  GenerateSnapshots(dir, "sa", "server0", 5, 8);
  fs::copy(dir.File("sa"), dir.File("sb"));
  // A runs three collections; B starts on the same directory and name while A runs.
  Child a = Spawn(dir, "collect --interval 1 --count 3 --name x --out snaps -- ./snap.sh sa A", dir.File("a.err"));
  const auto t0 = Clock::now();
  // A holds the directory once its lock file names it.
  while (Slurp(dir.File("snaps/x.collect.lock")).find("pid") == std::string::npos &&
         Clock::now() - t0 < std::chrono::seconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  test::Run b = test::Xtfq(dir, "collect --interval 1 --count 3 --name x --out snaps -- ./snap.sh sb B");
  const int a_status = a.Wait();
  const std::string a_err = Slurp(dir.File("a.err"));
  REQUIRE_MESSAGE(a_status == 0, a_err);
  // Whatever each collector says it wrote is there, with its own content.
  for (const auto& [who, err] : {std::pair<std::string, std::string>{"A", a_err}, {"B", b.err}}) {
    for (const std::string& f : ReportedFiles(err)) {
      CAPTURE(f);
      CHECK(Slurp(dir.File(f)).find("# by " + who + "\n") != std::string::npos);
    }
  }
  CHECK(ReportedFiles(a_err).size() == 3);
  CHECK(SnapshotFiles(dir.File("snaps"), "x").size() == 3);
  // The second one is refused, saying who holds the directory.
  CHECK(b.status == 1);
  CHECK(ReportedFiles(b.err).empty());
  CHECK_MESSAGE(std::regex_match(b.err, std::regex("xtfq collect: snaps: another collector \\(host .+, pid [0-9]+\\) "
                                                   "writes the x-\\*\\.txt snapshots here; stop it, or give another "
                                                   "--out or --name\n")),
                b.err);

  // Collectors of different names (hosts) share a directory: both run, every file kept.
  Child c = Spawn(dir, "collect --interval 1 --count 2 --name y --out snaps -- ./snap.sh sa C", dir.File("c.err"));
  test::Run d = test::Xtfq(dir, "collect --interval 1 --count 2 --name z --out snaps -- ./snap.sh sb D");
  CHECK_MESSAGE(c.Wait() == 0, Slurp(dir.File("c.err")));
  CHECK_MESSAGE(d.status == 0, d.err);
  CHECK(SnapshotFiles(dir.File("snaps"), "y").size() == 2);
  CHECK(SnapshotFiles(dir.File("snaps"), "z").size() == 2);
}

TEST_CASE("collect: an interval below one second is a usage error") {
  test::TempDir dir;
  test::Run r = test::Xtfq(dir, "collect --interval 0.5 --count 3 --out snaps -- echo x");
  CHECK(r.status == 2);
  CHECK(r.err ==
        "xtfq collect: --interval 0.5: collections are timed in whole seconds (the store keeps whole seconds); give "
        "1 or more\n");
  CHECK(!fs::exists(dir.File("snaps")));
}

TEST_CASE("collect: a command whose output is not job_stats is a failed collection, an empty output is not" *
          doctest::test_suite("long")) {
  test::TempDir dir;
  {
    std::ofstream out(dir.File("notes.txt"));
    out << "hello\nthis is not job_stats\n";
  }
  test::Run r = test::Xtfq(dir, "collect --interval 1 --count 1 --out snaps --store s.xtfq -- cat notes.txt");
  CHECK(r.status == 1);
  CHECK_MESSAGE(r.err.find("(lines, and none of them job_stats: the command's output is not a snapshot; nothing "
                           "for s.xtfq)") != std::string::npos,
                r.err);
  // Another parameter than job_stats (no warning from the parser: it skips other parameters).
  {
    std::ofstream out(dir.File("stats.txt"));
    out << "obdfilter.fs-OST0000.stats=\nsnapshot_time             1795000000.1 secs.nsecs\n"
           "read_bytes                5 samples [bytes] 4096 4096 20480\n";
  }
  test::Run other = test::Xtfq(dir, "collect --interval 1 --count 1 --out snaps3 --store o.xtfq -- cat stats.txt");
  CHECK(other.status == 1);
  CHECK_MESSAGE(other.err.find("none of them job_stats") != std::string::npos, other.err);
  // A server whose targets hold no entry prints nothing (Lustre 2.17): collected, nothing to add.
  test::Run empty = test::Xtfq(dir, "collect --interval 1 --count 1 --out snaps2 --store e.xtfq -- true");
  CHECK_MESSAGE(empty.status == 0, empty.err);
  CHECK(empty.err.find("(no target in it: nothing for e.xtfq)") != std::string::npos);
}

TEST_CASE("collect: file name and collected_at stamp and store agree on every collection time" *
          doctest::test_suite("long")) {
  test::TempDir dir;
  WriteSnapshotScript(dir);
  GenerateSnapshots(dir, "s0", "server1", 5, 8);
  test::Run r = test::Xtfq(dir, "collect --interval 1 --count 3 --name x --out snaps --store c.xtfq -- ./snap.sh s0");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto files = SnapshotFiles(dir.File("snaps"), "x");
  CHECK(files.size() == 3);
  std::set<int64_t> stored;
  for (const auto& [key, n] : StoredCollections(dir.File("c.xtfq"))) stored.insert(key.first);
  std::set<int64_t> named;
  for (const auto& [t, path] : files) {
    named.insert(t);
    std::string first;
    std::getline(std::ifstream(path), first);
    CHECK(first == fmt::format("# collected_at: {}", t));
  }
  CHECK(stored == named);
  CheckExactlyOnce(dir, "snaps", "x", "c.xtfq");
  // The store collect created has the pages an import of job_stats gives a new store (8 KiB).
  CHECK(PageSizeOf(dir.File("c.xtfq")) == 8192);
  REQUIRE(test::Xtfq(dir, "import -q snaps -o i.xtfq").status == 0);
  CHECK(PageSizeOf(dir.File("i.xtfq")) == 8192);
}

TEST_CASE("collect: a store of 4 KiB pages (made before job_stats had 8 KiB) keeps them and takes the collections" *
          doctest::test_suite("long")) {
  test::TempDir dir;
  FirstCollection(dir, false);
  test::Run made = test::Xtfq(dir, "import -q --page-size 4096 snaps -o c.xtfq");
  REQUIRE_MESSAGE(made.status == 0, made.err);
  test::Run more =
      test::Xtfq(dir, "collect --interval 1 --count 2 --name x --out snaps --store c.xtfq -- ./snap.sh s0");
  REQUIRE_MESSAGE(more.status == 0, more.err);
  CHECK(SnapshotFiles(dir.File("snaps"), "x").size() == 3);
  CheckExactlyOnce(dir, "snaps", "x", "c.xtfq");
  CHECK(PageSizeOf(dir.File("c.xtfq")) == 4096);
  test::Run check = test::Xtfq(dir, "check c.xtfq");
  CHECK_MESSAGE(check.status == 0, check.out, check.err);
}

TEST_CASE("collect: a busy store skips the store for a collection and its snapshot goes in at the next one" *
          doctest::test_suite("long")) {
  test::TempDir dir;
  FirstCollection(dir);
  Child c;
  {
    // Another writer holds the store until a collection of this run found it held and left its
    // snapshot waiting (not a fixed time: a slow start, under a sanitizer on a busy machine, can
    // take longer than the first collections).
    auto w = StoreWriter::OpenPath(dir.File("c.xtfq"));
    REQUIRE_MESSAGE(w.ok(), test::Why(w));
    c = Spawn(dir, "collect --interval 1 --count 5 --name x --out snaps --store c.xtfq -- ./snap.sh s0",
              dir.File("c.err"));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (Slurp(dir.File("c.err")).find(" stays in snaps and goes into the store at the next collection") ==
               std::string::npos &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  const int status = c.Wait();
  const std::string err = Slurp(dir.File("c.err"));
  CHECK_MESSAGE(status == 0, err);
  CHECK_MESSAGE(err.find("another writer has the store open") != std::string::npos, err);
  CHECK_MESSAGE(err.find("into the store at the next collection") != std::string::npos, err);
  // A snapshot collected while the store was held went in at a later collection.
  CHECK_MESSAGE(err.find("; written earlier, not in the store until now) -> c.xtfq") != std::string::npos, err);
  CHECK(SnapshotFiles(dir.File("snaps"), "x").size() == 6);
  CheckExactlyOnce(dir, "snaps", "x", "c.xtfq");
}

TEST_CASE("collect: a full disk skips the store for each collection and the daemon runs on losing nothing" *
          doctest::test_suite("long")) {
  test::TempDir dir;
  FirstCollection(dir);
  // The store cannot grow: every commit fails (EFBIG here, ENOSPC on a full disk), the small
  // snapshot files still fit.
  const auto limit = static_cast<rlim_t>(fs::file_size(dir.File("c.xtfq")));
  uintmax_t largest_snapshot = 0;
  for (const auto& e : fs::directory_iterator(dir.File("snaps"))) {
    largest_snapshot = std::max(largest_snapshot, fs::file_size(e.path()));
  }
  REQUIRE(limit > 2 * largest_snapshot);  // snapshots still fit under the limit; the store cannot grow
  Child c = Spawn(dir, "collect --interval 1 --count 3 --name x --out snaps --store c.xtfq -- ./snap.sh s0",
                  dir.File("c.err"), limit);
  const int status = c.Wait();
  const std::string err = Slurp(dir.File("c.err"));
  // It ran all three collections, kept their files, and says the run ends with them outside the store.
  CHECK(SnapshotFiles(dir.File("snaps"), "x").size() == 4);
  CHECK_MESSAGE(status == 1, err);
  CHECK_MESSAGE(err.find("File too large") != std::string::npos, err);
  CHECK_MESSAGE(err.find("3 snapshots written by this run are not in c.xtfq yet") != std::string::npos, err);
  test::Run check = test::Xtfq(dir, "check c.xtfq");
  CHECK_MESSAGE(check.status == 0, (check.out + check.err));
  CHECK(StoredCollections(dir.File("c.xtfq")).size() == 4);  // the first snapshot's four targets
  // With space again, the next start imports them in time order, then collects.
  test::Run next =
      test::Xtfq(dir, "collect --interval 1 --count 1 --name x --out snaps --store c.xtfq -- ./snap.sh s0");
  CHECK_MESSAGE(next.status == 0, next.err);
  CHECK(SnapshotFiles(dir.File("snaps"), "x").size() == 5);
  CheckExactlyOnce(dir, "snaps", "x", "c.xtfq");
}

TEST_CASE("collect: a snapshot written but never committed goes in before the next and one in the store is noted" *
          doctest::test_suite("long")) {
  test::TempDir dir;
  WriteSnapshotScript(dir);
  GenerateSnapshots(dir, "s0", "server1", 5, 12);
  test::Run r = test::Xtfq(dir, "collect --interval 1 --count 2 --name x --out snaps --store c.xtfq -- ./snap.sh s0");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto files = SnapshotFiles(dir.File("snaps"), "x");
  REQUIRE(files.size() == 2);
  // What a collector killed after writing its third snapshot and before committing it leaves: the
  // file, stamped a second after the second one, not in the store.
  const int64_t t3 = files.rbegin()->first + 1;
  const std::string third = fmt::format("snaps/x-{}.txt", t3);
  // The third snapshot of the script's cycle, stamped as collect stamps it.
  const auto s0 = SnapshotFiles(dir.File("s0"), "server1");
  std::ofstream(dir.File(third)) << fmt::format("# collected_at: {}\n", t3) << Slurp(std::next(s0.begin(), 2)->second);
  std::ofstream(dir.File("s0.counter")) << 3;
  REQUIRE(StoredCollections(dir.File("c.xtfq")).size() == 8);
  test::Run again =
      test::Xtfq(dir, "collect --interval 1 --count 1 --name x --out snaps --store c.xtfq -- ./snap.sh s0");
  CHECK_MESSAGE(again.status == 0, again.err);
  // The orphan went in before the new collection, and the second snapshot was recognised.
  const size_t orphan = again.err.find("collect: " + third + " ");
  CHECK_MESSAGE(orphan != std::string::npos, again.err);
  CHECK_MESSAGE(again.err.find(fmt::format("snaps/x-{}.txt: already in the store", t3 - 1)) != std::string::npos,
                again.err);
  files = SnapshotFiles(dir.File("snaps"), "x");
  REQUIRE(files.size() == 4);
  const size_t newest = again.err.find("collect: " + files.rbegin()->second.substr(dir.path().string().size() + 1));
  CHECK_MESSAGE(newest != std::string::npos, again.err);
  CHECK(orphan < newest);
  CheckExactlyOnce(dir, "snaps", "x", "c.xtfq");

  // `import` of the directory reads the snapshots only (not the lock file) into the same collections.
  test::Run all = test::Xtfq(dir, "import --format jobstats snaps -o all.xtfq");
  CHECK_MESSAGE(all.status == 0, all.err);
  CHECK_MESSAGE(all.err.find("left out") == std::string::npos, all.err);
  CheckExactlyOnce(dir, "snaps", "x", "all.xtfq");

  // `import` of a snapshot the store already holds: recognised, noted, nothing added.
  test::Run dup = test::Xtfq(dir, fmt::format("import --format jobstats {} -o c.xtfq", files.rbegin()->second));
  CHECK_MESSAGE(dup.status == 0, dup.err);
  CHECK_MESSAGE(dup.err.find("already in the store (targets scratch-OST0000, scratch-OST0001, scratch-OST0002, "
                             "scratch-OST0003 collected at ") != std::string::npos,
                dup.err);
  CheckExactlyOnce(dir, "snaps", "x", "c.xtfq");
}

// SIGKILL at moments between a snapshot file appearing and its commit (and during the recovery
// of the next start), then one clean run: the store passes check and holds each file once.
TEST_CASE("collect: SIGKILL between writing a snapshot and committing it loses nothing and imports nothing twice" *
          doctest::test_suite("long")) {
  const int moments = test::ByTier(3, 6, 60);
  test::TempDir dir;
  WriteSnapshotScript(dir);
  GenerateSnapshots(dir, "s0", "server1", 400, 40);
  const std::string args = "collect --interval 1 --name x --out snaps --store c.xtfq -- ./snap.sh s0";
  auto wait_for_new_file = [&](size_t before, Clock::time_point deadline) {
    while (Clock::now() < deadline) {
      if (fs::exists(dir.File("snaps")) && SnapshotFiles(dir.File("snaps"), "x").size() > before) return true;
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    return false;
  };
  // Calibration: how long from a file appearing to its commit being reported.
  double window_s = 0;
  {
    Child c = Spawn(dir, args, dir.File("cal.err"));
    REQUIRE(wait_for_new_file(0, Clock::now() + std::chrono::seconds(20)));
    const auto appeared = Clock::now();
    while (Slurp(dir.File("cal.err")).find("generation") == std::string::npos &&
           Clock::now() - appeared < std::chrono::seconds(20)) {
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    window_s = std::chrono::duration<double>(Clock::now() - appeared).count();
    ::kill(c.pid, SIGKILL);
    c.Wait();
  }
  MESSAGE("file-to-commit window: ", window_s * 1e3, " ms");
  std::mt19937_64 rng(2024);
  int killed_with_pending = 0;
  for (int m = 0; m < moments; ++m) {
    CAPTURE(m);
    const size_t before = SnapshotFiles(dir.File("snaps"), "x").size();
    Child c = Spawn(dir, args, dir.File("k.err"));
    const auto spawned = Clock::now();
    std::uniform_real_distribution<double> u(0, 1.2 * window_s);
    if (m % 3 == 2) {
      // During the start: the recovery of what the previous kill left.
      std::this_thread::sleep_for(std::chrono::duration<double>(u(rng)));
    } else {
      // As soon as the file is there, or at a random moment of its window.
      REQUIRE(wait_for_new_file(before, spawned + std::chrono::seconds(20)));
      if (m % 3 == 1) std::this_thread::sleep_for(std::chrono::duration<double>(u(rng)));
    }
    ::kill(c.pid, SIGKILL);
    CHECK(c.Wait() == -1);
    const auto files = SnapshotFiles(dir.File("snaps"), "x");
    size_t targets = 0;
    for (const auto& [t, p] : files) targets += TargetsOf(p).size();
    killed_with_pending += StoredCollections(dir.File("c.xtfq")).size() < targets ? 1 : 0;
  }
  MESSAGE(killed_with_pending, " of ", moments, " kills left a snapshot file outside the store");
  CHECK(killed_with_pending > 0);  // the kills did land between file and commit
  test::Run last =
      test::Xtfq(dir, "collect --interval 1 --count 1 --name x --out snaps --store c.xtfq -- ./snap.sh s0");
  CHECK_MESSAGE(last.status == 0, last.err);
  test::Run check = test::Xtfq(dir, "check c.xtfq");
  CHECK_MESSAGE(check.status == 0, (check.out + check.err));
  for (const auto& e : fs::directory_iterator(dir.File("snaps"))) {
    CHECK_MESSAGE(e.path().string().find(".tmp-") == std::string::npos, e.path().string());
  }
  CheckExactlyOnce(dir, "snaps", "x", "c.xtfq");
}

}  // namespace
}  // namespace xtfq
