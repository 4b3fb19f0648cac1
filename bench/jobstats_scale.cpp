// jobstats_scale: the job_stats scale run of issue 17 (docs/benchmarks.md, "Session 19"). It
// generates `xtfq gen jobstats --dense` snapshots (every job on every target, the whole run) and
// imports each as it is made, without writing its text: one thread draws, prints and parses the
// snapshots (JobStatsGenerator::Stream, JobStatsImporter::Parse over the text in memory), the
// other imports them (JobStatsImporter::Import, as `xtfq import` does) and commits every
// --commit-every collections; the store's own thread compresses its pages. At the end it extends
// the job_stats summaries (as `xtfq import` does), and checks the store against the generator's
// truth: per op, the whole run's total over every target equals the sum of the true steps' deltas.
//
//   jobstats_scale --targets 100 --jobs 5000 --samples 220 --store big.xtfq
//
// It prints, on stdout, one line per phase (wall and CPU seconds, entries per second), the store's
// size per entry and the process's peak RSS. --no-import draws, prints and parses only: the
// producer's own cost, to set beside the import's. Exit 0 when the check passes, 1 when it fails or
// a step fails, 2 for a usage error.
#include <fmt/format.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "gen/jobstats_generator.h"
#include "importers/jobstats/jobstats_importer.h"
#include "importers/jobstats/jobstats_state.h"
#include "importers/registry/importer_registry.h"
#include "query/core/store_reader.h"
#include "query/jobstats/jobstats_summary.h"
#include "query/jobstats/jobstats_view.h"
#include "query/jobstats/jobstats_window_query.h"
#include "store/store_writer.h"
#include "store/string_file.h"

namespace xtfq {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

double CpuSeconds(int who = RUSAGE_SELF) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// A "Vm...:" line of /proc/self/status in MiB (0 when it cannot be read).
double RssMiB(std::string_view field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(field) && line.size() > field.size() && line[field.size()] == ':') {
      return std::strtod(line.c_str() + field.size() + 1, nullptr) / 1024.0;
    }
  }
  return 0;
}

double PeakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// Parsed snapshots from the producer to the importer, at most kDepth waiting (each is one
// server's snapshot: 4 targets x jobs entries).
class ParsedQueue {
 public:
  static constexpr size_t kDepth = 2;
  void Push(Result<JobStatsParsed> p) {
    std::unique_lock l(m_);
    cv_.wait(l, [&] { return q_.size() < kDepth || abandoned_; });
    q_.push_back(std::move(p));
    cv_.notify_all();
  }
  // Empty when the producer is done.
  std::optional<Result<JobStatsParsed>> Pop() {
    std::unique_lock l(m_);
    cv_.wait(l, [&] { return !q_.empty() || done_; });
    if (q_.empty()) return std::nullopt;
    auto p = std::move(q_.front());
    q_.pop_front();
    cv_.notify_all();
    return p;
  }
  void Done() {
    std::lock_guard l(m_);
    done_ = true;
    cv_.notify_all();
  }
  void Abandon() {  // the importer stopped: the producer no longer waits
    std::lock_guard l(m_);
    abandoned_ = true, q_.clear();
    cv_.notify_all();
  }
  bool abandoned() {
    std::lock_guard l(m_);
    return abandoned_;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Result<JobStatsParsed>> q_;
  bool done_ = false, abandoned_ = false;
};

// The generator's output: each snapshot parsed as `xtfq import` parses a file, the truth summed.
class ParsingOutput final : public JobStatsGenOutput {
 public:
  explicit ParsingOutput(ParsedQueue* queue) : queue_(queue) {}
  Status Snapshot(const std::string& name, int64_t collected, std::string text) override {
    text_bytes += text.size();
    StringFile file(name, std::move(text));
    Result<JobStatsParsed> parsed = JobStatsImporter::Parse(file, "", static_cast<double>(collected));
    if (queue_ == nullptr) return parsed.ok() ? Ok() : Status(parsed.error());
    if (queue_->abandoned()) return Error(ErrorCode::kInvalidArgument, "the import stopped");
    queue_->Push(std::move(parsed));
    return Ok();
  }
  Status TrueStep(const Step& s) override {
    truth[std::string(s.op)] += s.delta;
    ++steps;
    return Ok();
  }
  Status TrueSeries(const SeriesTruth&) override { return Ok(); }
  Status Finish() override { return Ok(); }

  std::map<std::string, unsigned __int128> truth;  // op -> the sum of its true steps' deltas
  uint64_t steps = 0, text_bytes = 0;

