// The primitives over N = 10^5, 10^6 and 10^7 generated events (10^8 with XTFQ_BENCH_LARGE=1),
// for each backend and cache budget, against a flat scan of the same store. Every benchmark
// reports pages_read and cache_misses per operation beside its time. Windows are 1% of the span
// at random places (fixed seed), or cycling over 25 fixed windows (Hot25, as the shared protocol); Histogram is 1000
// buckets over the whole span; Search, Next and Size pick random times and steps.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <random>

#include "bench/bench_util.h"
#include "query/core/primitives.h"
#include "query/core/store_reader.h"

namespace xtfq::bench {
namespace {

struct Opened {
  std::unique_ptr<StoreReader> reader;
  std::unique_ptr<Primitives> p;
  int64_t tmin = 0, tmax = 0;
};

Opened& Open(uint64_t n, Backend backend, size_t cache_pages) {
  static std::map<std::tuple<uint64_t, int, size_t>, Opened> opened;
  Opened& o = opened[{n, static_cast<int>(backend), cache_pages}];
  if (o.reader) return o;
  const std::string path = EventsStore(n, 4096);
  o.reader = std::move(
      *StoreReader::Open(path, ReaderOptions{backend, cache_pages == 0 ? PageCache::kUnlimited : cache_pages * 4096}));
  o.p = std::make_unique<Primitives>(o.reader->cache(), *o.reader->Array("events").value(),
                                     &o.reader->store().catalogue());
  std::vector<std::byte> first = o.p->SearchAt(0)->record, last = o.p->SearchAt(n - 1)->record;
  o.tmin = o.reader->store().catalogue().arrays[0].schema.Time(first.data());
  o.tmax = o.reader->store().catalogue().arrays[0].schema.Time(last.data());
  return o;
}

// range(0): N; range(1): backend (0 pread, 1 mmap); range(2): cache pages (0 unlimited).
template <class Op>
void Run(benchmark::State& state, Op op) {
  Opened& o = Open(static_cast<uint64_t>(state.range(0)), static_cast<Backend>(state.range(1)),
                   static_cast<size_t>(state.range(2)));
  std::mt19937_64 rng(42);
  const int64_t span = o.tmax - o.tmin + 1;
  for (int i = 0; i < 100; ++i) op(*o.p, rng, o.tmin, span);  // warm
  o.reader->cache().ResetStats();
  for (auto _ : state) benchmark::DoNotOptimize(op(*o.p, rng, o.tmin, span));
  const CacheStats s = o.reader->cache().stats();
  state.counters["pages_read"] = static_cast<double>(s.pages_read) / static_cast<double>(state.iterations());
  state.counters["cache_misses"] = static_cast<double>(s.misses) / static_cast<double>(state.iterations());
  state.counters["height"] = static_cast<double>(o.p->height());
}

int64_t Window(std::mt19937_64& rng, int64_t tmin, int64_t span) {
  return tmin + static_cast<int64_t>(rng() % static_cast<uint64_t>(span - span / 100));
}

void BM_Search(benchmark::State& st) {
  Run(st, [](Primitives& p, std::mt19937_64& rng, int64_t tmin, int64_t span) {
    return p.Search(tmin + static_cast<int64_t>(rng() % static_cast<uint64_t>(span)))->position;
  });
}
void BM_SearchAt(benchmark::State& st) {
  Run(st, [](Primitives& p, std::mt19937_64& rng, int64_t, int64_t) { return p.SearchAt(rng() % p.size())->position; });
}
void BM_Next(benchmark::State& st) {
  Run(st, [](Primitives& p, std::mt19937_64& rng, int64_t, int64_t) {
    Cursor c{rng() % p.size(), {}};
    return p.Next(c, static_cast<int64_t>(rng() % 2000001) - 1000000)->position;
  });
}
void BM_Size(benchmark::State& st) {
  Run(st, [](Primitives& p, std::mt19937_64& rng, int64_t tmin, int64_t span) {
    const int64_t a = Window(rng, tmin, span);
    return *p.Size(a, a + span / 100);
  });
}
void BM_Aggregate(benchmark::State& st) {
  Run(st, [](Primitives& p, std::mt19937_64& rng, int64_t tmin, int64_t span) {
    const int64_t a = Window(rng, tmin, span);
    return p.Aggregate(a, a + span / 100)->count;
  });
}
// The shared protocol's regime: 25 windows, each repeated (warm pages, warm CPU caches).
void BM_AggregateHot25(benchmark::State& st) {
  Run(st, [k = 0, starts = std::vector<int64_t>()](Primitives& p, std::mt19937_64& rng, int64_t tmin,
                                                   int64_t span) mutable {
    while (starts.size() < 25) starts.push_back(Window(rng, tmin, span));
    const int64_t a = starts[k++ % 25];
    return p.Aggregate(a, a + span / 100)->count;
  });
}
// Q2's shape: 64 of the 1024 ranks, a 10% window, through the P index.
void BM_Aggregate64Ranks(benchmark::State& st) {
  Run(st, [](Primitives& p, std::mt19937_64& rng, int64_t tmin, int64_t span) {
    const int64_t a = tmin + static_cast<int64_t>(rng() % static_cast<uint64_t>(span - span / 10));
    const int64_t r = static_cast<int64_t>(rng() % (1024 - 64));
    return p.Aggregate(a, a + span / 10, r, r + 64)->count;
  });
}
void BM_Histogram1000(benchmark::State& st) {
  Run(st, [](Primitives& p, std::mt19937_64&, int64_t tmin, int64_t span) {
    return p.Histogram(tmin, tmin + span, 1000)->size();
  });
}
void BM_ScanAggregate(benchmark::State& st) {
  Run(st, [](Primitives& p, std::mt19937_64& rng, int64_t tmin, int64_t span) {
    const int64_t a = Window(rng, tmin, span);
    return p.ScanAggregate(a, a + span / 100)->count;
  });
}

void Sizes(benchmark::internal::Benchmark* b) {
  std::vector<int64_t> ns = {100000, 1000000, 10000000};
  if (std::getenv("XTFQ_BENCH_LARGE")) ns.push_back(100000000);
  for (int64_t n : ns)
    for (int64_t backend : {0, 1})
      for (int64_t pages : {1, 16, 0}) b->Args({n, backend, pages});
  b->ArgNames({"N", "mmap", "cache_pages"});
}

void ScanSizes(benchmark::internal::Benchmark* b) {
  for (int64_t n : {100000, 1000000, 10000000}) b->Args({n, 0, 0});
  b->ArgNames({"N", "mmap", "cache_pages"});
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_Search)->Apply(Sizes);
BENCHMARK(BM_SearchAt)->Apply(Sizes);
BENCHMARK(BM_Next)->Apply(Sizes);
BENCHMARK(BM_Size)->Apply(Sizes);
BENCHMARK(BM_Aggregate)->Apply(Sizes);
BENCHMARK(BM_AggregateHot25)->Apply(Sizes);
BENCHMARK(BM_Aggregate64Ranks)->Apply(Sizes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Histogram1000)->Apply(Sizes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ScanAggregate)->Apply(ScanSizes);

}  // namespace
}  // namespace xtfq::bench

BENCHMARK_MAIN();
