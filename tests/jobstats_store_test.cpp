// job_stats in a store against independent expectations: the generator's ground truth (the
// activity it drew, never differenced counters) for every Lustre variant, over random windows,
// per series, per job and per target, indexed and scanned, in one import and in two; and a small
// hand-written history whose steps are computed by hand (reset, start_time change, new series,
// absence, duplicates, first collection as baseline).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "gen/jobstats_generator.h"
#include "importers/jobstats/jobstats_parser.h"
#include "query/core/store_reader.h"
#include "query/jobstats/jobstats_window_query.h"
#include "tests/shared_data.h"
#include "tests/temp_dir.h"
#include "tests/truth_csv.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq {
namespace {

using test::Why;

struct TruthStep {
  std::string target, id, op;
  int64_t t0, t1;
  uint64_t delta;
};

// The generator's truth_steps.csv: target, id, op, t0, t1, delta.
std::vector<TruthStep> TruthSteps(const std::string& path) {
  std::vector<TruthStep> out;
  for (const auto& r : test::ReadTruthCsv(path)) {
    out.push_back({r[0], r[1], r[2], std::stoll(r[3]), std::stoll(r[4]), std::stoull(r[5])});
  }
  return out;
}

double Part(const TruthStep& s, int64_t w1, int64_t w2) {
  const int64_t ov = std::min(s.t1, w2) - std::max(s.t0, w1);
  return ov <= 0 ? 0.0 : static_cast<double>(s.delta) * static_cast<double>(ov) / static_cast<double>(s.t1 - s.t0);
}

void Close(double got, double want, const std::string& what) {
  INFO(what.c_str());
  CHECK(got == doctest::Approx(want).epsilon(1e-9).scale(std::max(1.0, std::fabs(want))));
}

// group key -> op -> total, from the store.
std::map<std::string, std::map<std::string, double>> Totals(JobStatsView& js, int64_t t1, int64_t t2,
                                                            const std::vector<JobStatsKey>& by, bool scan,
                                                            const JobStatsFilter& f = {}) {
  auto w = JobStatsWindowQuery::Compute(js, t1, t2, f, by, scan);
  REQUIRE_MESSAGE(w.ok(), Why(w));
  std::map<std::string, std::map<std::string, double>> out;
  for (const auto& g : w->groups) {
    std::string key;
    for (const auto& k : g.keys) key += k + "|";
    for (const auto& [op, o] : g.ops) out[key][op] += o.total;
  }
  return out;
}

void CheckVariant(const std::string& variant, uint64_t seed, bool dense = false) {
  test::TempDir dir;
  JobStatsGenOptions o;
  o.variant = variant, o.targets = 6, o.jobs = dense ? 30 : 60, o.samples = 30, o.seed = seed, o.dense = dense;
  o.malformed_rate = 0.1, o.reset_rate = 0.05, o.missing_rate = 0.1;
  auto gen = JobStatsGenerator::Write(o, dir.File("snap"));
  REQUIRE_MESSAGE(gen.ok(), Why(gen));
  // The data exercise what they should.
  CHECK(gen->resets > 0);
  if (!dense) CHECK(gen->purges > 0);  // a dense job is idle 600 s in a row rarely
  CHECK(gen->missed > 0);
  if (dense) {
    // Every series of every job on every target: as many series per target, and nearly all of
    // them in each collection of their target after the first (an entry appears when its job is
    // first active, and is purged only after 600 s idle).
    CHECK(gen->series % o.targets == 0);
    CHECK(gen->entries > gen->series * (o.samples - 1) * 8 / 10 * (10 - 1) / 10);
    CHECK(gen->entries <= gen->series * (o.samples - 1));
  }
  const std::vector<TruthStep> truth = TruthSteps(dir.File("snap/truth_steps.csv"));
  REQUIRE(truth.size() > 500);
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> truth_series;
  for (const auto& r : test::ReadTruthCsv(dir.File("snap/truth_series.csv"))) truth_series[{r[0], r[1]}] = r;
  // The two jobs with the most series (the first by id among equals).
  std::vector<std::string> busiest;
  {
    std::map<std::string, int> n;
    for (const auto& [k, r] : truth_series) {
      if (!r[3].empty()) ++n[r[3]];
    }
    std::vector<std::pair<int, std::string>> by(n.size());
    std::transform(n.begin(), n.end(), by.begin(), [](const auto& x) { return std::pair{-x.second, x.first}; });
    std::sort(by.begin(), by.end());
    for (size_t i = 0; i < 2 && i < by.size(); ++i) busiest.push_back(by[i].second);
    REQUIRE(busiest.size() == 2);
  }

  // One import, and the same snapshots in two imports (the second continues from the stored state).
  test::Run one = test::Xtfq(dir, "import snap -o one.xtfq");
  REQUIRE_MESSAGE(one.status == 0, one.err);
  // Parsing on a second thread (the default) imports the same store as on one thread: equal bytes
  // after the two superblocks (which hold the commit time), and the same warnings.
  {
    test::Run single = test::Xtfq(dir, "import --threads 1 snap -o single.xtfq");
    REQUIRE_MESSAGE(single.status == 0, single.err);
    auto bytes = [&](const char* name) {
      std::ifstream in(dir.File(name), std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    };
    const std::string a = bytes("one.xtfq"), b = bytes("single.xtfq");
    REQUIRE(a.size() == b.size());
    auto opened = StoreReader::Open(dir.File("one.xtfq"));
    REQUIRE_MESSAGE(opened.ok(), test::Why(opened));
    const size_t superblocks = 2 * size_t{(*opened)->store().page_size()};
    CHECK(a.compare(superblocks, std::string::npos, b, superblocks, std::string::npos) == 0);
    auto warnings = [](const std::string& err) {
      std::string w;
      std::istringstream lines(err);
      for (std::string line; std::getline(lines, line);) {
        if (line.find("warning") != std::string::npos) w += line + "\n";
      }
      return w;
    };
    CHECK(warnings(one.err) == warnings(single.err));
  }
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir.File("snap"))) {
    if (e.path().extension() == ".txt") files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end(), [](const std::string& a, const std::string& b) {
    return a.substr(a.find('-')) < b.substr(b.find('-'));  // by collection time (the name's stamp)
  });
  std::filesystem::create_directories(dir.File("first")), std::filesystem::create_directories(dir.File("second"));
  for (size_t i = 0; i < files.size(); ++i) {
    std::filesystem::copy(dir.File("snap/" + files[i]),
                          dir.File((i < files.size() / 2 ? "first/" : "second/") + files[i]));
  }
  for (const char* part : {"first", "second"}) {
    test::Run r = test::Xtfq(dir, fmt::format("import --format jobstats {} -o two.xtfq", part));
    REQUIRE_MESSAGE(r.status == 0, r.err);
  }

