// Grids (query/grid/grid_query.h): a 1000 x 256 and a 1000 x 64 grid (ops, bytes and busy time of reads
// and writes by rank x time) over generated DXT logs of 10^6 and 10^7 segments of 1024 ranks and of 10^7
// segments of 10^5 ranks (10^8 of 1024 ranks with XTFQ_BENCH_LARGE=1), in the same run:
//   snap    the grid snapped onto the grid summaries (what the viewer asks), warm and cold;
//   exact   the same window unsnapped (cells at the asked edges: per process or one read of the window);
//   perrank today's path before grids: a one-pass histogram per rank over its per-process array;
//   scan    every record of the window read and binned.
// Warm: one reader per store, its cache kept. Cold: a new reader (empty cache) and the store dropped
// from the OS page cache before each iteration (`resident` reports what the kernel kept).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>

#include "bench/bench_util.h"
#include "gen/darshan_generator.h"
#include "importers/darshan/darshan_importer.h"
#include "index/process_tree.h"
#include "index/tn_tree.h"
#include "layouts/grid_layout.h"
#include "query/answers/grid_answer.h"
#include "query/grid/distribution_query.h"
#include "query/grid/grid_builder.h"
#include "store/store_writer.h"

namespace xtfq::bench {
namespace {

std::string Store(int64_t segments, int64_t ranks) {
  static std::map<std::pair<int64_t, int64_t>, std::string> built;
  std::string& path = built[{segments, ranks}];
  if (!path.empty()) return path;
  // Stores imported beforehand (`xtfq gen darshan N --ranks R` then `xtfq import`), named
  // grid-N-R.xtfq in $XTFQ_GRID_STORES: a 10^8-segment store takes minutes to make.
  if (const char* dir = std::getenv("XTFQ_GRID_STORES"); dir != nullptr) {
    const std::string made = fmt::format("{}/grid-{}-{}.xtfq", dir, segments, ranks);
    if (std::ifstream(made).good()) return path = made;
  }
  const std::string log = fmt::format("{}/grid-{}-{}.darshan", ScratchDir(), segments, ranks);
  path = fmt::format("{}/grid-{}-{}.xtfq", ScratchDir(), segments, ranks);
  DarshanGenOptions g;
  g.segments = static_cast<uint64_t>(segments), g.ranks = ranks, g.files = std::max<int64_t>(2 * ranks, 10000);
  if (!DarshanGenerator::Write(log, g).ok()) throw std::runtime_error("gen darshan failed");
  {
    auto l = DarshanLog::Open(log);
    auto w = StoreWriter::CreatePath(path);
    if (!l.ok() || !w.ok()) throw std::runtime_error("open failed");
    DarshanImportOptions io;
    io.temp_dir = ScratchDir();
    if (!DarshanImporter::Import(**l, **w, 0, io).ok() || !(*w)->Commit().ok())
      throw std::runtime_error("import failed");
  }
  std::remove(log.c_str());
  auto reader = StoreReader::Open(path);
  auto w = StoreWriter::OpenPath(path);
  if (!reader.ok() || !w.ok()) throw std::runtime_error("reopen failed");
  if (!GridBuilder::BuildMissing(**reader, **w, GridBuildOptions{}).ok() || !(*w)->Commit().ok()) {
    throw std::runtime_error("grid build failed");
  }
  return path;
}

GridAnswerRequest Request(bool snap, uint32_t rows) {
  GridAnswerRequest q;
  q.cols = 1000, q.rows = rows, q.snap = snap;
  q.metrics = {"ops", "bytes", "busy"};
  return q;
}

// The path of today before grids: per rank, a one-pass histogram of its per-process array.
uint64_t PerRank(StoreReader& reader, const GridAnswer& like) {
  uint64_t n = 0;
  for (const std::string& name : like.arrays) {
    const ArrayDesc* a = *reader.Array(name);
    auto procs = ProcessTree(reader.cache(), reader.catalogue(), *a).Range(INT64_MIN, INT64_MAX);
    if (!procs.ok()) throw std::runtime_error("process tree");
    std::vector<Summary> rows(like.rows.size() * like.cols(), Summary(a->schema));
    size_t row = 0;
    for (const ArrayDesc* p : *procs) {
      while (row + 1 < like.rows.size() && p->process >= like.rows[row].second) ++row;
      auto h = TnTree(reader.cache(), *p).Histogram(like.edges.front(), like.edges.back(), like.cols());
      if (!h.ok()) throw std::runtime_error("histogram");
      for (uint32_t c = 0; c < like.cols(); ++c) rows[row * like.cols() + c].Merge((*h)[c]);
    }
    for (const Summary& s : rows) n += s.count;
  }
  return n;
}

// mode 0 snap, 1 exact, 2 per rank, 3 scan; range(2): 1 cold.
void BM_Grid(benchmark::State& state) {
  const std::string path = Store(state.range(0), state.range(1));
  const int mode = static_cast<int>(state.range(2));
  const bool cold = state.range(3) == 1;
  ReaderOptions ro;
  ro.cache_bytes = size_t{2} << 30;  // the warm runs hold what they read
  std::unique_ptr<StoreReader> warm = std::move(*StoreReader::Open(path, ro));
  const auto rows = static_cast<uint32_t>(state.range(4));
  GridAnswerRequest q = Request(mode == 0, rows);
  q.scan = mode == 3;
  const GridAnswer exact = *GridAnswerQuery::Run(*warm, Request(false, rows));
  if (!cold && mode != 2) benchmark::DoNotOptimize(GridAnswerQuery::Run(*warm, q)->count.size());  // warm up
  uint64_t pages = 0, cells = 0, cols = 0, records = 0;
  double resident = 0;
  for (auto _ : state) {
    std::unique_ptr<StoreReader> fresh;
    StoreReader& r = IterationReader(state, cold, path, ro, *warm, fresh, resident);
    const uint64_t before = r.cache().stats().pages_read;
    if (mode == 2) {
      benchmark::DoNotOptimize(PerRank(r, exact));
    } else {
      auto a = GridAnswerQuery::Run(r, q);
      if (!a.ok()) throw std::runtime_error(a.error().message());
      cells = a->plan.cells_read, cols = a->cols(), records = a->count.empty() ? 0 : a->plan.records_read;
      benchmark::DoNotOptimize(a->count.data());
    }
    pages = r.cache().stats().pages_read - before;
  }
  state.counters["pages_read"] = static_cast<double>(pages);
  state.counters["cells_read"] = static_cast<double>(cells);
  state.counters["records_read"] = static_cast<double>(records);
  state.counters["cols"] = static_cast<double>(cols);
  if (cold) state.counters["resident"] = resident;
}

void Args(benchmark::internal::Benchmark* b) {
  std::vector<std::pair<int64_t, int64_t>> sizes = {{1'000'000, 1024}, {10'000'000, 1024}, {10'000'000, 100'000}};
  if (const char* l = std::getenv("XTFQ_BENCH_LARGE"); l != nullptr && std::string_view(l) == "1") {
    sizes.push_back({100'000'000, 1024});
  }
  for (const auto& [n, ranks] : sizes) {
    for (int mode = 0; mode < 4; ++mode) {
      for (int cold = 0; cold < 2; ++cold) {
        for (int rows : {256, 64}) b->Args({n, ranks, mode, cold, rows});
      }
    }
  }
}
BENCHMARK(BM_Grid)->Apply(Args)->ArgNames({"segments", "ranks", "mode", "cold", "rows"})->Unit(benchmark::kMillisecond);

// A window's percentiles of sizes and durations of DXT writes (what `xtfq query` shows), over a
// centred window of range(1) per mille of the run and every rank: mode 0 from the grid summaries
// and the two end bins' records (DistributionQuery), mode 1 every record of the window read.
void BM_WindowPercentiles(benchmark::State& state) {
  const std::string path = Store(state.range(0), 1024);
  const double share = static_cast<double>(state.range(1)) / 1000;
  const bool scan = state.range(2) == 1, cold = state.range(3) == 1;
  ReaderOptions ro;
  ro.cache_bytes = size_t{2} << 30;
  std::unique_ptr<StoreReader> warm = std::move(*StoreReader::Open(path, ro));
  const ArrayDesc* a = *warm->Array("darshan/0/DXT_POSIX.write");
  TnTree tree(warm->cache(), *a);
  std::vector<std::byte> r(a->schema.record_width());
  if (!tree.Record(0, r).ok()) throw std::runtime_error("first record");
  const int64_t t0 = a->schema.Time(r.data());
  if (!tree.Record(a->record_count() - 1, r).ok()) throw std::runtime_error("last record");
  const int64_t t1 = a->schema.Time(r.data()), mid = t0 + (t1 - t0) / 2;
  const auto half = static_cast<int64_t>(static_cast<double>(t1 - t0) * share / 2);
  DistributionRequest q;
  q.t1 = mid - half, q.t2 = mid + half, q.scan = scan;
  q.distributions = GridLayout::DistributionFields(a->schema);
  uint64_t pages = 0, records = 0, cells = 0, n = 0;
  double resident = 0;
  if (!cold) benchmark::DoNotOptimize(DistributionQuery::Run(*warm, *a, q)->count[0]);
  for (auto _ : state) {
    std::unique_ptr<StoreReader> fresh;
    StoreReader& rd = IterationReader(state, cold, path, ro, *warm, fresh, resident);
    const uint64_t before = rd.cache().stats().pages_read;
    auto g = DistributionQuery::Run(rd, **rd.Array(a->name), q);
    if (!g.ok()) throw std::runtime_error(g.error().message());
    records = g->plan.records_read, cells = g->plan.cells_read, n = g->count[0];
    pages = rd.cache().stats().pages_read - before;
  }
  state.counters["pages_read"] = static_cast<double>(pages);
  state.counters["records_read"] = static_cast<double>(records);
  state.counters["cells_read"] = static_cast<double>(cells);
  state.counters["window_records"] = static_cast<double>(n);
  if (cold) state.counters["resident"] = resident;
}

void PercentileArgs(benchmark::internal::Benchmark* b) {
  std::vector<int64_t> sizes = {1'000'000, 10'000'000};
  if (const char* l = std::getenv("XTFQ_BENCH_LARGE"); l != nullptr && std::string_view(l) == "1") {
    sizes.push_back(100'000'000);
  }
  for (int64_t n : sizes) {
    for (int permille : {10, 500}) {
      for (int scan = 0; scan < 2; ++scan) {
        for (int cold = 0; cold < 2; ++cold) b->Args({n, permille, scan, cold});
      }
    }
  }
}
BENCHMARK(BM_WindowPercentiles)
    ->Apply(PercentileArgs)
    ->ArgNames({"segments", "permille", "scan", "cold"})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace xtfq::bench

BENCHMARK_MAIN();
