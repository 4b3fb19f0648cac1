#include "cli/bench_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "importers/events/event_record.h"
#include "importers/events/events_importer.h"
#include "query/core/primitives.h"
#include "query/core/store_reader.h"
#include "store/posix_file.h"
#include "store/store_writer.h"

namespace xtfq::cli {

namespace {

struct Query {
  std::string cls;
  int64_t t1 = 0, t2 = 0, k = 0;
  int32_t r1 = 0, r2 = 0;
  uint32_t nb = 0;
};

Result<std::vector<Query>> ReadQueries(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error(ErrorCode::kNotFound, fmt::format("{}: cannot open", path));
  std::vector<Query> qs;
  std::string line;
  for (size_t no = 1; std::getline(in, line); ++no) {
    std::istringstream ls(line);
    Query q;
    if (!(ls >> q.cls)) continue;
    bool ok = true;
    if (q.cls == "META") continue;
    if (q.cls.rfind("Q1", 0) == 0)
      ok = static_cast<bool>(ls >> q.t1 >> q.t2);
    else if (q.cls.rfind("Q2", 0) == 0)
      ok = static_cast<bool>(ls >> q.t1 >> q.t2 >> q.r1 >> q.r2);
    else if (q.cls == "Q3")
      ok = static_cast<bool>(ls >> q.k);
    else if (q.cls == "Q4")
      ok = static_cast<bool>(ls >> q.t1 >> q.t2 >> q.nb) && q.nb > 0 && q.t1 < q.t2;
    else
      ok = false;
    if (!ok) return Error(ErrorCode::kInvalidArgument, fmt::format("{}: line {}: cannot read '{}'", path, no, line));
    qs.push_back(q);
  }
  return qs;
}

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string AggCheck(const Summary& s) {
  return fmt::format("cnt={} sb={} sd={:.6e}", s.count, s.count ? s.fields[0].i_sum : 0,
                     s.count ? s.fields[1].f_sum : 0.0);
}

// The timing protocol of ../shared/bench/common.h (run_classes), reimplemented.
void RunClasses(const std::string& peer, const std::vector<Query>& qs,
                const std::function<Result<std::string>(const Query&)>& fn) {
  const double budget = std::getenv("BUDGET_S") ? std::atof(std::getenv("BUDGET_S")) : 20.0;
  const int min_runs = std::getenv("MIN_RUNS") ? std::atoi(std::getenv("MIN_RUNS")) : 3;
  const bool cold = std::getenv("COLD") && std::atoi(std::getenv("COLD"));
  const char* only = std::getenv("ONLY");
  std::vector<std::string> classes;
  for (const auto& q : qs)
    if (std::find(classes.begin(), classes.end(), q.cls) == classes.end()) classes.push_back(q.cls);
  auto run = [&](const Query& q) {
    Result<std::string> r = fn(q);
    return r.ok() ? *r : "ERROR " + r.error().message();
  };
  for (const auto& c : classes) {
    if (only && c != only) continue;
    std::vector<const Query*> v;
    for (const auto& q : qs)
      if (q.cls == c) v.push_back(&q);
    if (cold) {
      const double a = SteadySeconds();
      const std::string r = run(*v[0]);
      const double t = (SteadySeconds() - a) * 1e6;
      fmt::print("RESULT\t{}_cold\t{}\t1\t{:.3f}\t{:.3f}\t{:.3f}\t0\n", peer, c, t, t, t);
      fmt::print("CHECK\t{}_cold\t{}\t{}\n", peer, c, r);
      std::fflush(stdout);
      continue;
    }
    const double w0 = SteadySeconds();
    const std::string chk = run(*v[0]);
    const double warm = SteadySeconds() - w0;
    for (size_t i = 1; i < v.size() && SteadySeconds() - w0 < budget / 2; ++i) (void)run(*v[i]);
    std::vector<double> ts;
    const double start = SteadySeconds();
    for (size_t i = 0; i < v.size(); ++i) {
      const double a = SteadySeconds();
      const std::string r = run(*v[i]);
      const double b = SteadySeconds();
      ts.push_back(b - a);
      if (i == 0 && r != chk) fmt::print(stderr, "WARN {} {}: repeat differs: {} vs {}\n", peer, c, r, chk);
      if (static_cast<int>(ts.size()) >= min_runs && b - start > budget) break;
    }
    std::sort(ts.begin(), ts.end());
    const double med = ts.size() % 2 ? ts[ts.size() / 2] : 0.5 * (ts[ts.size() / 2 - 1] + ts[ts.size() / 2]);
    fmt::print("RESULT\t{}\t{}\t{}\t{:.3f}\t{:.3f}\t{:.3f}\t{:.3f}\n", peer, c, ts.size(), med * 1e6, ts.front() * 1e6,
               ts.back() * 1e6, warm * 1e6);
    fmt::print("CHECK\t{}\t{}\t{}\n", peer, c, chk);
    std::fflush(stdout);
  }
}

}  // namespace

CLI::App* BenchCommand::Register(CLI::App& parent) {
  CLI::App* app =
      parent.add_subcommand("bench", "Run the query classes Q1-Q4 of ../shared/bench and print RESULT and CHECK lines");
  app->add_option("--data", data_, "events file (../shared/bench format)")->required();
  app->add_option("--queries", queries_, "query file (../shared/bench format)")->required();
  app->add_option("--store", store_,
                  "store to use; built from --data when it does not exist (default: a temporary one)");
  app->add_flag("--scan", scan_, "answer by a flat scan through the store (peer xtfq_scan)");
  app->add_option("--backend", backend_, "page source")->check(CLI::IsMember({"pread", "mmap"}));
  return app;
}

int BenchCommand::Run() {
  namespace fs = std::filesystem;
  auto qs = ReadQueries(queries_);
  if (!qs.ok()) return Fail("bench", qs.error());
  bool temporary = store_.empty();
  if (temporary) store_ = (fs::temp_directory_path() / fmt::format("xtfq-bench-{}.xtfq", ::getpid())).string();
  std::error_code ec;
  if (!fs::exists(store_, ec)) {
    const double a = SteadySeconds();
    auto in = PosixFile::Open(data_, PosixFile::Mode::kRead);
    if (!in.ok()) return Fail("bench", in.error());
    auto w = StoreWriter::CreatePath(store_);
    if (!w.ok()) return Fail("bench", w.error());
    auto n = EventsImporter::Import(**in, **w, "events");
    Status c = n.ok() ? (*w)->Commit() : Status(n.error());
    if (!c.ok()) {
      fs::remove(store_, ec);
      return Fail("bench", c.error());
    }
    const double t = SteadySeconds() - a;
    fmt::print(stderr, "bench: built {} from {}: {} records in {:.2f} s ({:.1f} M records/s)\n", store_, data_, *n, t,
               *n / t / 1e6);
  } else {
    temporary = false;
  }
  ReaderOptions ro;
  ro.backend = backend_ == "mmap" ? Backend::kMmap : Backend::kPread;
  auto reader = StoreReader::Open(store_, ro);
  if (!reader.ok()) return Fail("bench", reader.error());
  auto array = (*reader)->Array("events");
  if (!array.ok()) return Fail("bench", array.error());
  Primitives p((*reader)->cache(), **array, &(*reader)->store().catalogue());

  auto answer = [&](const Query& q) -> Result<std::string> {
    if (q.cls.rfind("Q1", 0) == 0) {
      XTFQ_ASSIGN_OR_RETURN(Summary s, scan_ ? p.ScanAggregate(q.t1, q.t2) : p.Aggregate(q.t1, q.t2));
      return AggCheck(s);
    }
    if (q.cls.rfind("Q2", 0) == 0) {
      XTFQ_ASSIGN_OR_RETURN(Summary s,
                            scan_ ? p.ScanAggregate(q.t1, q.t2, q.r1, q.r2) : p.Aggregate(q.t1, q.t2, q.r1, q.r2));
      return AggCheck(s);
    }
    if (q.cls == "Q3") {
      Cursor c;
      if (scan_) {
        XTFQ_ASSIGN_OR_RETURN(c, p.ScanSearch(INT64_MIN));
        XTFQ_ASSIGN_OR_RETURN(c, p.Next(c, q.k));
      } else {
        XTFQ_ASSIGN_OR_RETURN(c, p.SearchAt(static_cast<uint64_t>(q.k)));
      }
      if (c.at_end()) return std::string("none");
      const EventRecord e = EventRecord::Decode(c.record.data());
      return fmt::format("t={} rank={} bytes={}", e.t, e.rank, e.bytes);
    }
    XTFQ_ASSIGN_OR_RETURN(std::vector<Summary> h,
                          scan_ ? p.ScanHistogram(q.t1, q.t2, q.nb) : p.Histogram(q.t1, q.t2, q.nb));
    uint64_t cs = 0;
    int64_t total = 0;
    for (size_t b = 0; b < h.size(); ++b) {
      const int64_t v = h[b].count ? h[b].fields[0].i_sum : 0;
      cs += static_cast<uint64_t>(b + 1) * static_cast<uint64_t>(v);
      total += v;
    }
    return fmt::format("total={} cs={}", total, cs);
  };

  RunClasses(scan_ ? "xtfq_scan" : "xtfq", *qs, answer);
  const CacheStats cs = (*reader)->cache().stats();
  // Page-map leaves are read beside the pages (docs/format.md, "Page map"): a cold read counts both.
  fmt::print(stderr,
             "bench: {} pages read from the store ({} cache misses, {} hits) and {} page-map leaves; TN tree "
             "height {}\n",
             cs.pages_read, cs.misses, cs.hits, (*reader)->store().page_map().leaf_reads(), (*array)->levels.size());
  if (temporary) fs::remove(store_, ec);
  return kExitOk;
}

}  // namespace xtfq::cli