  for (const char* store : {"one.xtfq", "two.xtfq"}) {
    CAPTURE(store);
    auto reader = StoreReader::Open(dir.File(store));
    REQUIRE_MESSAGE(reader.ok(), Why(reader));
    auto js = JobStatsView::Open(**reader);
    REQUIRE_MESSAGE(js.ok(), Why(js));
    // Classes and parsed fields per id.
    for (const JobStatsSeriesInfo& s : (*js)->series()) {
      auto it = truth_series.find({(*js)->targets()[s.target], s.raw});
      REQUIRE_MESSAGE(it != truth_series.end(), s.raw);
      CHECK_MESSAGE(JobIdClassName(s.cls) == it->second[2], s.raw);
      if (!it->second[4].empty()) {
        CHECK(s.job == it->second[3]);
        CHECK(std::to_string(s.uid) == it->second[4]);
        CHECK(s.node == it->second[5]);
      }
    }
    auto span = (*js)->Span();
    REQUIRE(span.ok());
    REQUIRE(span->has_value());
    const auto [first, last] = **span;
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 12; ++trial) {
      int64_t t1 = first + static_cast<int64_t>(rng() % static_cast<uint64_t>(last - first));
      int64_t t2 = t1 + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(last - t1 + 200));
      if (trial == 0) t1 = first - 100, t2 = last + 100;  // everything: exact integers
      CAPTURE(t1);
      CAPTURE(t2);
      // Per series and op.
      std::map<std::string, std::map<std::string, double>> want_series, want_job, want_target;
      for (const TruthStep& s : truth) {
        const double p = Part(s, t1, t2);
        if (p == 0) continue;
        want_series[s.target + "|" + s.id + "|"][s.op] += p;
        const auto& ts = truth_series[{s.target, s.id}];
        want_job[(ts[3].empty() ? "-" : ts[3]) + "|"][s.op] += p;
        want_target[s.target + "|"][s.op] += p;
      }
      auto check = [&](const std::map<std::string, std::map<std::string, double>>& got,
                       const std::map<std::string, std::map<std::string, double>>& want, const char* what) {
        INFO(what);
        size_t nonzero = 0;
        for (const auto& [k, ops] : got) {
          for (const auto& [op, v] : ops) nonzero += v != 0;
        }
        size_t expected = 0;
        for (const auto& [k, ops] : want) {
          for (const auto& [op, v] : ops) {
            ++expected;
            auto gk = got.find(k);
            const double g = gk == got.end() || !gk->second.contains(op) ? 0.0 : gk->second.at(op);
            Close(g, v, k + op);
            if (trial == 0) CHECK(g == v);  // whole steps: exact
          }
        }
        CHECK(nonzero == expected);
      };
      check(Totals(**js, t1, t2, {JobStatsKey::kTarget, JobStatsKey::kId}, false), want_series, "series");
      check(Totals(**js, t1, t2, {JobStatsKey::kJob}, false), want_job, "job");
      check(Totals(**js, t1, t2, {JobStatsKey::kTarget}, false), want_target, "target (index)");
      check(Totals(**js, t1, t2, {JobStatsKey::kTarget}, true), want_target, "target (scan)");
      // Peak rates: a group's rate_max is the highest of its summed rate over the window (a naive
      // sweep of the truth's steps at every step edge), series_rate_max the highest of one step.
      std::map<std::string, std::map<std::string, std::vector<const TruthStep*>>> by_target, by_job;
      for (const TruthStep& s : truth) {
        if (std::min(s.t1, t2) <= std::max(s.t0, t1)) continue;
        by_target[s.target][s.op].push_back(&s);
        const auto& ts = truth_series[{s.target, s.id}];
        by_job[ts[3].empty() ? "-" : ts[3]][s.op].push_back(&s);
      }
      auto naive_peak = [&](const std::vector<const TruthStep*>& steps) {
        double peak = 0;
        for (const TruthStep* at : steps) {  // the summed rate is highest at some step's start (or the window's)
          const int64_t t = std::max(at->t0, t1);
          double sum = 0;
          for (const TruthStep* s : steps) {
            if (s->t0 <= t && t < s->t1) sum += static_cast<double>(s->delta) / static_cast<double>(s->t1 - s->t0);
          }
          peak = std::max(peak, sum);
        }
        return peak;
      };
      auto naive_series_max = [&](const std::vector<const TruthStep*>& steps) {
        double m = 0;
        for (const TruthStep* s : steps)
          m = std::max(m, static_cast<double>(s->delta) / static_cast<double>(s->t1 - s->t0));
        return m;
      };
      auto check_peaks = [&](const std::map<std::string, std::map<std::string, std::vector<const TruthStep*>>>& want,
                             JobStatsKey key, bool scan, const char* what) {
        INFO(what);
        auto w = JobStatsWindowQuery::Compute(**js, t1, t2, {}, {key}, scan);
        REQUIRE_MESSAGE(w.ok(), Why(w));
        size_t checked = 0;
        for (const JobStatsGroup& g : w->groups) {
          auto it = want.find(g.keys.at(0));
          for (const auto& [op, o] : g.ops) {
            const std::vector<const TruthStep*> none;
            const auto& steps = it == want.end() || !it->second.contains(op) ? none : it->second.at(op);
            Close(o.rate_max, naive_peak(steps), g.keys[0] + " " + op + " rate_max");
            Close(o.series_rate_max, naive_series_max(steps), g.keys[0] + " " + op + " series_rate_max");
            CHECK(o.rate_max >= o.series_rate_max * (1 - 1e-12));
            ++checked;
          }
        }
        CHECK(checked > 0);
      };
      // One job's series (a filter): by target, from each block's steps of that job, against the
      // truth and the scan.
      for (const std::string& job : busiest) {
        CAPTURE(job);
        std::map<std::string, std::map<std::string, double>> want;
        for (const TruthStep& s : truth) {
          const double p = Part(s, t1, t2);
          if (p != 0 && truth_series[{s.target, s.id}][3] == job) want[s.target + "|"][s.op] += p;
        }
        JobStatsFilter f;
        f.jobs = {job};
        check(Totals(**js, t1, t2, {JobStatsKey::kTarget}, false, f), want, "one job (index)");
        check(Totals(**js, t1, t2, {JobStatsKey::kTarget}, true, f), want, "one job (scan)");
      }
      if (trial < 4) {
        check_peaks(by_target, JobStatsKey::kTarget, false, "peak by target (index)");
        check_peaks(by_target, JobStatsKey::kTarget, true, "peak by target (scan)");
        check_peaks(by_job, JobStatsKey::kJob, false, "peak by job");
      }
    }
  }
}

