// The command line as a user meets it: the built `xtfq` binary run as a process, its exit status
// and what it prints on stdout and stderr.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <vector>

#include "cli/progress_bar.h"
#include "store/store.h"
#include "tests/shared_data.h"
#include "tests/temp_dir.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

using test::Run;
using test::Xtfq;

size_t Lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

TEST_CASE("cli: gen and import then info and check on a fresh store") {
  test::TempDir dir;
  REQUIRE(Xtfq(dir, "gen events 5000 -o d.bin --ranks 8 --seed 3").status == 0);
  Run imp = Xtfq(dir, "import d.bin -o s.xtfq");
  REQUIRE_MESSAGE(imp.status == 0, imp.err);
  Run info = Xtfq(dir, "info s.xtfq");
  REQUIRE(info.status == 0);
  // 5000 records of 32 bytes: 39 full pages of 127 and 47 in the open page.
  CHECK(info.out.find("5000 records of 32 B (127 per page) in 39 full pages + 47 records in the open page") !=
        std::string::npos);
  CHECK(info.out.find("page size 4096 B") != std::string::npos);
  CHECK(info.out.find("t:i64@time bytes:i64* dur:f64* rank:i32@process op:i32") != std::string::npos);
  Run json = Xtfq(dir, "info s.xtfq --format json");
  REQUIRE(json.status == 0);
  CHECK(json.out.find("\"records\": 5000") != std::string::npos);
  // --brief: the same lines without the arrays' blocks (each indented under the arrays line).
  Run brief = Xtfq(dir, "info s.xtfq --brief");
  REQUIRE(brief.status == 0);
  std::string want;
  {
    std::istringstream lines(info.out);
    bool in_arrays = false;
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with("arrays ")) {
        in_arrays = true;
        want += line + " (each described without --brief)\n";
        continue;
      }
      if (in_arrays && (line.starts_with("  ") || line.starts_with("(* marks"))) continue;
      in_arrays = false;
      want += line + "\n";
    }
  }
  CHECK(brief.out == want);
  CHECK(std::count(brief.out.begin(), brief.out.end(), '\n') == 8);
  CHECK(Xtfq(dir, "info s.xtfq --brief --format json").status == 2);
  Run check = Xtfq(dir, "check s.xtfq");
  CHECK(check.status == 0);
  CHECK(check.out.rfind("ok: s.xtfq at generation 3", 0) == 0);
}

TEST_CASE("cli: --codec none stores pages raw, lz4 (the default) and zstd compress, and all answer the same") {
  test::TempDir dir;
  REQUIRE(Xtfq(dir, "gen events 5000 -o d.bin --ranks 2 --seed 3").status == 0);
  // "N lz4, Z zstd, R raw, C of them by columns" of check's line.
  auto stored = [&](const std::string& store) {
    Run check = Xtfq(dir, "check " + store);
    CHECK_MESSAGE(check.status == 0, check.err);
    const size_t at = check.out.find("stored in packs: ");
    REQUIRE(at != std::string::npos);
    return check.out.substr(at + 17, check.out.find(';', at) - at - 17);
  };
  REQUIRE(Xtfq(dir, "import d.bin -o raw.xtfq -q --codec none").status == 0);
  const std::string raw = stored("raw.xtfq");
  CHECK_MESSAGE(raw.find("0 lz4, 0 zstd, ") == 0, raw);
  REQUIRE(Xtfq(dir, "import d.bin -o lz.xtfq -q").status == 0);
  const std::string lz = stored("lz.xtfq");
  CHECK_MESSAGE(lz.find("0 lz4, ") != 0, lz);  // the time and rank columns compress
  CHECK_MESSAGE(lz.find(", 0 zstd, ") != std::string::npos, lz);
  REQUIRE(Xtfq(dir, "import d.bin -o z.xtfq -q --codec zstd").status == 0);
  const std::string z = stored("z.xtfq");
  CHECK_MESSAGE(z.find("0 lz4, ") == 0, z);
  CHECK_MESSAGE(z.find(", 0 zstd, ") == std::string::npos, z);
  CHECK(std::filesystem::file_size(dir.File("z.xtfq")) <= std::filesystem::file_size(dir.File("lz.xtfq")));
  for (const char* q : {"size S --time 0:1e18", "query S --time 1e8:5e8 --format csv"}) {
    auto on = [&](const std::string& s) {
      std::string cmd(q);
      return Xtfq(dir, cmd.replace(cmd.find('S'), 1, s)).out;
    };
    CHECK(on("raw.xtfq") == on("lz.xtfq"));
    CHECK(on("raw.xtfq") == on("z.xtfq"));
  }
  CHECK(Xtfq(dir, "import d.bin -o x.xtfq --codec zip").status == 2);
}

