// Page fetch latency through the page cache, for both backends:
//   hit     the page is resident in the cache (pin and unpin only);
//   miss    the cache holds one page, so every fetch misses; the file is in the OS page cache
//           (pread: copy and checksum; mmap: checksum in place);
//   cold    the file was dropped from the OS page cache before each fetch (posix_fadvise), so the
//           fetch reads the device; the counter `resident_after_drop` says whether the drop worked.
// Every benchmark reports pages_read and cache_misses per fetch.
#include <benchmark/benchmark.h>

#include <random>

#include "bench/bench_util.h"
#include "cache/page_cache.h"
#include "store/mmap_page_source.h"
#include "store/store.h"

namespace xtfq::bench {
namespace {

constexpr uint64_t kRecords = 1'000'000;  // 7875 data pages of 4 KiB: 31 MiB

struct Fixture {
  std::unique_ptr<Store> store;
  std::unique_ptr<PageSource> source;
  std::unique_ptr<PageCache> cache;
  std::vector<PageKey> pages;  // the stored (full) chain pages, in a random order
};

Fixture Open(Backend backend, size_t cache_pages) {
  Fixture f;
  const std::string path = EventsStore(kRecords, 4096);
  f.store = std::move(*Store::OpenPath(path));
  f.source = std::move(*f.store->MakeSource(backend));
  f.cache = std::make_unique<PageCache>(*f.source, cache_pages * 4096);
  for (uint32_t id = 1; id < f.store->catalogue().chain_ids; ++id) {
    auto loc = f.store->page_map().Find(PageId(id));
    if (loc.ok() && loc->stored()) f.pages.push_back(PageKey::Chain(PageId(id)));
  }
  std::shuffle(f.pages.begin(), f.pages.end(), std::mt19937(1));
  return f;
}

void Report(benchmark::State& state, PageCache& cache) {
  const CacheStats s = cache.stats();
  const double n = static_cast<double>(state.iterations());
  state.counters["pages_read"] = static_cast<double>(s.pages_read) / n;
  state.counters["cache_misses"] = static_cast<double>(s.misses) / n;
}

void BM_FetchHit(benchmark::State& state) {
  Fixture f = Open(static_cast<Backend>(state.range(0)), 64);
  const std::vector<PageKey> hot(f.pages.begin(), f.pages.begin() + 64);
  for (PageKey p : hot) benchmark::DoNotOptimize(f.cache->Fetch(p).ok());
  f.cache->ResetStats();
  size_t i = 0;
  for (auto _ : state) {
    Result<PageRef> r = f.cache->Fetch(hot[i++ & 63]);
    benchmark::DoNotOptimize(r->data());
  }
  Report(state, *f.cache);
}

void BM_FetchMiss(benchmark::State& state) {
  Fixture f = Open(static_cast<Backend>(state.range(0)), 1);
  for (PageKey p : f.pages) benchmark::DoNotOptimize(f.cache->Fetch(p).ok());  // warm the OS cache
  f.cache->ResetStats();
  size_t i = 0;
  for (auto _ : state) {
    Result<PageRef> r = f.cache->Fetch(f.pages[i++ % f.pages.size()]);
    benchmark::DoNotOptimize(r->data());
  }
  Report(state, *f.cache);
}

void BM_FetchCold(benchmark::State& state) {
  const auto backend = static_cast<Backend>(state.range(0));
  Fixture f = Open(backend, 1);
  const std::string path = f.store->name();
  double resident = 0;
  uint64_t misses = 0, reads = 0;
  size_t i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    f.cache.reset();
    f.source.reset();
    resident += DropFromPageCache(path);
    f.source = std::move(*f.store->MakeSource(backend));  // a fresh mapping for mmap
    f.cache = std::make_unique<PageCache>(*f.source, 4096);
    state.ResumeTiming();
    Result<PageRef> r = f.cache->Fetch(f.pages[i++ % f.pages.size()]);
    benchmark::DoNotOptimize(r->data());
    state.PauseTiming();
    misses += f.cache->stats().misses;
    reads += f.cache->stats().pages_read;
    state.ResumeTiming();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["pages_read"] = static_cast<double>(reads) / n;
  state.counters["cache_misses"] = static_cast<double>(misses) / n;
  state.counters["resident_after_drop"] = resident / n;
}

BENCHMARK(BM_FetchHit)->ArgName("mmap")->Arg(0)->Arg(1);
BENCHMARK(BM_FetchMiss)->ArgName("mmap")->Arg(0)->Arg(1);
BENCHMARK(BM_FetchCold)->ArgName("mmap")->Arg(0)->Arg(1)->Iterations(200)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace xtfq::bench

BENCHMARK_MAIN();