TEST_CASE("jobstats: every variant gives back the generator's ground truth") {
  uint64_t seed = 11;
  for (const char* v : {"A", "B", "C", "D", "E1", "E2", "F"}) {
    SUBCASE(v) { CheckVariant(v, seed); }
    ++seed;
  }
}

TEST_CASE("jobstats: the dense shape gives back the generator's ground truth") {
  // Bytes ops drawn per size class, not per transfer: the importer still finds the truth.
  for (const char* v : {"A", "E2"}) {
    SUBCASE(v) { CheckVariant(v, 41, true); }
  }
}

// What JobStatsGenerator::Stream gives out is what Write puts in files, in collection order.
class CapturedGen final : public JobStatsGenOutput {
 public:
  Status Snapshot(const std::string& name, int64_t collected, std::string text) override {
    CHECK((times.empty() || collected >= times.back()));
    times.push_back(collected);
    files[name] = std::move(text);
    return Ok();
  }
  Status TrueStep(const Step& s) override {
    steps += fmt::format("{},{},{},{},{},{}\n", s.target, s.id, s.op, s.t0, s.t1, s.delta);
    return Ok();
  }
  Status TrueSeries(const SeriesTruth& s) override {
    series += fmt::format("{},{},{},{},{},{}\n", s.target, s.id, s.cls, s.job, s.uid, s.node);
    return Ok();
  }
  Status Finish() override {
    ++finished;
    return Ok();
  }
  std::map<std::string, std::string> files;
  std::vector<int64_t> times;
  std::string steps = "target,id,op,t0,t1,delta\n", series = "target,id,class,job,uid,node\n";
  int finished = 0;
};

