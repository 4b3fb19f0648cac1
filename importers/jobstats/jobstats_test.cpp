// The job_stats parser against every capture in ../shared/data/jobstats (entry counts, targets and
// values read off the files by hand) and against the variants and hostile inputs of
// ../shared/docs/lustre-jobstats.md.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "gen/jobstats_generator.h"
#include "importers/jobstats/jobid_classifier.h"
#include "importers/jobstats/jobstats_parser.h"
#include "store/posix_file.h"
#include "store/string_file.h"
#include "tests/shared_data.h"
#include "tests/temp_dir.h"
#include "tests/text_file.h"
#include "tests/why.h"

namespace xtfq {
namespace {

namespace fs = std::filesystem;
using test::Why;

struct Parsed {
  JobStatsParser::Summary summary;
  std::vector<JobStatsEntry> entries;
  const JobStatsCounter* Counter(size_t entry, const std::string& op) const {
    for (const auto& c : entries.at(entry).counters) {
      if (c.op == op) return &c;
    }
    return nullptr;
  }
};

Parsed ParseFile(File& f, const std::string& target = "") {
  Parsed p;
  auto s = JobStatsParser::Parse(f, target, [&](JobStatsEntry& e) {
    p.entries.push_back(e);
    return Ok();
  });
  REQUIRE_MESSAGE(s.ok(), Why(s));
  p.summary = *s;
  return p;
}

Parsed ParseText(const std::string& text, const std::string& target = "fs-OST0000") {
  StringFile f = test::TextFile("capture.txt", text);
  return ParseFile(f, target);
}

fs::path Data() { return fs::path(XTFQ_SHARED_DIR) / "data" / "jobstats"; }

TEST_CASE("jobstats: every real capture parses with its entries, targets and values") {
  if (test::SharedMissing(Data())) return;
  // Entries per file (the "- job_id:" lines counted by hand).
  const std::map<std::string, size_t> want = {{"lctl_dump_es6.2.0_whamcloud_lustre_collector.txt", 2},
                                              {"lctl_dump_es6_ex8761_whamcloud_lustre_collector.txt", 2},
                                              {"lctl_dump_linewrapped_whamcloud_lustre_collector.txt", 1},
                                              {"mdt_lustre2.14.0_ddn164_whamcloud_lustrefs_exporter.txt", 12},
                                              {"mdt_lustre2.x_reqs_hpe_exporter_2017-07.txt", 9},
                                              {"mdt_lustre2.x_reqs_hpe_exporter_2017-11.txt", 15},
                                              {"mdt_lustre2.x_reqs_telegraf_fixture.txt", 2},
                                              {"ost_empty_hpe_exporter_2017-11_OST0002.txt", 0},
                                              {"ost_lustre2.14.0_ddn162_whamcloud_lustrefs_exporter.txt", 16},
                                              {"ost_lustre2.x_reqs_gsi_exporter_empty_jobid_edited.txt", 36},
                                              {"ost_lustre2.x_reqs_gsi_exporter_loop36.txt", 1},
                                              {"ost_lustre2.x_reqs_hpe_exporter_2017-07_OST0000.txt", 9},
                                              {"ost_lustre2.x_reqs_hpe_exporter_2017-11_OST0000.txt", 35},
                                              {"ost_lustre2.x_reqs_telegraf_fixture.txt", 2}};
  std::map<std::string, Parsed> got;
  for (const auto& [name, n] : want) {
    CAPTURE(name);
    auto f = PosixFile::Open((Data() / name).string(), PosixFile::Mode::kRead);
    REQUIRE(f.ok());
    got[name] = ParseFile(**f, "cat-target");
    CHECK(got[name].entries.size() == n);
    CHECK(got[name].summary.problems.empty());
  }
  // lctl framing: empty one-line targets, then the MDT among other parameters.
  const auto& es6 = got["lctl_dump_es6_ex8761_whamcloud_lustre_collector.txt"];
  CHECK(es6.summary.targets == std::vector<std::string>{"fs-OST0000", "fs-OST0001", "fs-MDT0000"});
  CHECK(es6.entries[0].target == "fs-MDT0000");
  CHECK(es6.entries[0].job_id == "mount.lustre@0@co-es-pm-149.co-");
  CHECK(es6.entries[0].snapshot_time == 1701771260.0);
  CHECK(!es6.entries[0].since_boot);
  // Line-wrapped: "sum:\n  185, sumsq: 34225 }" joined.
  const auto& wrapped = got["lctl_dump_linewrapped_whamcloud_lustre_collector.txt"];
  REQUIRE(wrapped.Counter(0, "open") != nullptr);
  CHECK(wrapped.Counter(0, "open")->sum == 185u);
  CHECK(wrapped.Counter(0, "open")->sumsq == 34225u);
  CHECK(wrapped.Counter(0, "close")->sum == 51u);
  CHECK(wrapped.entries[0].counters.size() == 24);
  // Variant E2 (DDN 162): quoted ids, secs.nsecs times, sumsq and histograms.
  const auto& ddn = got["ost_lustre2.14.0_ddn162_whamcloud_lustrefs_exporter.txt"];
  CHECK(ddn.entries[0].target == "es01a-OST0001");
  CHECK(ddn.entries[0].job_id == "SLURM_JOB10:0:es18kxe-co-client");
  CHECK(ddn.entries[0].quoted);
  CHECK(ddn.entries[0].snapshot_time == doctest::Approx(1723114647.887515895));
  REQUIRE(ddn.entries[0].start_time.has_value());
  CHECK(*ddn.entries[0].start_time == doctest::Approx(1723102025.057286226));
  CHECK(*ddn.entries[0].elapsed_time == doctest::Approx(12622.830229669));
  const JobStatsCounter* wb = ddn.Counter(0, "write_bytes");
  REQUIRE(wb != nullptr);
  CHECK(wb->samples == 861);
  CHECK(wb->unit == "bytes");
  CHECK(wb->min == 24576u);
  CHECK(wb->max == 16777216u);
  CHECK(wb->sum == 11025514496u);
  CHECK(wb->sumsq == 166242808078794752u);
  REQUIRE(wb->hist.size() == 10);
  CHECK(wb->hist.front() == std::pair<std::string, uint64_t>{"32K", 1});
  CHECK(wb->hist.back() == std::pair<std::string, uint64_t>{"16M", 666});
  CHECK(ddn.Counter(0, "read_bytes")->hist.empty());
  CHECK(ddn.entries[1].job_id == "SLURM_JOB20:0:es18kxe-co-client");
  CHECK(ddn.entries[8].job_id == "SLURM_JOB10");  // the same job under the %j template, unquoted
  CHECK(!ddn.entries[8].quoted);
  CHECK(ddn.entries[8].line == 155);
  // Variant A with "max:16777216" (no space) on a plain cat: the target is the caller's.
  const auto& tele = got["ost_lustre2.x_reqs_telegraf_fixture.txt"];
  CHECK(tele.entries[0].target == "cat-target");
  CHECK(tele.entries[0].job_id == "cluster-testjob1");
  const JobStatsCounter* tw = tele.Counter(0, "write_bytes");
  REQUIRE(tw != nullptr);
  CHECK(tw->samples == 25);
  CHECK(tw->max == 16777216u);
  CHECK(tw->sum == 26214400u);
  CHECK(!tw->sumsq.has_value());
  // An empty job id (a hand-edited fixture) is kept, not dropped.
  CHECK(got["ost_lustre2.x_reqs_gsi_exporter_empty_jobid_edited.txt"].entries[0].job_id.empty());
  // 31-byte truncated id.
  CHECK(got["mdt_lustre2.14.0_ddn164_whamcloud_lustrefs_exporter.txt"].entries[0].job_id.size() == 31);
}

TEST_CASE("jobstats: the 2.15.0 header, E1 escaping, unknown ops and several targets") {
  const Parsed p = ParseText(
      "mdt.scratch-MDT0000.job_stats=\n"
      "job_stats:\n"
      "- job_id:          md5sum.0\n"
      "snapshot_time   : 3143196.864165417 secs.nsecs\n"
      "start_time      : 3143196.707206168 secs.nsecs\n"
      "elapsed_time    : 0.156959249 secs.nsecs\n"
      "  read_bytes:      { samples: 2, unit: bytes, min: 32768, max: 1048576, sum: 1081344, sumsq: 1100585369600, "
      "hist: { 32K: 1, 1M: 1 } }\n"
      "  rename_trylocks: { samples:           3, unit: usecs, min:        1, max:        9, sum:               12, "
      "sumsq:                 91 }\n"
      "obdfilter.scratch-OST000f.job_stats=\n"
      "job_stats:\n"
      "- job_id:          \"11317854\\x3A17627127\\x3Ar01c01\"\n"
      "  snapshot_time:   1723114647.887515895 secs.nsecs\n"
      "  punch:           { samples:           1, unit:  reqs }\n"
      "obdfilter.scratch-OST0010.job_stats=job_stats:\n"
      "osd-ldiskfs.scratch-OST0010.filesfree=40134\n");
  CHECK(p.summary.problems.empty());
  CHECK(p.summary.targets == std::vector<std::string>{"scratch-MDT0000", "scratch-OST000f", "scratch-OST0010"});
  REQUIRE(p.entries.size() == 2);
  CHECK(p.entries[0].since_boot);
  CHECK(p.entries[0].snapshot_time == doctest::Approx(3143196.864165417));
  CHECK(p.Counter(0, "read_bytes")->hist.size() == 2);
  CHECK(p.Counter(0, "rename_trylocks")->sum == 12u);  // an op this build does not know is kept
  CHECK(p.entries[1].target == "scratch-OST000f");
  CHECK(p.entries[1].job_id == "11317854:17627127:r01c01");
  CHECK(p.entries[1].quoted);
  CHECK(!p.entries[1].since_boot);
  CHECK(p.Counter(1, "punch")->unit == "reqs");
  CHECK(!p.Counter(1, "punch")->sum.has_value());
}

TEST_CASE("jobstats: hostile input names the line and keeps the other entries") {
  std::string big(1 << 20, 'x');
  const Parsed p = ParseText(
      "job_stats:\n"
      "- job_id:          good1\n"
      "  snapshot_time:   1510781837\n"
      "  open:            { samples:           5, unit:  reqs }\n"
      "- job_id:          half\n"
      "  snapshot_time:   15107818xx\n"
      "  open:            { samples:           1, unit:  reqs }\n"
      "\x01\x02\xff binary garbage\n" +
      big +
      "\n"
      "- job_id:          \"bad\\xZZ\"\n"
      "  open:            { samples: 1 }\n"
      "- job_id:          \"1234567890123456789012345\\x3A1\"\n"
      "  snapshot_time:   1510781838\n"
      "  open:            { samples:  notanumber, unit:  reqs }\n"
      "- job_id:          good2\n"
      "  snapshot_time:   1510781839\n"
      "  close:           { samples:           7, unit:  reqs }\n"
      "- job_id:          cut\n"
      "  snapshot_time:   1510781840\n"
      "  open:            { samples:           1, unit:");
  REQUIRE(p.entries.size() == 2);
  CHECK(p.entries[0].job_id == "good1");
  CHECK(p.entries[1].job_id == "good2");
  CHECK(p.Counter(1, "close")->samples == 7);
  // Each problem names the file and its line.
  REQUIRE(p.summary.problems.size() >= 5);
  CHECK(p.summary.problems[0].message == "capture.txt: line 6: snapshot_time '15107818xx' is not a time");
  CHECK(p.summary.problems[0].line == 6);
  bool binary = false, escape = false, number = false, end = false;
  for (const auto& pr : p.summary.problems) {
    binary |= pr.line == 8;
    escape |= pr.message.find("bad escape") != std::string::npos;
    number |= pr.message.find("'notanumber' is not an unsigned integer") != std::string::npos;
    end |= pr.message.find("the file ends inside a counter") != std::string::npos;
  }
  CHECK(binary);
  CHECK(escape);
  CHECK(number);
  CHECK(end);
}

// Issue 14, defect 3: an entry whose counter '{' is never closed used to swallow the rest of
// the file (every later entry lost) in time quadratic in its size.
TEST_CASE("jobstats: an unclosed '{' skips only its entry, names its line, and is read in linear time") {
  // 20,000 entries (about 4 MB); entry 137's read counter has no closing '}'.
  const size_t n = 20000, bad = 137;
  std::string text = "obdfilter.scratch-OST0000.job_stats=\njob_stats:\n";
  uint64_t line = 2, bad_line = 0, next_line = 0;
  for (size_t i = 0; i < n; ++i) {
    text += fmt::format("- job_id:          {}:1001:c{}\n", 100000 + i, i % 97);
    text += "  snapshot_time:   1767225590\n";
    line += 2;
    if (i == bad + 1) next_line = line - 1;
    text += fmt::format("  read_bytes:      {{ samples: {}, unit: bytes, min: 4096, max: 4096, sum: {}{}\n", i + 1,
                        4096 * (i + 1), i == bad ? "" : " }");
    if (i == bad) bad_line = line + 1;
    text += fmt::format("  write:           {{ samples: {}, unit: reqs }}\n", i + 2);
    text += "  punch:           { samples:           1, unit:  reqs }\n";
    line += 3;
  }
  const Parsed p = ParseText(text);
  REQUIRE(p.entries.size() == n - 1);
  for (size_t i = 0, k = 0; i < n; ++i) {
    if (i == bad) continue;
    const JobStatsEntry& e = p.entries[k];
    CHECK(e.job_id == fmt::format("{}:1001:c{}", 100000 + i, i % 97));
    REQUIRE(p.Counter(k, "read_bytes") != nullptr);
    CHECK(p.Counter(k, "read_bytes")->sum == 4096 * (i + 1));
    CHECK(p.Counter(k, "write")->samples == i + 2);
    ++k;
  }
  REQUIRE(p.summary.problems.size() == 1);
  CHECK(p.summary.problems[0].line == bad_line);
  CHECK(p.summary.problems[0].message ==
        fmt::format("capture.txt: line {}: a counter whose '{{' is not closed before the next entry (line {})",
                    bad_line, next_line));
  // Linear time, counted rather than timed: every byte of the file is examined by brace counting
  // and counter parsing at most twice (once per line, once in the joined counter).
  CHECK(p.summary.lines == line);
  CHECK(p.summary.scanned <= 2 * text.size());
  CHECK(p.summary.scanned >= text.size() / 2);  // the counter counts what the parser reads
}

TEST_CASE("jobstats: an unclosed '{' before the end of a target, of the file, or past the counter size limit") {
  // Before the next target's framing line: the entry is skipped, the next target is read.
  Parsed p = ParseText(
      "obdfilter.fs-OST0000.job_stats=\njob_stats:\n"
      "- job_id:          a.0\n  snapshot_time:   1767225590\n  read: { samples: 1, unit: reqs\n"
      "obdfilter.fs-OST0001.job_stats=\njob_stats:\n"
      "- job_id:          b.0\n  snapshot_time:   1767225590\n  read: { samples: 2, unit: reqs }\n");
  REQUIRE(p.entries.size() == 1);
  CHECK(p.entries[0].target == "fs-OST0001");
  CHECK(p.entries[0].job_id == "b.0");
  REQUIRE(p.summary.problems.size() == 1);
  CHECK(p.summary.problems[0].message ==
        "capture.txt: line 5: a counter whose '{' is not closed before the next entry (line 6)");
  // A wrapped counter is still joined across lines; one that never closes within 64 KiB is given
  // up, and the entry skipped, without holding the rest of the entry in memory.
  std::string filler;
  for (int i = 0; i < 5000; ++i) filler += "  hist_bucket_" + std::to_string(i) + ": 1,\n";
  p = ParseText(
      "job_stats:\n- job_id: a.0\n  snapshot_time: 1767225590\n  read: { samples: 3,\n   unit: reqs }\n"
      "- job_id: b.0\n  snapshot_time: 1767225590\n  read: { samples: 1,\n" +
      filler + "- job_id: c.0\n  snapshot_time: 1767225590\n  open: { samples: 4 }\n");
  REQUIRE(p.entries.size() == 2);
  CHECK(p.Counter(0, "read")->samples == 3);
  CHECK(p.entries[1].job_id == "c.0");
  REQUIRE(p.summary.problems.size() == 1);
  CHECK(p.summary.problems[0].line == 8);
  CHECK(p.summary.problems[0].message.starts_with("capture.txt: line 8: a counter whose '{' is not closed before "));
  // One that closes past 64 KiB is reported as too long; the entries around it are kept.
  p = ParseText("job_stats:\n- job_id: a.0\n  snapshot_time: 1767225590\n  read: { samples: 1,\n" + filler +
                "  }\n- job_id: c.0\n  snapshot_time: 1767225590\n  open: { samples: 4 }\n");
  REQUIRE(p.entries.size() == 1);
  CHECK(p.entries[0].job_id == "c.0");
  REQUIRE(p.summary.problems.size() == 1);
  CHECK(p.summary.problems[0].message == "capture.txt: line 4: a counter longer than 65536 bytes");
}

}  // namespace
}  // namespace xtfq

