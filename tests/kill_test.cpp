// SIGKILL of the command line at random moments (issue 14): creating a store, and importing
// events, Darshan logs and job_stats snapshots into a new store and into an existing one. After
// every kill the store is absent (a creation killed before its name was given), or it passes
// `xtfq check` at a generation the command could have left (before or after its one commit), the
// directory holds no leftover file, and the same import run again succeeds. A handful of moments
// per scenario by tier (tests/tier.h): 2 in the small tier, 4 in the full one, 50 under stress.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/temp_dir.h"
#include "tests/tier.h"
#include "tests/xtfq_cli.h"

namespace xtfq::test {
namespace {

namespace fs = std::filesystem;

int Moments() { return ByTier(2, 4, 50); }

// Starts `xtfq ARGS...` in `dir`, output discarded.
pid_t Spawn(const TempDir& dir, const std::vector<std::string>& args) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (chdir(dir.path().c_str()) != 0) _exit(120);
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    std::vector<char*> argv{const_cast<char*>(XTFQ_CLI_PATH)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(XTFQ_CLI_PATH, argv.data());
    _exit(121);
  }
  return pid;
}

// Runs `xtfq ARGS...` to the end; its wall time in microseconds.
int64_t Time(const TempDir& dir, const std::vector<std::string>& args) {
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = Spawn(dir, args);
  int st = 0;
  waitpid(pid, &st, 0);
  REQUIRE_MESSAGE((WIFEXITED(st) && WEXITSTATUS(st) == 0), fmt::format("xtfq {} failed", fmt::join(args, " ")));
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
}

uint64_t Generation(const TempDir& dir, const std::string& store) {
  const Run r = Xtfq(dir, "info " + store + " --format json");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return nlohmann::json::parse(r.out).at("generation").get<uint64_t>();
}

std::set<std::string> Names(const TempDir& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir.path())) out.insert(e.path().filename().string());
  return out;
}

// Kills that left the import unfinished (no store, or a store before the import's commit), over
// every scenario: at least one must, or the kills all came too late to test anything.
int unfinished = 0;

// Kills `import` at Moments() random moments within its run time. `base` prepares the store
// before each run (empty: the import creates it); the store after the kill must be absent (only
// when created) or at generation `before` or `after`, pass check, and take the import again.
// `gridded`: the import commits its records at `after` - 1 and their grid summaries at `after`; a
// store killed between the two holds every record (answers per process, without the grid) and is
// not imported again (an events import does not append to an array it finds).
void KillImport(const TempDir& dir, const std::string& what, const std::vector<std::string>& import,
                const std::vector<std::string>& base, uint64_t before, uint64_t after, bool gridded = false) {
  const std::string store = "k.xtfq";
  auto prepare = [&] {
    fs::remove(dir.File(store));
    fs::remove(dir.File("stdout"));
    fs::remove(dir.File("stderr"));
    if (!base.empty()) Time(dir, base);
  };
  prepare();
  const std::set<std::string> files = Names(dir);
  const int64_t window = Time(dir, import) * 3 / 2 + 1;
  std::mt19937_64 rng(std::hash<std::string>{}(what));
  std::set<uint64_t> seen;
  for (int k = 0; k < Moments(); ++k) {
    prepare();
    const pid_t pid = Spawn(dir, import);
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % static_cast<uint64_t>(window)));
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    CAPTURE(what);
    CAPTURE(k);
    std::set<std::string> now = Names(dir);
    now.erase("stdout"), now.erase("stderr");
    std::set<std::string> want = files;
    want.erase("stdout"), want.erase("stderr");
    const bool present = fs::exists(dir.File(store));
    if (!present) {
      CHECK_MESSAGE(base.empty(), "an existing store disappeared");
    } else {
      want.insert(store);
      const Run c = Xtfq(dir, "check " + store);
      REQUIRE_MESSAGE(c.status == 0, c.err);
      const uint64_t g = Generation(dir, store);
      CHECK_MESSAGE((g == before || g == after || (base.empty() && g == 2) || (gridded && g == after - 1)),
                    fmt::format("generation {} after the kill", g));
      seen.insert(g);
    }
    if (!present) seen.insert(0);
    if (!present || Generation(dir, store) != after) ++unfinished;
    CHECK_MESSAGE(now == want, fmt::format("files after the kill: {}", fmt::join(now, " ")));
    // The same import again: it continues a store it finds, or creates one.
    if (present && Generation(dir, store) == after) continue;                 // already complete
    if (present && gridded && Generation(dir, store) == after - 1) continue;  // records whole, grid not built
    Time(dir, import);
    const Run c = Xtfq(dir, "check " + store);
    CHECK_MESSAGE(c.status == 0, c.err);
  }
  MESSAGE(what << ": " << Moments() << " kills in a window of " << window << " us; generations found after them "
               << fmt::format("{} (0: no store)", fmt::join(seen, " ")));
}

}  // namespace

TEST_CASE("kill: SIGKILL of imports at random moments leaves no store or a whole one, and the import runs again" *
          doctest::test_suite("long")) {
  TempDir dir;
  // Inputs a third the size in the small tier: the kill moments are spread over the import's own time.
  const int events = ByTier(100000, 300000, 300000), segments = ByTier(15000, 40000, 40000);
  REQUIRE(Xtfq(dir, fmt::format("gen events {} -o e.bin", events)).status == 0);
  REQUIRE(Xtfq(dir, fmt::format("gen darshan {} -o a.darshan --ranks 64 --files 200", segments)).status == 0);
  REQUIRE(Xtfq(dir, fmt::format("gen darshan {} -o b.darshan --ranks 64 --files 200", segments)).status == 0);
  REQUIRE(Xtfq(dir, "gen jobstats -o js --targets 6 --jobs 400 --samples 8").status == 0);
  // job_stats: the first half of the collections make the base store, the rest are imported.
  std::vector<std::pair<int64_t, std::string>> snaps;
  for (const auto& e : fs::directory_iterator(dir.path() / "js")) {
    const std::string n = e.path().filename().string();
    if (n.rfind("server", 0) != 0) continue;
    snaps.emplace_back(std::stoll(n.substr(n.find('-') + 1)), "js/" + n);
  }
  std::sort(snaps.begin(), snaps.end());
  REQUIRE(snaps.size() >= 4);
  std::vector<std::string> first{"import", "--format", "jobstats", "-o", "k.xtfq"};
  std::vector<std::string> rest = first;
  for (size_t i = 0; i < snaps.size(); ++i) (i < snaps.size() / 2 ? first : rest).push_back(snaps[i].second);

  // Creation: generations 1 and 2 are the empty store, 3 the import's commit.
  // Events: their records get grid summaries, committed at generation 4 (docs/cli.md, "import").
  KillImport(dir, "events into a new store", {"import", "-o", "k.xtfq", "e.bin"}, {}, 3, 4, true);
  KillImport(dir, "a Darshan log into a new store", {"import", "-o", "k.xtfq", "a.darshan"}, {}, 3, 3);
  // job_stats: the snapshots at generation 3, their window summaries at 4.
  KillImport(dir, "job_stats into a new store", first, {}, 3, 4, true);
  // Appends: the base import commits generation 3, the killed one 4.
  KillImport(dir, "a Darshan log into an existing store", {"import", "-o", "k.xtfq", "b.darshan"},
             {"import", "-o", "k.xtfq", "a.darshan"}, 3, 4);
  KillImport(dir, "job_stats into an existing store", rest, first, 4, 6, true);
  CHECK(unfinished > 0);
}

}  // namespace xtfq::test