// A few series of a large block are found by bisection (a block's steps are in series order):
// one job's totals by target, against the truth and the scan, reading a few steps of each block.
TEST_CASE("jobstats: one job's steps are found in each block by bisection") {
  test::TempDir dir;
  JobStatsGenOptions o;
  o.targets = 2, o.jobs = 400, o.samples = 8, o.seed = 17, o.dense = true;
  REQUIRE(JobStatsGenerator::Write(o, dir.File("snap")).ok());
  test::Run r = test::Xtfq(dir, "import -q snap -o s.xtfq");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  std::map<std::pair<std::string, std::string>, std::string> job_of;  // (target, id) -> job
  for (const auto& row : test::ReadTruthCsv(dir.File("snap/truth_series.csv"))) job_of[{row[0], row[1]}] = row[3];
  const std::vector<TruthStep> truth = TruthSteps(dir.File("snap/truth_steps.csv"));
  auto reader = StoreReader::Open(dir.File("s.xtfq"));
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  auto js = JobStatsView::Open(**reader);
  REQUIRE_MESSAGE(js.ok(), Why(js));
  auto span = (*js)->Span();
  REQUIRE((span.ok() && span->has_value()));
  const auto [first, last] = **span;
  for (const std::string job : {"4000021", "4001246", "4002793"}) {
    for (auto [t1, t2] : {std::pair{first - 10, last + 10}, std::pair{first + 200, first + 333}}) {
      CAPTURE(job);
      CAPTURE(t1);
      std::map<std::string, std::map<std::string, double>> want;
      for (const TruthStep& s : truth) {
        const double p = Part(s, t1, t2);
        if (p != 0 && job_of[{s.target, s.id}] == job) want[s.target + "|"][s.op] += p;
      }
      REQUIRE(!want.empty());
      JobStatsFilter f;
      f.jobs = {job};
      for (bool scan : {false, true}) {
        const auto got = Totals(**js, t1, t2, {JobStatsKey::kTarget}, scan, f);
        CHECK(got.size() == want.size());
        for (const auto& [k, ops] : want) {
          for (const auto& [op, v] : ops) {
            auto gk = got.find(k);
            Close(gk == got.end() || !gk->second.contains(op) ? 0.0 : gk->second.at(op), v, k + op);
          }
        }
      }
      auto mine = JobStatsWindowQuery::Compute(**js, t1, t2, f, {JobStatsKey::kTarget}, false);
      auto every = JobStatsWindowQuery::Compute(**js, t1, t2, {}, {JobStatsKey::kTarget, JobStatsKey::kId}, false);
      REQUIRE(mine.ok());
      REQUIRE(every.ok());
      // Each block of ~400 steps: about log2(400) + 2 of them read for the job's one series.
      CHECK(mine->steps_read > 0);
      CHECK(mine->steps_read * 10 < every->steps_read);
    }
  }
}