namespace xtfq {
namespace {

TEST_CASE("jobstats: job ids are parsed against the site's templates and classified as the Puhti study saw them") {
  auto c = JobIdClassifier::Make();
  REQUIRE(c.ok());
  struct Case {
    const char* id;
    JobIdClass cls;
    const char* job;
    std::optional<int64_t> uid;
    const char* node;
    const char* exe;
  };
  const Case cases[] = {
      {"11317854:17627127:r01c01", JobIdClass::kOk, "11317854", 17627127, "r01c01", ""},
      {":17627127:r01c01", JobIdClass::kMissingJob, "", 17627127, "r01c01", ""},
      {":17627127:r01c01.bullx", JobIdClass::kMissingJob, "", 17627127, "r01c01", ""},
      {"11317854:17627127:r01c01.bullx", JobIdClass::kFqdn, "11317854", 17627127, "r01c01", ""},
      {"11317854_3.batch:2001:r02c11", JobIdClass::kOk, "11317854_3.batch", 2001, "r02c11", ""},
      {"12:0:oss4", JobIdClass::kSystemUid, "12", 0, "oss4", ""},
      {"md5sum.1001", JobIdClass::kOk, "", 1001, "", "md5sum"},
      {"bash.0", JobIdClass::kSystemUid, "", 0, "", "bash"},
      {"mount.lustre.0", JobIdClass::kSystemUid, "", 0, "", "mount.lustre"},  // the executable keeps its dot
      {"kworker/86:1.0", JobIdClass::kSystemUid, "", 0, "", "kworker/86:1"},
      {"11317854", JobIdClass::kOk, "11317854", std::nullopt, "", ""},  // a bare job id (the third default, %j)
      {"11317854_3.batch", JobIdClass::kOk, "11317854_3.batch", std::nullopt, "", ""},
      {"11317854:", JobIdClass::kMalformed, "", std::nullopt, "", ""},
      {"x11317854", JobIdClass::kMalformed, "", std::nullopt, "", ""},
      {"lfs.0.", JobIdClass::kMalformed, "", std::nullopt, "", ""},
      {"", JobIdClass::kMissingJob, "", std::nullopt, "", ""},  // the bare %j with no job in it
      {"4668060:17627127:r01c01.bullx.c", JobIdClass::kTruncated, "4668060", 17627127, "r01c01", ""},  // 31 bytes
  };
  for (const Case& k : cases) {
    CAPTURE(k.id);
    const JobIdFields f = c->Classify(k.id);
    CHECK(JobIdClassName(f.cls) == JobIdClassName(k.cls));
    CHECK(f.job == k.job);
    CHECK(f.uid == k.uid);
    CHECK(f.node == k.node);
    CHECK(f.exe == k.exe);
  }
  // Other templates: %j@%u@%H (glljobstat) and %e:%u:%H (DDN 164).
  auto g = JobIdClassifier::Make({"%j@%u@%H", "%e:%u:%H"});
  REQUIRE(g.ok());
  CHECK(g->Classify("4668060@92097@comp0173").cls == JobIdClass::kOk);
  CHECK(g->Classify("@33918@login").cls == JobIdClass::kMissingJob);
  CHECK(g->Classify("@0@oss4").cls == JobIdClass::kSystemUid);
  const JobIdFields b = g->Classify("bash:0:es-2-virt3-cosp");
  CHECK(b.template_index == 1);
  CHECK(b.exe == "bash");
  CHECK(b.node == "es-2-virt3-cosp");
  CHECK(g->Classify("node_exporter:989:es-2-virt3-co").cls == JobIdClass::kTruncated);  // 31 bytes
  // Bad templates are refused with a reason.
  CHECK(!JobIdClassifier::Make({"%j%u"}).ok());
  CHECK(!JobIdClassifier::Make({"%q.%u"}).ok());
  CHECK(!JobIdClassifier::Make({"static"}).ok());
}

}  // namespace
}  // namespace xtfq

