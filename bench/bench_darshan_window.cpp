// Windowed Darshan signals (DarshanWindow) on generated DXT logs of 10^5 and 10^6 segments (10^7
// with XTFQ_BENCH_LARGE=1), 1024 ranks: the totals of a random window over all ranks (O(log N)
// from the TN trees), over 16 ranks (the P index), with a row per rank over all ranks, and the
// flat scan that reads every segment. Warm cache: the store is opened once per size. XTFQ_BENCH_PAGE_SIZE
// sets the store's page size.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <random>

#include "bench/bench_util.h"
#include "gen/darshan_generator.h"
#include "importers/darshan/darshan_importer.h"
#include "query/darshan/darshan_logs.h"
#include "query/darshan/darshan_window.h"
#include "store/store_writer.h"

namespace xtfq::bench {
namespace {

struct Opened {
  std::unique_ptr<StoreReader> reader;
  DarshanLogInfo info;
};

Opened& Store(int64_t segments) {
  static std::map<int64_t, Opened> built;
  Opened& o = built[segments];
  if (o.reader) return o;
  const std::string log = fmt::format("{}/darshan-{}.darshan", ScratchDir(), segments);
  const std::string store = fmt::format("{}/darshan-{}.xtfq", ScratchDir(), segments);
  DarshanGenOptions g;
  g.segments = static_cast<uint64_t>(segments);
  if (!DarshanGenerator::Write(log, g).ok()) throw std::runtime_error("gen darshan failed");
  auto l = DarshanLog::Open(log);
  StoreOptions so;  // XTFQ_BENCH_PAGE_SIZE: the store's page size (the import's choice for a Darshan log otherwise)
  if (const char* p = std::getenv("XTFQ_BENCH_PAGE_SIZE"); p != nullptr)
    so.page_size = static_cast<uint32_t>(std::atoi(p));
  auto w = StoreWriter::CreatePath(store, so);
  if (!l.ok() || !w.ok()) throw std::runtime_error("open failed");
  DarshanImportOptions io;
  io.temp_dir = ScratchDir();
  if (!DarshanImporter::Import(**l, **w, 0, io).ok() || !(*w)->Commit().ok()) throw std::runtime_error("import failed");
  o.reader = std::move(*StoreReader::Open(store));
  o.info = *DarshanLogs::Find(*o.reader, std::nullopt, std::nullopt);
  return o;
}

// mode 0: totals over all ranks; 1: totals over 16 ranks; 2: a row per rank; 3: flat scan.
void BM_DarshanWindow(benchmark::State& state) {
  Opened& o = Store(state.range(0));
  const int mode = static_cast<int>(state.range(1));
  std::mt19937_64 rng(7);
  const int64_t duration = 3600'000'000'000;
  for (auto _ : state) {
    DarshanWindowSpec s;
    const int64_t a = static_cast<int64_t>(rng() % static_cast<uint64_t>(duration)), len = duration / 10;
    s.t1 = a, s.t2 = a + len;
    s.per_rank = mode == 2;
    s.scan = mode == 3;
    if (mode == 1) {
      s.p1 = static_cast<int64_t>(rng() % 1008);
      s.p2 = s.p1 + 16;
    }
    auto r = DarshanWindow::Compute(*o.reader, o.info, s);
    if (!r.ok()) state.SkipWithError(r.error().message().c_str());
    benchmark::DoNotOptimize(r);
  }
  state.counters["segments"] = static_cast<double>(state.range(0));
}

void Args(benchmark::internal::Benchmark* b) {
  std::vector<int64_t> sizes = {100000, 1000000};
  if (std::getenv("XTFQ_BENCH_LARGE") != nullptr) sizes.push_back(10000000);
  for (int64_t n : sizes) {
    for (int mode = 0; mode < 4; ++mode) {
      if (mode == 3 && n > 1000000) continue;  // a scan of 10^7 takes seconds per iteration
      b->Args({n, mode});
    }
  }
  b->ArgNames({"segments", "mode"});
}
BENCHMARK(BM_DarshanWindow)->Apply(Args)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace xtfq::bench

BENCHMARK_MAIN();