TEST_CASE("jobstats: the streamed generator gives the files' snapshots and truth") {
  for (const bool dense : {false, true}) {
    CAPTURE(dense);
    test::TempDir dir;
    JobStatsGenOptions o;
    o.variant = "D", o.targets = 9, o.jobs = 25, o.samples = 12, o.seed = 5, o.dense = dense, o.missing_rate = 0.1;
    auto written = JobStatsGenerator::Write(o, dir.File("snap"));
    REQUIRE_MESSAGE(written.ok(), Why(written));
    CapturedGen got;
    auto streamed = JobStatsGenerator::Stream(o, got);
    REQUIRE_MESSAGE(streamed.ok(), Why(streamed));
    CHECK(got.finished == 1);
    CHECK(streamed->files == written->files);
    CHECK(streamed->entries == written->entries);
    CHECK(got.files.size() == written->files);
    auto read = [&](const std::string& name) {
      std::ifstream in(dir.File("snap/" + name), std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    };
    size_t on_disk = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.File("snap"))) {
      const std::string name = e.path().filename().string();
      if (e.path().extension() != ".txt") continue;
      ++on_disk;
      auto it = got.files.find(name);
      REQUIRE_MESSAGE(it != got.files.end(), name);
      CHECK_MESSAGE(it->second == read(name), name);
    }
    CHECK(on_disk == got.files.size());
    CHECK(got.steps == read("truth_steps.csv"));
    CHECK(got.series == read("truth_series.csv"));
    CHECK(std::count(got.steps.begin(), got.steps.end(), '\n') == static_cast<std::ptrdiff_t>(streamed->steps + 1));
  }
}