namespace xtfq {
namespace {

TEST_CASE("jobstats: the collection time comes from a collected_at line or the file name") {
  const Parsed p = ParseText(
      "# collected_at: 1723114700.5\njob_stats:\n- job_id: a.1001\n  snapshot_time: 1723114647\n"
      "  open: { samples: 1, unit: reqs }\n");
  REQUIRE(p.summary.collected_at.has_value());
  CHECK(*p.summary.collected_at == 1723114700.5);
  CHECK(p.summary.problems.empty());
  CHECK(p.entries.size() == 1);
  CHECK(JobStatsParser::TimeFromName("/data/oss3-jobstats-1723114700.txt") == 1723114700.0);
  CHECK(JobStatsParser::TimeFromName("oss3_1723114700.25.txt") == 1723114700.25);
  CHECK(JobStatsParser::TimeFromName("oss3-2024-08-08T11:00:00Z.txt") == 1723114800.0);
  CHECK(JobStatsParser::TimeFromName("oss3-20240808T110000Z.txt") == 1723114800.0);
  CHECK(!JobStatsParser::TimeFromName("oss3-jobstats.txt").has_value());
  CHECK(!JobStatsParser::TimeFromName("OST0002.txt").has_value());
  CHECK(!JobStatsParser::TimeFromName("oss3-2024-13-08T11:00:00Z.txt").has_value());
}

}  // namespace
}  // namespace xtfq

