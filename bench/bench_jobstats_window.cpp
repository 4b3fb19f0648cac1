// job_stats windows grouped by job (query/jobstats/jobstats_window_query.h), the question the viewer's top
// jobs asks at every zoom: over a store imported from `xtfq gen jobstats` (path in
// $XTFQ_JOBSTATS_STORE; without it the benchmark makes a small one), a window of range(0) per mille
// of the run centred on its middle, one op (write_bytes) or every op (range(1)), by:
//   mode 0  the job_stats summaries (cells of whole bins, steps of the two ends);
//   mode 1  the path before them: the window's steps, per target;
//   mode 2  a scan of every step.
// Warm: one reader and view, the query run once before timing; cold: a new reader and view (the
// series table read again) and the store dropped from the OS page cache before each iteration.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "bench/bench_util.h"
#include "importers/common/importer.h"
#include "query/core/store_reader.h"
#include "query/jobstats/jobstats_summary.h"
#include "query/jobstats/jobstats_view.h"
#include "query/jobstats/jobstats_window_query.h"
#include "store/store_writer.h"

namespace xtfq::bench {
namespace {

std::string Store() {
  static std::string path;
  if (!path.empty()) return path;
  if (const char* p = std::getenv("XTFQ_JOBSTATS_STORE"); p != nullptr) return path = p;
  throw std::runtime_error(
      "set XTFQ_JOBSTATS_STORE to a store of `xtfq gen jobstats --targets 100 --jobs 20000 --samples 60` imported");
}

void BM_JobStatsWindow(benchmark::State& state) {
  const std::string path = Store();
  const double share = static_cast<double>(state.range(0)) / 1000;
  const bool one_op = state.range(1) == 1;
  const int mode = static_cast<int>(state.range(2));
  const bool cold = state.range(3) == 1;
  ReaderOptions ro;
  ro.cache_bytes = size_t{2} << 30;
  std::unique_ptr<StoreReader> warm = std::move(*StoreReader::Open(path, ro));
  std::unique_ptr<JobStatsView> warm_view = std::move(*JobStatsView::Open(*warm));
  const auto span = **warm_view->Span();
  const int64_t mid = span.first + (span.second - span.first) / 2;
  const auto half = static_cast<int64_t>(static_cast<double>(span.second - span.first) * share / 2);
  const int64_t t1 = mid - half, t2 = mid + half + 1;
  JobStatsFilter f;
  if (one_op) f.ops = {"write_bytes"};
  auto run = [&](JobStatsView& v) {
    auto w = JobStatsWindowQuery::Compute(v, t1, t2, f, {JobStatsKey::kJob}, mode == 2, mode == 0);
    if (!w.ok()) throw std::runtime_error(w.error().message());
    return std::move(*w);
  };
  if (!cold) run(*warm_view);
  uint64_t cells = 0, steps = 0, groups = 0, pages = 0;
  double resident = 0;
  for (auto _ : state) {
    std::unique_ptr<StoreReader> fresh;
    std::unique_ptr<JobStatsView> fresh_view;
    StoreReader& r = IterationReader(state, cold, path, ro, *warm, fresh, resident);
    if (cold) fresh_view = std::move(*JobStatsView::Open(r));
    const uint64_t before = r.cache().stats().pages_read;
    const JobStatsWindow w = run(cold ? *fresh_view : *warm_view);
    cells = w.summary_cells, steps = w.steps_read, groups = w.groups.size();
    pages = r.cache().stats().pages_read - before;
  }
  state.counters["summary_cells"] = static_cast<double>(cells);
  state.counters["steps_read"] = static_cast<double>(steps);
  state.counters["groups"] = static_cast<double>(groups);
  state.counters["pages_read"] = static_cast<double>(pages);
  state.counters["window_s"] = static_cast<double>(t2 - t1);
  if (cold) state.counters["resident"] = resident;
}

void Args(benchmark::internal::Benchmark* b) {
  for (int permille : {1000, 500, 100}) {
    for (int one_op = 1; one_op >= 0; --one_op) {
      for (int mode = 0; mode < 3; ++mode) {
        for (int cold = 0; cold < 2; ++cold) b->Args({permille, one_op, mode, cold});
      }
    }
  }
}
BENCHMARK(BM_JobStatsWindow)
    ->Apply(Args)
    ->ArgNames({"permille", "one_op", "mode", "cold"})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace xtfq::bench

BENCHMARK_MAIN();