// A history small enough to work out by hand, on target OST0000.
TEST_CASE("jobstats: steps of a hand-made history") {
  test::TempDir dir;
  constexpr int64_t kB = 1700000000;  // collections at kB + 1000, 1100, 1300, 1400 (1200 missed), 1500
  auto write = [&](const std::string& name, const std::string& text) { std::ofstream(dir.File(name)) << text; };
  auto entry = [](const std::string& id, uint64_t w_samples, uint64_t w_sum, const std::string& start) {
    return fmt::format(
        "- job_id:          {}\n  snapshot_time:   999.5 secs.nsecs\n  start_time:      {} secs.nsecs\n"
        "  elapsed_time:    1.0 secs.nsecs\n"
        "  write_bytes:     {{ samples: {}, unit: bytes, min: 1, max: 9, sum: {}, sumsq: 0 }}\n"
        "  punch:           {{ samples: {}, unit: usecs, min: 1, max: 1, sum: 1, sumsq: 1 }}\n",
        id, start, w_samples, w_sum, w_samples);
  };
  const std::string head = "obdfilter.fs-OST0000.job_stats=\njob_stats:\n";
  // 1000: baseline. a has 10 writes of 1000 bytes.
  write("s-1700001000.txt", head + entry("1:1001:n1", 10, 1000, "900.0"));
  // 1100: a grows to 30/5000 (+20 events, +4000 bytes over 100 s); b appears (new: implicit zero at 1000).
  write("s-1700001100.txt", head + entry("1:1001:n1", 30, 5000, "900.0") + entry("2:1002:n2", 5, 500, "1050.0"));
  // 1300: a went down (a reset: 4/400); b re-created (start_time changed) with 8/800 > 5/500.
  // The same id twice: the dump repeated an entry, the last one stands.
  write("s-1700001300.txt", head + entry("1:1001:n1", 4, 400, "900.0") + entry("2:1002:n2", 1, 1, "1050.0") +
                                entry("2:1002:n2", 8, 800, "1250.0"));
  // 1400: a absent (purged); b unchanged.
  write("s-1700001400.txt", head + entry("2:1002:n2", 8, 800, "1250.0"));
  // 1500: a back: new with an implicit zero at 1400.
  write("s-1700001500.txt", "# collected_at: 1700001500\n" + head + entry("1:1001:n1", 2, 64, "1450.0") +
                                entry("2:1002:n2", 8, 800, "1250.0"));
  test::Run r = test::Xtfq(dir,
                           "import s-1700001000.txt s-1700001100.txt s-1700001300.txt s-1700001400.txt "
                           "s-1700001500.txt --format jobstats -o h.xtfq");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.err.find("1 duplicates replaced") != std::string::npos);
  auto reader = StoreReader::Open(dir.File("h.xtfq"));
  REQUIRE(reader.ok());
  auto js = JobStatsView::Open(**reader);
  REQUIRE(js.ok());
  auto total = [&](int64_t t1, int64_t t2, const std::string& id, const std::string& op) {
    JobStatsFilter f;
    f.ids = {id}, f.ops = {op};
    auto w = JobStatsWindowQuery::Compute(**js, t1, t2, f, {JobStatsKey::kId}, false);
    REQUIRE_MESSAGE(w.ok(), Why(w));
    // A series without a rate step in the window is still listed, with no op (zeros).
    REQUIRE(w->groups.size() == 1);
    return w->groups[0].ops.empty() ? 0.0 : w->groups[0].ops.begin()->second.total;
  };
  // a: steps [1000,1100) +4000 bytes, [1100,1300) 400 bytes (reset), [1400,1500) 64 (new).
  CHECK(total(kB + 0, kB + 2000, "1:1001:n1", "write_bytes") == 4000 + 400 + 64);
  CHECK(total(kB + 1050, kB + 1100, "1:1001:n1", "write_bytes") == doctest::Approx(2000));
  CHECK(total(kB + 1250, kB + 1450, "1:1001:n1", "write_bytes") ==
        doctest::Approx(100 + 32));                                     // 400*50/200 + 64*50/100
  CHECK(total(kB + 0, kB + 2000, "1:1001:n1", "punch") == 20 + 4 + 2);  // events for usecs counters
  // b: [1000,1100) 500 (new), [1100,1300) 800 (start_time changed: the last duplicate), then nothing.
  CHECK(total(kB + 0, kB + 2000, "2:1002:n2", "write_bytes") == 500 + 800);
  CHECK(total(kB + 1300, kB + 2000, "2:1002:n2", "write_bytes") == 0);
  CHECK(total(kB + 1200, kB + 1300, "2:1002:n2", "write_bytes") == doctest::Approx(400));
  // Rates: a's first step is 4000 bytes / 100 s.
  JobStatsFilter f;
  f.ids = {"1:1001:n1"}, f.ops = {"write_bytes"};
  auto w = JobStatsWindowQuery::Compute(**js, kB + 1000, kB + 1100, f, {JobStatsKey::kId}, false);
  REQUIRE(w.ok());
  CHECK(w->groups.at(0).ops.at("write_bytes").rate_max == 40.0);
  // Classes: both ok; the job and uid parsed.
  REQUIRE((*js)->series().size() == 2);
  CHECK((*js)->series()[1].job == "2");
  CHECK((*js)->series()[1].uid == 1002);

  // An older collection the store holds is recognised and skipped; it changes nothing.
  test::Run info_before = test::Xtfq(dir, "info h.xtfq --format json");
  REQUIRE(info_before.status == 0);
  test::Run again = test::Xtfq(dir, "import s-1700001400.txt --format jobstats -o h.xtfq");
  CHECK(again.status == 0);
  CHECK_MESSAGE(
      again.err.find("import: s-1700001400.txt: already in the store (target fs-OST0000 collected at "
                     "1700001400); skipped\nimport: nothing new: h.xtfq stays at generation") != std::string::npos,
      again.err);
  // The newest collection again (the same target and time: a collector restarted after its
  // commit, or a file given twice) is recognised and skipped with a note; nothing is added.
  test::Run same = test::Xtfq(dir, "import s-1700001500.txt --format jobstats -o h.xtfq");
  CHECK_MESSAGE(same.status == 0, same.err);
  CHECK_MESSAGE(same.err.find("import: s-1700001500.txt: already in the store (target fs-OST0000 collected at "
                              "1700001500); skipped\n") != std::string::npos,
                same.err);
  CHECK_MESSAGE(same.err.find("import: nothing new: h.xtfq stays at generation") != std::string::npos, same.err);
  test::Run info_after = test::Xtfq(dir, "info h.xtfq --format json");
  REQUIRE(info_after.status == 0);
  // The job_stats part of info: classes, collections, entries, first and last.
  auto counts = [](const std::string& json) {
    const size_t a = json.find("\"jobstats\""), b = json.find("\"last\"", a);
    return json.substr(a, b - a);
  };
  CHECK(counts(info_after.out).find("\"collections\": 5,") != std::string::npos);
  CHECK(counts(info_after.out) == counts(info_before.out));
  // No collection time anywhere: refused with the file named.
  write("nostamp.txt", head + entry("3:1003:n3", 1, 1, "1.0"));
  test::Run bare = test::Xtfq(dir, "import nostamp.txt --format jobstats -o other.xtfq");
  CHECK(bare.status == 1);
  CHECK(bare.err.find("nostamp.txt: no collection time") != std::string::npos);
  CHECK(!std::filesystem::exists(dir.File("other.xtfq")));
  // A plain cat needs --target.
  write("cat-1700002000.txt", "job_stats:\n" + entry("3:1003:n3", 1, 1, "1.0"));
  test::Run cat = test::Xtfq(dir, "import cat-1700002000.txt --format jobstats -o cat.xtfq");
  CHECK(cat.status == 1);
  CHECK(cat.err.find("--target") != std::string::npos);
  test::Run cat2 = test::Xtfq(dir, "import cat-1700002000.txt --format jobstats --target fs-OST0009 -o cat.xtfq");
  CHECK_MESSAGE(cat2.status == 0, cat2.err);
}