 private:
  ParsedQueue* queue_;
};

struct Args {
  JobStatsGenOptions gen;
  std::string store;
  uint32_t commit_every = 10;
  uint32_t page_size = ImporterRegistry::PageSizeFor({"jobstats"});  // as `xtfq import` and `collect` create
  bool no_import = false, no_summaries = false;
  uint64_t chunk_steps = JobStatsSummary::kChunkSteps;
};

void Phase(const char* what, Clock::time_point t0, double cpu0, uint64_t entries) {
  const double wall = Seconds(t0), cpu = CpuSeconds() - cpu0;
  fmt::print(
      "{}: {:.1f} s wall, {:.1f} s CPU{}\n", what, wall, cpu,
      entries > 0 ? fmt::format(", {} entries, {:.0f} entries/s", entries, static_cast<double>(entries) / wall) : "");
  std::fflush(stdout);
}

// Per op, the store's whole-run total over every target against the truth.
Result<bool> Check(const Args& a, const ParsingOutput& out) {
  const auto t0 = Clock::now();
  const double cpu0 = CpuSeconds();
  XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<StoreReader> reader, StoreReader::Open(a.store));
  XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<JobStatsView> view, JobStatsView::Open(*reader));
  XTFQ_ASSIGN_OR_RETURN(auto span, view->Span());
  if (!span) return Error(ErrorCode::kInvalidArgument, fmt::format("{}: no collection", a.store));
  XTFQ_ASSIGN_OR_RETURN(JobStatsWindow w, JobStatsWindowQuery::Compute(*view, span->first - 1, span->second + 1, {},
                                                                       {JobStatsKey::kTarget}, false));
  std::map<std::string, double> got;
  for (const JobStatsGroup& g : w.groups) {
    for (const auto& [op, o] : g.ops) got[op] += o.total;
  }
  bool ok = got.size() == out.truth.size();
  for (const auto& [op, want] : out.truth) {
    const double want_d = static_cast<double>(want), g = got.contains(op) ? got.at(op) : 0.0;
    const bool same = std::fabs(g - want_d) <= 1e-12 * std::max(1.0, want_d);
    ok &= same;
    fmt::print("check: {} total {:.0f} in the store, {:.0f} true: {}\n", op, g, want_d, same ? "same" : "DIFFERENT");
  }
  Phase("check (whole-run totals per target, summed)", t0, cpu0, 0);
  return ok;
}