TEST_CASE(
    "cli: a new store's page size follows its first import (8 KiB for Darshan logs and job_stats), --page-size "
    "wins, and the answers do not depend on it") {
  test::TempDir dir;
  REQUIRE(Xtfq(dir, "gen darshan 20000 -o l.darshan --ranks 16").status == 0);
  REQUIRE(Xtfq(dir, "gen events 5000 -o d.bin --ranks 2 --seed 3").status == 0);
  auto page_size = [&](const std::string& store) {
    Run info = Xtfq(dir, "info --brief " + store);
    REQUIRE_MESSAGE(info.status == 0, info.err);
    const size_t at = info.out.find("page size ");
    REQUIRE(at != std::string::npos);
    return info.out.substr(at + 10, info.out.find(' ', at + 10) - at - 10);
  };
  REQUIRE(Xtfq(dir, "import -q l.darshan -o d8.xtfq").status == 0);
  CHECK(page_size("d8.xtfq") == "8192");
  REQUIRE(Xtfq(dir, "import -q l.darshan -o d4.xtfq --page-size 4096").status == 0);
  CHECK(page_size("d4.xtfq") == "4096");
  REQUIRE(Xtfq(dir, "import -q d.bin -o e.xtfq").status == 0);
  CHECK(page_size("e.xtfq") == "4096");
  // Each command (S: the store) prints the same on stores a and b.
  auto same_answers = [&](std::initializer_list<const char*> commands, const std::string& a, const std::string& b) {
    for (const char* q : commands) {
      auto on = [&](const std::string& s) {
        std::string cmd(q);
        Run r = Xtfq(dir, cmd.replace(cmd.find('S'), 1, s));
        CHECK_MESSAGE(r.status == 0, cmd, r.err);
        return r.out;
      };
      CHECK_MESSAGE(on(a) == on(b), q);
    }
  };
  same_answers({"query S --time 10%:60% --ranks 2:9 --format json", "query S --time 0%:100% --per-rank",
                "grid S --cols 7 --rows 4 --format csv", "segments S --time 20%:21% --limit 50"},
               "d4.xtfq", "d8.xtfq");
  CHECK(Xtfq(dir, "check d8.xtfq").status == 0);
  // The DXT segments and their per-process copies store smaller in 8 KiB pages.
  CHECK(std::filesystem::file_size(dir.File("d8.xtfq")) < std::filesystem::file_size(dir.File("d4.xtfq")));
  // Darshan logs and events in one first import: events' 4 KiB.
  REQUIRE(Xtfq(dir, "import -q l.darshan d.bin -o m.xtfq").status == 0);
  CHECK(page_size("m.xtfq") == "4096");
  // A store keeps its page size: events appended to the Darshan store, whatever --page-size says.
  REQUIRE(Xtfq(dir, "import -q d.bin -o d8.xtfq --page-size 16384").status == 0);
  CHECK(page_size("d8.xtfq") == "8192");
  // job_stats: 8 KiB, with the same answers as at 4 KiB.
  REQUIRE(Xtfq(dir, "gen jobstats -o js --targets 6 --jobs 40 --samples 12 --seed 5").status == 0);
  REQUIRE(Xtfq(dir, "import -q js -o j8.xtfq").status == 0);
  CHECK(page_size("j8.xtfq") == "8192");
  REQUIRE(Xtfq(dir, "import -q js -o j4.xtfq --page-size 4096").status == 0);
  CHECK(page_size("j4.xtfq") == "4096");
  same_answers(
      {"query S --jobstats --by target --format csv", "query S --jobstats --by job --time 25%:60% --format json",
       "heatmap S --jobstats --op write_bytes --format csv", "grid S --op read_bytes --by job --cols 9 --format csv"},
      "j4.xtfq", "j8.xtfq");
  CHECK(Xtfq(dir, "check j8.xtfq").status == 0);
}