TEST_CASE("jobstats: collect stamps and writes each snapshot and appends it to a store") {
  test::TempDir dir;
  std::ofstream(dir.File("lctl.txt"))
      << "obdfilter.fs-OST0000.job_stats=\njob_stats:\n- job_id:          7:1001:n1\n"
         "  snapshot_time:   1700000000\n  write_bytes:     { samples: 3, unit: bytes, min: 1, "
         "max: 1, sum: 3 }\n";
  test::Run r =
      test::Xtfq(dir, "collect --interval 1 --count 2 --name oss1 --out snaps --store c.xtfq -- cat lctl.txt");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.File("snaps"))) {
    if (e.path().filename() == "oss1.collect.lock") continue;  // the collector's lock (docs/cli.md)
    ++files;
    std::ifstream in(e.path());
    std::string first;
    std::getline(in, first);
    CHECK(first.rfind("# collected_at: ", 0) == 0);
    CHECK(e.path().filename().string().rfind("oss1-", 0) == 0);
  }
  CHECK(files == 2);
  test::Run info = test::Xtfq(dir, "info c.xtfq --format json");
  REQUIRE(info.status == 0);
  CHECK(info.out.find("\"collections\": 2") != std::string::npos);
  CHECK(info.out.find("\"series\": 1") != std::string::npos);
  // A command that fails skips its collection and says so.
  test::Run bad = test::Xtfq(dir, "collect --interval 1 --count 1 --out snaps -- false");
  CHECK(bad.status == 1);
  CHECK(bad.err.find("collection skipped") != std::string::npos);
}

TEST_CASE("jobstats: every real capture imports and info counts its classes") {
  const std::filesystem::path data = std::filesystem::path(XTFQ_SHARED_DIR) / "data" / "jobstats";
  if (test::SharedMissing(data)) return;
  test::TempDir dir;
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(data)) {
    if (e.path().extension() != ".txt") continue;
    const std::string store = dir.File(fmt::format("c{}.xtfq", n++));
    // Plain cats get a target; every capture gets a collection time.
    test::Run r =
        test::Xtfq(dir, fmt::format("import --format jobstats --at 1700000000 --target fs-OST0000 '{}' -o '{}'",
                                    e.path().string(), store));
    CHECK_MESSAGE(r.status == 0, std::string(e.path().string() + ": " + r.err));
    test::Run info = test::Xtfq(dir, fmt::format("info '{}'", store));
    CHECK_MESSAGE(info.status == 0, info.err);
    CHECK(info.out.find("job_stats:") != std::string::npos);
  }
  CHECK(n == 14);
}