int Run(const Args& a) {
  const auto t0 = Clock::now();
  const double cpu0 = CpuSeconds();
  if (a.no_import) {
    ParsingOutput out(nullptr);
    auto st = JobStatsGenerator::Stream(a.gen, out);
    if (!st.ok()) return fmt::print(stderr, "jobstats_scale: {}\n", st.error().message()), 1;
    Phase("generate, print and parse", t0, cpu0, st->entries);
    fmt::print("{:.1f} GB of text, {} true steps; peak RSS {:.0f} MiB\n", static_cast<double>(out.text_bytes) / 1e9,
               out.steps, PeakRssMiB());
    return 0;
  }
  StoreOptions so;
  so.seal_thread = true;
  so.page_size = a.page_size;
  auto created = StoreWriter::CreatePath(a.store, so);
  if (!created.ok()) return fmt::print(stderr, "jobstats_scale: {}\n", created.error().message()), 1;
  StoreWriter& w = **created;
  JobStatsState state;
  auto importer = JobStatsImporter::Make(w, state, {});
  if (!importer.ok()) return fmt::print(stderr, "jobstats_scale: {}\n", importer.error().message()), 1;

  ParsedQueue queue;
  ParsingOutput out(&queue);
  Result<JobStatsGenStats> gen = Error(ErrorCode::kInvalidArgument, "not run");
  const double main_cpu0 = CpuSeconds(RUSAGE_THREAD);
  double producer_cpu = 0;
  std::thread producer([&] {
    gen = JobStatsGenerator::Stream(a.gen, out);
    producer_cpu = CpuSeconds(RUSAGE_THREAD);
    queue.Done();
  });
  uint64_t entries = 0, steps = 0, warnings = 0, commits = 0;
  int64_t last_time = 0;
  uint32_t collections_since = 0;
  Status s = Ok();
  while (auto p = queue.Pop()) {
    if (!p->ok()) {
      s = p->error();
      break;
    }
    // A new collection starts at each new base time: servers of one collection are base + server.
    if ((*p)->time >= last_time + a.gen.interval / 2) ++collections_since, last_time = (*p)->time;
    if (collections_since > a.commit_every) {
      if (s = w.Commit(); !s.ok()) break;
      ++commits, collections_since = 1;
      fmt::print(stderr, "jobstats_scale: committed to {}: {} entries in {:.0f} s\n", (*p)->time, entries, Seconds(t0));
    }
    auto st = importer->Import(**p);
    if (!st.ok()) {
      s = st.error();
      break;
    }
    entries += st->entries, steps += st->steps, warnings += st->warnings.size() + st->problems.size();
  }
  if (!s.ok()) queue.Abandon();
  const double importer_cpu = CpuSeconds(RUSAGE_THREAD) - main_cpu0;
  producer.join();
  if (s.ok() && !gen.ok()) s = gen.error();
  if (s.ok()) s = w.Commit(), ++commits;
  if (!s.ok()) return fmt::print(stderr, "jobstats_scale: {}\n", s.error().message()), 1;
  Phase("import (generate, print and parse on the other thread)", t0, cpu0, entries);
  fmt::print(
      "CPU: {:.1f} s generating, printing and parsing ({:.1f} us/entry), {:.1f} s importing ({:.1f} us/entry), "
      "{:.1f} s compressing pages and the rest\n",
      producer_cpu, producer_cpu * 1e6 / static_cast<double>(entries), importer_cpu,
      importer_cpu * 1e6 / static_cast<double>(entries), CpuSeconds() - cpu0 - producer_cpu - importer_cpu);
  fmt::print(
      "{} collections of {} targets, {} series, {} entries, {} rate steps ({} true), {} warnings, {} commits, "
      "{:.1f} GB of text\n",
      a.gen.samples, a.gen.targets, gen->series, entries, steps, out.steps, warnings, commits,
      static_cast<double>(out.text_bytes) / 1e9);
  if (!a.no_summaries) {
    const auto t1 = Clock::now();
    const double cpu1 = CpuSeconds();
    // The summaries' own peak: the kernel's high-water mark reset to the RSS now (clear_refs 5).
    const double rss_before = RssMiB("VmRSS");
    const bool reset = static_cast<bool>(std::ofstream("/proc/self/clear_refs") << "5");
    auto reader = StoreReader::Open(a.store);
    if (!reader.ok()) return fmt::print(stderr, "jobstats_scale: {}\n", reader.error().message()), 1;
    auto view = JobStatsView::Open(**reader);
    if (!view.ok()) return fmt::print(stderr, "jobstats_scale: {}\n", view.error().message()), 1;
    auto rep = JobStatsSummary::Extend(**view, w, a.chunk_steps);
    if (rep.ok() && rep->extended) s = w.Commit();
    if (!rep.ok() || !s.ok()) {
      return fmt::print(stderr, "jobstats_scale: summaries: {}\n", (rep.ok() ? s.error() : rep.error()).message()), 1;
    }
    Phase(fmt::format("job_stats summaries: {} cells, {} steps read", rep->cells, rep->steps_read).c_str(), t1, cpu1,
          0);
    if (reset) {
      fmt::print("job_stats summaries: peak RSS {:.0f} MiB while extending them, {:.0f} MiB before\n", RssMiB("VmHWM"),
                 rss_before);
    }
  }
  const auto bytes = std::filesystem::file_size(a.store);
  fmt::print("store {:.2f} GB, {:.1f} B/entry; peak RSS {:.0f} MiB (generator included)\n",
             static_cast<double>(bytes) / 1e9, static_cast<double>(bytes) / static_cast<double>(entries), PeakRssMiB());
  auto ok = Check(a, out);
  if (!ok.ok()) return fmt::print(stderr, "jobstats_scale: check: {}\n", ok.error().message()), 1;
  return *ok ? 0 : 1;
}

}  // namespace
}  // namespace xtfq

int main(int argc, char** argv) {
  xtfq::Args a;
  a.gen.dense = true;
  CLI::App app("job_stats at scale: dense generated snapshots imported as they are made, checked against the truth");
  app.add_option("--targets", a.gen.targets, "targets")->check(CLI::Range(1u, 100000u));
  app.add_option("--jobs", a.gen.jobs, "jobs, each on every target")->check(CLI::Range(1u, 10000000u));
  app.add_option("--samples", a.gen.samples, "collections")->check(CLI::Range(1u, 1000000u));
  app.add_option("--variant", a.gen.variant, "Lustre output variant");
  app.add_option("--seed", a.gen.seed, "random seed");
  app.add_option("--commit-every", a.commit_every, "collections per commit")->check(CLI::Range(1u, 1000000u));
  app.add_option("--store", a.store, "the store to create (must not exist)");
  app.add_option("--page-size", a.page_size, "its page size (default: xtfq import's for job_stats)")
      ->check(CLI::IsMember({4096u, 8192u, 16384u, 32768u, 65536u}));
  app.add_flag("--no-import", a.no_import, "generate, print and parse only");
  app.add_flag("--no-summaries", a.no_summaries, "leave out the job_stats summaries");
  app.add_option("--chunk-steps", a.chunk_steps, "steps the summaries gather in one pass (JobStatsSummary::Extend)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 50));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!a.no_import && a.store.empty()) {
    std::fputs("jobstats_scale: --store is required unless --no-import\n", stderr);
    return 2;
  }
  return xtfq::Run(a);
}