TEST_CASE("cli: check --space accounts for every byte of the file, per array, with and without the P index") {
  test::TempDir dir;
  REQUIRE(Xtfq(dir, "gen events 20000 -o d.bin --ranks 8 --seed 3").status == 0);
  for (const std::string opts : {"", " --no-process-index"}) {
    CAPTURE(opts);
    std::filesystem::remove(dir.File("s.xtfq"));
    REQUIRE(Xtfq(dir, "import d.bin -o s.xtfq -q" + opts).status == 0);
    Run check = Xtfq(dir, "check --space s.xtfq");
    REQUIRE_MESSAGE(check.status == 0, check.err);
    // The stored bytes of the ok line ("; N bytes for M as pages").
    const size_t at = check.out.find(" bytes for ");
    REQUIRE(at != std::string::npos);
    const uint64_t stored = std::stoull(check.out.substr(check.out.rfind(' ', at - 1) + 1));
    // Rows: bytes share records records-B index-B open-B P-index-B P-tree-B B/record array; then the
    // catalogue, the page map and the rest, each "bytes share% what".
    std::istringstream lines(check.out.substr(check.out.find("\n") + 1));
    std::string line;
    uint64_t arrays = 0, others = 0, events_p = 0, events_records = 0, events_parts = 0, events_total = 0;
    while (std::getline(lines, line)) {
      std::istringstream row(line);
      std::vector<std::string> cells;
      for (std::string c; row >> c;) cells.push_back(c);
      if (cells.size() == 10 && std::isdigit(static_cast<unsigned char>(cells[0][0])) &&
          std::isdigit(static_cast<unsigned char>(cells[2][0]))) {
        arrays += std::stoull(cells[0]);
        if (cells[9] == "events") {
          events_total = std::stoull(cells[0]), events_records = std::stoull(cells[2]);
          for (int k = 3; k <= 7; ++k) events_parts += std::stoull(cells[k]);
          events_p = std::stoull(cells[6]);
        }
      } else if (cells.size() >= 3 && std::isdigit(static_cast<unsigned char>(cells[0][0]))) {
        others += std::stoull(cells[0]);
      }
    }
    CHECK(arrays == stored);
    CHECK(arrays + others == std::filesystem::file_size(dir.File("s.xtfq")));
    CHECK(events_records == 20000);
    CHECK(events_parts == events_total);
    CHECK((events_p > 0) == opts.empty());
  }
}