namespace xtfq {
namespace {

// Everything a parse gives: each entry with every counter field, the problems and the warnings.
std::string Describe(File& f, bool one_pass) {
  std::string out;
  auto s = JobStatsParser::Parse(
      f, "cat-target",
      [&](JobStatsEntry& e) {
        out += fmt::format("entry {} [{}] q{} {} {} {} b{} line {}\n", e.target, e.job_id, e.quoted, e.snapshot_time,
                           e.start_time.value_or(-1), e.elapsed_time.value_or(-1), e.since_boot, e.line);
        for (const JobStatsCounter& c : e.counters) {
          auto opt = [](const std::optional<uint64_t>& v) { return v ? fmt::format("{}", *v) : std::string("-"); };
          out += fmt::format("  {} {} [{}] {} {} {} {} line {} hist", c.op, c.samples, c.unit, opt(c.min), opt(c.max),
                             opt(c.sum), opt(c.sumsq), c.line);
          for (const auto& [label, n] : c.hist) out += fmt::format(" {}={}", label, n);
          out += '\n';
        }
        return Ok();
      },
      one_pass);
  if (!s.ok()) return "error: " + s.error().message();
  out += fmt::format("entries {} lines {} targets {}\n", s->entries, s->lines, fmt::join(s->targets, ","));
  for (const auto& p : s->problems) out += fmt::format("problem {}: {}\n", p.line, p.message);
  for (const auto& w : s->warnings) out += fmt::format("warning {}: {}\n", w.line, w.message);
  return out;
}

std::string DescribeText(const std::string& text, bool one_pass) {
  StringFile f = test::TextFile("capture.txt", text);
  return Describe(f, one_pass);
}

std::string DescribeFile(const std::string& path, bool one_pass) {
  auto f = PosixFile::Open(path, PosixFile::Mode::kRead);
  REQUIRE_MESSAGE(f.ok(), Why(f));
  return Describe(**f, one_pass);
}

TEST_CASE("jobstats: the one-pass counter reader reads every line as the general parser does") {
  // Lines it must give way on (the general parser then reads or refuses them), and lines it takes.
  const std::vector<std::string> lines = {
      "open: { samples: 5, unit: reqs }",
      "open:{samples:5,unit:reqs}",
      "open:            { samples:         189, unit: usecs, min:       16, max:     2004, sum:           182948, "
      "sumsq:          244035520 }",
      "read_bytes: { samples: 3, unit: bytes, min: 4096, max: 8192, sum: 16384, hist: { 4K: 2, 8K: 1 } }",
      "read_bytes: { samples: 3, unit: bytes, hist: { 4K: 2, 8K: 1 }, min: 4096, max: 8192, sum: 16384 }",
      "read_bytes: { samples: 3, unit: bytes, hist: { } }",
      "read_bytes: { samples: 3, unit: bytes, hist: {} }",
      "read_bytes: { samples: 3, unit: bytes, hist: { 4K: 2,, 8K: 1 } }",
      "read_bytes: { samples: 3, unit: bytes, hist: { 4K: 2, 8K: 1 }, hist: { 1M: 1 } }",
      "read_bytes: { samples: 3, unit: bytes, hist : { 4K: 2 } }",
      "read_bytes: { samples: 3, unit: bytes, hist: { 4K: 2 } sum: 5 }",
      "open: { samples : 5, unit: reqs }",
      "open : { samples: 5, unit: reqs }",
      "open: { samples: 5, unit: reqs, xhist: 5 }",
      "open: { samples: 5, unit: reqs, later_key: 7 }",
      "open: { samples: 5, unit: }",
      "open: { samples: 5, unit: re:qs }",
      "open: { samples: 5, unit: a b }",
      "open: { samples: 5, unit: bytes, unit: reqs }",
      "open: { samples: 18446744073709551615, unit: reqs }",
      "open: { samples: 18446744073709551616, unit: reqs }",
      "open: { samples: 0018446744073709551615, unit: reqs }",
      "open: { samples: +5, unit: reqs }",
      "open: { samples: -5, unit: reqs }",
      "open: { samples: 5x, unit: reqs }",
      "open: { samples: 5 6, unit: reqs }",
      "open: { unit: reqs }",
      "open: { samples: 5, unit: reqs } }",
      "open: { samples: 5, unit: reqs } trailing",
      "open: { samples: 5, unit: reqs }\r",
      "open:\t{\tsamples:\t5,\tunit:\treqs\t}",
      "open: { samples: 5, samples: 6 }",
      "open: { samples: 5,, unit: reqs }",
      "open: { samples: 5, unit: reqs, }",
      "op-name: { samples: 5 }",
      "ops/x: { samples: 5 }",
      "open: { samples: 5, unit: reqs",
      "open: { samples: 5, unit: reqs, hist: { 4K: 1",
      "open: samples: 5 }",
      "{ samples: 5 }",
      ": { samples: 5 }",
      "open: { samples: 5, unit: weird_unit }",
      "snapshot_time: { samples: 5 }",
      "start_time:{samples:5}",
      "elapsed_time: { samples: 5, unit: reqs }",
  };
  for (const std::string& line : lines) {
    CAPTURE(line);
    const std::string text =
        "job_stats:\n- job_id: a.1001\n  snapshot_time: 1723114647\n  " + line + "\n  close: { samples: 1 }\n";
    CHECK(DescribeText(text, true) == DescribeText(text, false));
  }
  // A wrapped counter (its lines joined) and a counter after a bad one.
  const std::string wrapped =
      "job_stats:\n- job_id: a.1001\n  snapshot_time: 1723114647\n  read_bytes: { samples: 3, unit: bytes,\n"
      "    hist: { 4K: 2, 8K: 1 } }\n  open: { samples: +1 }\n  close: { samples: 1 }\n- job_id: b\n"
      "  open: { samples: 2 }\n";
  CHECK(DescribeText(wrapped, true) == DescribeText(wrapped, false));

  // Every variant the generator prints (with malformed ids), and every real capture.
  test::TempDir dir;
  size_t files = 0;
  for (const std::string v : {"A", "B", "C", "D", "E1", "E2", "F"}) {
    JobStatsGenOptions o;
    o.variant = v, o.targets = 5, o.jobs = 12, o.samples = 3, o.malformed_rate = 0.1;
    REQUIRE(JobStatsGenerator::Write(o, dir.File("gen" + v)).ok());
    for (const auto& e : fs::directory_iterator(dir.File("gen" + v))) {
      if (e.path().extension() != ".txt") continue;
      CAPTURE(e.path().string());
      CHECK(DescribeFile(e.path().string(), true) == DescribeFile(e.path().string(), false));
      ++files;
    }
  }
  CHECK(files >= 7 * 3);
  if (test::SharedMissing(Data())) return;
  for (const auto& e : fs::directory_iterator(Data())) {
    if (e.path().extension() != ".txt") continue;
    CAPTURE(e.path().string());
    CHECK(DescribeFile(e.path().string(), true) == DescribeFile(e.path().string(), false));
    ++files;
  }
  CHECK(files >= 7 * 3 + 14);
}

// The targets a parse names (its `param=` targets and its entries'), as the importer's held check
// takes them: non-empty, once each, in order.
std::vector<std::string> ParsedTargets(File& f, const std::string& target) {
  std::vector<std::string> out;
  auto add = [&](const std::string& n) {
    if (!n.empty() && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  };
  std::vector<std::string> of_entries;
  auto s = JobStatsParser::Parse(f, target, [&](JobStatsEntry& e) {
    of_entries.push_back(e.target);
    return Ok();
  });
  REQUIRE_MESSAGE(s.ok(), Why(s));
  for (const std::string& t : s->targets) add(t);
  for (const std::string& t : of_entries) add(t);
  return out;
}

// Whether every name of `a` is in `b`.
bool Within(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::all_of(a.begin(), a.end(),
                     [&](const std::string& x) { return std::find(b.begin(), b.end(), x) != b.end(); });
}

TEST_CASE("jobstats: the target scan names every target a parse names, without reading entries") {
  // Crafted: framing with empty and other parameters, a plain cat, CRLF, an unreadable entry of a
  // target the framing does not name (the scan may name more, never fewer), a counter wrapped
  // over lines.
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"obdfilter.s-OST0000.job_stats=\njob_stats:\n- job_id: a\n  open: { samples: 1 }\n"
       "obdfilter.s-OST0001.job_stats=job_stats:\nmdt.s-MDT0000.job_stats=\njob_stats:\n",
       {"s-OST0000", "s-OST0001", "s-MDT0000"}},
      {"job_stats:\n- job_id: a\n  open: { samples: 1 }\n", {"cat-target"}},
      {"job_stats:\n", {"cat-target"}},
      {" job_stats:\nobdfilter.fs-OST0001.job_stats=\njob_stats:\n- job_id: 7\n  open: { samples: 1 }\n",
       {"cat-target", "fs-OST0001"}},
      {"\tjob_stats:\n  - job_id: 7\n  open: { samples: 1 }\n", {"cat-target"}},
      {"", {}},
      {"obdfilter.s-OST0002.job_stats=\r\njob_stats:\r\n- job_id: a\r\n  open: { samples: 1 }\r\n", {"s-OST0002"}},
      {"osd-ldiskfs.s-OST0000.brw_stats=\n- job_id: x\nobdfilter.s-OST0003.job_stats=\njob_stats:\n", {"s-OST0003"}},
      {"- job_id: \"bad\\xZZ\"\n  open: { samples: 1 }\n", {"cat-target"}},
      {"obdfilter.s-OST0004.job_stats=\njob_stats:\n- job_id: a\n  read_bytes: { samples: 3, unit: bytes,\n"
       "    hist: { 4K: 2, 8K: 1 } }\n  - job_id: b\n  open: { samples: 1 }\n",
       {"s-OST0004"}},
  };
  for (const auto& [text, want] : cases) {
    CAPTURE(text);
    StringFile a = test::TextFile("a.txt", text);
    auto got = JobStatsParser::Targets(a, "cat-target");
    REQUIRE_MESSAGE(got.ok(), Why(got));
    CHECK(*got == want);
    StringFile b = test::TextFile("b.txt", text);
    CHECK(Within(ParsedTargets(b, "cat-target"), *got));
  }
  // Every variant the generator prints, and every real capture: the same targets as a parse.
  test::TempDir dir;
  size_t files = 0;
  auto check = [&](const std::string& path) {
    CAPTURE(path);
    auto f = PosixFile::Open(path, PosixFile::Mode::kRead);
    REQUIRE(f.ok());
    auto got = JobStatsParser::Targets(**f, "");
    REQUIRE_MESSAGE(got.ok(), Why(got));
    auto g = PosixFile::Open(path, PosixFile::Mode::kRead);
    REQUIRE(g.ok());
    CHECK(*got == ParsedTargets(**g, ""));
    ++files;
  };
  for (const std::string v : {"A", "B", "C", "D", "E1", "E2", "F"}) {
    JobStatsGenOptions o;
    o.variant = v, o.targets = 9, o.jobs = 12, o.samples = 3, o.malformed_rate = 0.1;
    REQUIRE(JobStatsGenerator::Write(o, dir.File("gen" + v)).ok());
    for (const auto& e : fs::directory_iterator(dir.File("gen" + v))) {
      if (e.path().extension() == ".txt") check(e.path().string());
    }
  }
  CHECK(files >= 7 * 3 * 3);
  if (test::SharedMissing(Data())) return;
  for (const auto& e : fs::directory_iterator(Data())) {
    if (e.path().extension() == ".txt") check(e.path().string());
  }
  CHECK(files >= 7 * 3 * 3 + 14);
}

}  // namespace
}  // namespace xtfq