namespace fs = std::filesystem;

TEST_CASE("jobstats store: a directory imported again skips what the store holds and adds the rest") {
  test::TempDir dir;
  JobStatsGenOptions o;
  o.targets = 6, o.jobs = 20, o.samples = 12;
  REQUIRE(JobStatsGenerator::Write(o, dir.File("snap")).ok());
  // The first half of the snapshots (by the time in their names) in a directory of its own.
  std::vector<fs::path> snaps;
  for (const auto& e : fs::directory_iterator(dir.File("snap"))) {
    if (e.path().extension() == ".txt") snaps.push_back(e.path());
  }
  std::sort(snaps.begin(), snaps.end(), [](const fs::path& a, const fs::path& b) {
    return *JobStatsParser::TimeFromName(a.string()) < *JobStatsParser::TimeFromName(b.string());
  });
  REQUIRE(snaps.size() >= 20);
  fs::create_directory(dir.File("half"));
  const size_t half = snaps.size() / 2;
  for (size_t i = 0; i < half; ++i) fs::copy_file(snaps[i], dir.File("half") / snaps[i].filename());
  test::Run first = test::Xtfq(dir, "import -q -o grown.xtfq half");
  REQUIRE_MESSAGE(first.status == 0, first.err);
  // The whole directory into that store: the first half is named and skipped, the rest added.
  test::Run grow = test::Xtfq(dir, "import -o grown.xtfq snap");
  REQUIRE_MESSAGE(grow.status == 0, grow.err);
  // (The first three are named, the rest counted, the last of them named.)
  for (size_t i = 0; i < snaps.size(); ++i) {
    const bool said =
        grow.err.find("snap/" + snaps[i].filename().string() + ": already in the store") != std::string::npos;
    CHECK_MESSAGE(said == (i < 3), snaps[i].filename().string());
  }
  CHECK_MESSAGE(
      grow.err.find(fmt::format("import: and {} more files already in the store, skipped (the last: snap/{}, "
                                "collected at {})",
                                half - 3, snaps[half - 1].filename().string(),
                                *JobStatsParser::TimeFromName(snaps[half - 1].string()))) != std::string::npos,
      grow.err);
  CHECK_MESSAGE(grow.err.find(fmt::format("{} job_stats files ({} of them already in the store):", snaps.size(),
                                          half)) != std::string::npos,
                grow.err);
  // The same store as the whole directory imported at once: every answer and every count.
  test::Run whole = test::Xtfq(dir, "import -q -o whole.xtfq snap");
  REQUIRE_MESSAGE(whole.status == 0, whole.err);
  for (const std::string q : {"query {} --format json", "query {} --by job --format csv", "info {} --format json"}) {
    test::Run a = test::Xtfq(dir, fmt::format(fmt::runtime(q), "grown.xtfq"));
    test::Run b = test::Xtfq(dir, fmt::format(fmt::runtime(q), "whole.xtfq"));
    REQUIRE(a.status == 0);
    REQUIRE(b.status == 0);
    if (q.starts_with("info")) {
      auto counts = [](const std::string& json) {
        const size_t from = json.find("\"jobstats\""), to = json.find("\"last\"", from);
        return json.substr(from, to - from);
      };
      CHECK(counts(a.out) == counts(b.out));
    } else {
      CHECK(a.out == b.out);
    }
  }
  // Once more: nothing new, nothing committed.
  test::Run again = test::Xtfq(dir, "import -o grown.xtfq snap");
  CHECK(again.status == 0);
  CHECK_MESSAGE(again.err.find("import: nothing new: grown.xtfq stays at generation") != std::string::npos, again.err);
  // An older snapshot the store does not hold is still refused.
  fs::copy_file(snaps[1], dir.File("late-1.txt"));
  test::Run late = test::Xtfq(dir, fmt::format("import -o grown.xtfq --at {} late-1.txt",
                                               *JobStatsParser::TimeFromName(snaps[1].string()) + 1));
  CHECK(late.status == 1);
  CHECK_MESSAGE(late.err.find("late-1.txt: collected at") != std::string::npos, late.err);
}

}  // namespace
}  // namespace xtfq