TEST_CASE("cli: check --space --top N lists the N largest arrays and sums the others in one row") {
  test::TempDir dir;
  REQUIRE(Xtfq(dir, "gen events 20000 -o d.bin --ranks 8 --seed 3").status == 0);
  REQUIRE(Xtfq(dir, "gen events 3000 -o e.bin --ranks 2 --seed 4").status == 0);
  REQUIRE(Xtfq(dir, "import d.bin -o s.xtfq -q --array big").status == 0);
  REQUIRE(Xtfq(dir, "import e.bin -o s.xtfq -q --array small1").status == 0);
  REQUIRE(Xtfq(dir, "import e.bin -o s.xtfq -q --array small2").status == 0);
  // "bytes share% ..." rows, by their last cell (the array, or what the row is).
  auto rows = [](const std::string& out) {
    std::map<std::string, std::vector<std::string>> by;
    std::istringstream lines(out.substr(out.find('\n') + 1));
    for (std::string line; std::getline(lines, line);) {
      std::istringstream row(line);
      std::vector<std::string> cells;
      for (std::string c; row >> c;) cells.push_back(c);
      if (cells.size() >= 3 && std::isdigit(static_cast<unsigned char>(cells[0][0]))) {
        const std::string key = cells.size() == 10 ? cells[9] : line.substr(line.rfind("  ") + 2);
        by[key] = cells;
      }
    }
    return by;
  };
  const Run all = Xtfq(dir, "check --space s.xtfq");
  const Run top = Xtfq(dir, "check --space --top 1 s.xtfq");
  REQUIRE_MESSAGE(top.status == 0, top.err);
  const auto a = rows(all.out), t = rows(top.out);
  REQUIRE(a.count("big") == 1);
  CHECK(t.count("big") == 1);
  CHECK(t.count("small1") == 0);
  CHECK(t.count("small2") == 0);
  REQUIRE(t.count("(2 more arrays)") == 1);
  // The row of the two others is their sum, column by column (bytes, records, the five parts).
  const auto& more = t.at("(2 more arrays)");
  for (size_t k : {0u, 2u, 3u, 4u, 5u, 6u, 7u}) {
    CAPTURE(k);
    CHECK(std::stoull(more[k]) == std::stoull(a.at("small1")[k]) + std::stoull(a.at("small2")[k]));
  }
  uint64_t sum = 0;
  for (const auto& [name, cells] : t) sum += std::stoull(cells[0]);
  CHECK(sum == std::filesystem::file_size(dir.File("s.xtfq")));
  CHECK(Xtfq(dir, "check --space --top 0 s.xtfq").status == 2);
}

TEST_CASE("cli: search and size and next and query answer from the index as the scan does") {
  test::TempDir dir;
  REQUIRE(Xtfq(dir, "gen events 5000 -o d.bin --ranks 8 --seed 5").status == 0);
  REQUIRE(Xtfq(dir, "import d.bin -o s.xtfq").status == 0);
  CHECK(Xtfq(dir, "size s.xtfq --time :").out == "5000\n");
  CHECK(Xtfq(dir, "size s.xtfq --time 0:0").out == "0\n");
  for (const char* w : {"10000000:20000000", ":5000000", "30000000:", "-5:7"}) {
    CAPTURE(w);
    const Run idx = Xtfq(dir, fmt::format("size s.xtfq --time {}", w));
    const Run scan = Xtfq(dir, fmt::format("size s.xtfq --time {} --scan", w));
    REQUIRE(idx.status == 0);
    CHECK(idx.out == scan.out);
    CHECK(Xtfq(dir, fmt::format("query s.xtfq --time {}", w)).out ==
          Xtfq(dir, fmt::format("query s.xtfq --time {} --scan", w)).out);
  }
  // Text prints doubles to 9 digits: the index sums per subtree, the scan record by record.
  CHECK(Xtfq(dir, "query s.xtfq --time 0:50000000 --buckets 7").out ==
        Xtfq(dir, "query s.xtfq --time 0:50000000 --buckets 7 --scan").out);
  CHECK(Xtfq(dir, "query s.xtfq --time : --backend mmap").out == Xtfq(dir, "query s.xtfq --time :").out);
  Run first = Xtfq(dir, "search s.xtfq --record 0 --format json");
  CHECK(first.out.find("\"position\":0") != std::string::npos);
  Run past = Xtfq(dir, "next s.xtfq --record 4990 --step 100");
  CHECK(past.out == "position 5000 (the end: 5000 records)\n");
  Run back = Xtfq(dir, "next s.xtfq --record 10 --step -3");
  CHECK(back.out.rfind("position 7 t=", 0) == 0);
  CHECK(back.out == Xtfq(dir, "search s.xtfq --record 7").out);
  // Rank windows from the P index, against the rank-filtered scan.
  for (const char* r : {"2:5", "0:1", "7:", ":3", "9:12", "-4:0"}) {
    CAPTURE(r);
    for (const char* w : {"10000000:20000000", ":"}) {
      CHECK(Xtfq(dir, fmt::format("size s.xtfq --time {} --ranks {}", w, r)).out ==
            Xtfq(dir, fmt::format("size s.xtfq --time {} --ranks {} --scan", w, r)).out);
      CHECK(Xtfq(dir, fmt::format("query s.xtfq --time {} --ranks {}", w, r)).out ==
            Xtfq(dir, fmt::format("query s.xtfq --time {} --ranks {} --scan", w, r)).out);
    }
    CHECK(Xtfq(dir, fmt::format("query s.xtfq --time 0:50000000 --buckets 5 --ranks {}", r)).out ==
          Xtfq(dir, fmt::format("query s.xtfq --time 0:50000000 --buckets 5 --ranks {} --scan", r)).out);
  }
  // One process: positions are that process's; record 0 of rank 3 is the first rank-3 event.
  Run r3 = Xtfq(dir, "search s.xtfq --record 0 --ranks 3:4");
  REQUIRE(r3.status == 0);
  CHECK(r3.out.rfind("position 0 of rank 3 t=", 0) == 0);
  CHECK(r3.out.find("rank=3 ") != std::string::npos);
  CHECK(Xtfq(dir, "next s.xtfq --record 0 --ranks 3:4 --step 1").out.rfind("position 1 of rank 3 t=", 0) == 0);
  Run wide = Xtfq(dir, "search s.xtfq --record 0 --ranks 3:5");
  CHECK(wide.status == 2);  // a usage error: search follows one process
  CHECK(wide.err == "xtfq search: search follows one process: give --ranks R:R+1, not '3:5'\n");
  Run none = Xtfq(dir, "search s.xtfq --record 0 --ranks 99:100");
  CHECK(none.status == 1);
  CHECK(none.err == "xtfq search: array 'events' has no record of rank 99\n");
  REQUIRE(Xtfq(dir, "import d.bin -o n.xtfq --no-process-index").status == 0);
  Run noidx = Xtfq(dir, "query n.xtfq --ranks 2:5");
  CHECK(noidx.status == 1);
  CHECK(noidx.err.find("imported with --no-process-index") != std::string::npos);
  CHECK(Xtfq(dir, "query n.xtfq --ranks 2:5 --scan").out == Xtfq(dir, "query s.xtfq --ranks 2:5").out);
  CHECK(Xtfq(dir, "check n.xtfq").status == 0);
  Run bad = Xtfq(dir, "size s.xtfq --time 9:1");
  CHECK(bad.status == 2);  // a reversed window is a usage error (issue 12: one window syntax)
  CHECK(bad.err == "xtfq size: --time '9:1': the start is after the end\n");
}

TEST_CASE("cli: bench prints the same CHECK lines from the index as from the flat scan") {
#ifdef XTFQ_SHARED_GEN
  test::TempDir dir;
  REQUIRE(std::system(fmt::format("cd '{}' && '{}' 30000 d.bin q.txt - 64 3 > /dev/null 2>&1", dir.path().string(),
                                  XTFQ_SHARED_GEN)
                          .c_str()) == 0);
  const Run idx = Xtfq(dir, "bench --data d.bin --queries q.txt --store s.xtfq");
  const Run scan = Xtfq(dir, "bench --data d.bin --queries q.txt --store s.xtfq --scan");
  REQUIRE(idx.status == 0);
  REQUIRE(scan.status == 0);
  auto checks = [](const std::string& out, const std::string& peer) {
    std::vector<std::string> v;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("CHECK\t", 0) == 0)
        v.push_back(line.substr(line.find('\t', 6)));  // without the peer name
      else
        CHECK(line.rfind("RESULT\t" + peer + "\t", 0) == 0);
    }
    return v;
  };
  const auto a = checks(idx.out, "xtfq"), b = checks(scan.out, "xtfq_scan");
  CHECK(a.size() == 8);  // Q1_1 Q1_10 Q1_100 Q2_1 Q2_10 Q2_100 Q3 Q4
  CHECK(a == b);
#else
  test::SharedAbsent(std::string(XTFQ_SHARED_DIR) + "/bench/gen.cpp is absent, so there is no query file to run");
#endif
}

TEST_CASE("cli: errors are one line naming the file with a non-zero exit") {
  test::TempDir dir;
  Run missing = Xtfq(dir, "info nope.xtfq");
  CHECK(missing.status == 1);
  CHECK(Lines(missing.err) == 1);
  CHECK(missing.err.find("nope.xtfq") != std::string::npos);

  Run usage = Xtfq(dir, "info");
  CHECK(usage.status == 2);
  CHECK(Lines(usage.err) == 1);
  Run bad_flag = Xtfq(dir, "check --frobnicate x");
  CHECK(bad_flag.status == 2);
  CHECK(Lines(bad_flag.err) == 1);

  Run help = Xtfq(dir, "check --help");
  CHECK(help.status == 0);
  CHECK(help.out.find("STORE") != std::string::npos);

  {
    std::ofstream junk(dir.File("junk.xtfq"));
    junk << "this is not a store\n";
  }
  Run junk = Xtfq(dir, "check junk.xtfq");
  CHECK(junk.status == 1);
  CHECK(Lines(junk.err) == 1);
  CHECK(junk.err.find("superblock") != std::string::npos);

  // A truncated events file: the import fails naming the offset and leaves no store behind.
  REQUIRE(Xtfq(dir, "gen events 100 -o d.bin").status == 0);
  REQUIRE(std::system(fmt::format("truncate -s 3190 '{}'", dir.File("d.bin")).c_str()) == 0);
  Run imp = Xtfq(dir, "import d.bin -o s.xtfq");
  CHECK(imp.status == 1);
  CHECK(imp.err.find("d.bin: offset 3168: 22 trailing bytes") != std::string::npos);
  CHECK_FALSE(std::ifstream(dir.File("s.xtfq")).good());
}

TEST_CASE("cli: check names the damaged page and a failed import leaves the store at its generation") {
  test::TempDir dir;
  REQUIRE(Xtfq(dir, "gen events 1000 -o a.bin").status == 0);
  REQUIRE(Xtfq(dir, "import a.bin -o s.xtfq --array first").status == 0);
  // Damage byte 100 of slot 2: the first slot the import's commit reused, holding stored shadows.
  {
    std::fstream f(dir.File("s.xtfq"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(2 * 4096 + 100);
    f.put('\x7f');
  }
  Run check = Xtfq(dir, "check s.xtfq");
  CHECK(check.status == 1);
  CHECK_MESSAGE(check.err.find("(stored at offset 8192, ") != std::string::npos, check.err);
  CHECK_MESSAGE(check.err.find(" bytes, in slot 2): checksum mismatch") != std::string::npos, check.err);

  test::TempDir dir2;
  REQUIRE(Xtfq(dir2, "gen events 1000 -o a.bin").status == 0);
  REQUIRE(Xtfq(dir2, "import a.bin -o s.xtfq --array first").status == 0);
  REQUIRE(Xtfq(dir2, "gen events 1000 -o b.bin --seed 9").status == 0);
  REQUIRE(std::system(fmt::format("truncate -s 3000 '{}'", dir2.File("b.bin")).c_str()) == 0);
  Run imp = Xtfq(dir2, "import b.bin -o s.xtfq --array second");
  CHECK(imp.status == 1);
  CHECK(imp.err.find("stays at generation 3") != std::string::npos);
  auto store = Store::OpenPath(dir2.File("s.xtfq"));
  REQUIRE(store.ok());
  CHECK((*store)->generation() == 3);
  const auto& arrays = (*store)->catalogue().arrays;
  CHECK(std::count_if(arrays.begin(), arrays.end(), [](const ArrayDesc& a) { return !a.per_process(); }) == 1);
  CHECK((*store)->catalogue().Find("second") == nullptr);
  CHECK(Xtfq(dir2, "check s.xtfq").status == 0);
}

// Runs `args` with stdout sent to `sink` (a path or "| CMD"), returns the exit status and stderr.
Run Into(const test::TempDir& dir, const std::string& args, const std::string& sink) {
  const std::string err = dir.File("stderr.into");
  const std::string redirect = sink.starts_with("|") ? sink : "> " + sink;
  const std::string cmd = fmt::format("cd '{}' && bash -o pipefail -c \"'{}' {} 2> '{}' {}\"", dir.path().string(),
                                      XTFQ_CLI_PATH, args, err, redirect);
  const int rc = std::system(cmd.c_str());
  std::ifstream in(err);
  return Run{WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, "",
             std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>())};
}

TEST_CASE("cli: a failed write of the output is one line and exit 1") {
  test::TempDir dir;
  REQUIRE(Xtfq(dir, "gen events 20000 -o d.bin --ranks 8").status == 0);
  REQUIRE(Xtfq(dir, "import d.bin -o s.xtfq").status == 0);
  for (const char* args : {"info s.xtfq", "check s.xtfq", "size s.xtfq --time :", "search s.xtfq --record 5",
                           "next s.xtfq --record 5 --step 2", "query s.xtfq", "query s.xtfq --format json",
                           "query s.xtfq --time 0:100000000 --buckets 1000"}) {
    CAPTURE(args);
    const Run full = Into(dir, args, "/dev/full");
    CHECK(full.status == 1);
    const std::string name = std::string(args).substr(0, std::string(args).find(' '));
    CHECK(full.err == fmt::format("xtfq {}: cannot write the output: No space left on device\n", name));
  }
  // A reader that goes away: the histogram's text is larger than a pipe holds.
  const Run closed = Into(dir, "query s.xtfq --time 0:200000000 --buckets 20000", "| head -c 10 > /dev/null");
  CHECK(closed.status == 1);
  CHECK(closed.err.find("xtfq query: cannot write the output") == 0);
  CHECK(std::count(closed.err.begin(), closed.err.end(), '\n') == 1);
  // Both streams unwritable: exit 1, never an abort.
  for (const char* args :
       {"query s.xtfq", "grid s.xtfq --cols 40", "query s.xtfq --time 0:200000000 --buckets 20000"}) {
    CAPTURE(args);
    const std::string cmd =
        fmt::format("cd '{}' && '{}' {} > /dev/full 2> /dev/full", dir.path().string(), XTFQ_CLI_PATH, args);
    const int rc = std::system(cmd.c_str());
    CHECK(WIFEXITED(rc));
    CHECK(WEXITSTATUS(rc) == 1);
  }
}

}  // namespace
}  // namespace xtfq

namespace xtfq::cli {
namespace {

TEST_CASE("cli: the import progress line, and none off a terminal or with --quiet") {
  // The line for hand-picked values: 41% of 1 GB at 312 MB/s leaves 590 MB, 1.89 s.
  CHECK(ProgressBar::Line("import", "reading x.darshan", 410'000'000, 1'000'000'000, "B", 312e6) ==
        "import: reading x.darshan  [########------------]  41%  312 MB/s  ETA 0:02");
  CHECK(ProgressBar::Line("import", "grid summaries", 3, 4, "arrays", 0) ==
        "import: grid summaries  [###############-----]  75%  3 of 4 arrays");
  CHECK(ProgressBar::Line("import", "reading y", 1500, 0, "B", 0) == "import: reading y  1.5 kB");
  CHECK(ProgressBar::Line("import", "reading z", 7200'000'000'000, 10'800'000'000'000, "B", 1e9) ==
        "import: reading z  [#############-------]  67%  1 GB/s  ETA 1:00:00");
  // A test's stderr is a file: no bar, the summary lines only; --quiet: nothing at all.
  test::TempDir dir;
  REQUIRE(test::Xtfq(dir, "gen events 300000 -o e.bin").status == 0);
  const test::Run plain = test::Xtfq(dir, "import e.bin -o e.xtfq");
  REQUIRE(plain.status == 0);
  CHECK(plain.err.find('\r') == std::string::npos);
  CHECK(plain.err.find("import: 300000 records into") != std::string::npos);
  const test::Run quiet = test::Xtfq(dir, "import e.bin -o q.xtfq --quiet");
  REQUIRE(quiet.status == 0);
  CHECK(quiet.err.empty());
}

}  // namespace
}  // namespace xtfq::cli
