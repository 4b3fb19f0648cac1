// Append throughput: 32-byte event records appended to a new store and committed every 10^4 or
// 10^6 records (each commit syncs twice), reported as records/s (items_per_second) and MB/s
// (bytes_per_second). The baseline writes the same bytes with plain pwrite and one fdatasync at
// the end: the I/O floor under the store. `seal_thread` 0 compresses full pages on the appending
// thread, 1 on a second thread (store/SealQueue, the default): the same file.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include "bench/bench_util.h"
#include "gen/events_generator.h"
#include "store/store_writer.h"

namespace xtfq::bench {
namespace {

constexpr int64_t kRecords = 4'000'000;

const std::vector<std::byte>& Records() {
  static const std::vector<std::byte> data = [] {
    std::vector<std::byte> d(kRecords * EventRecord::kSize);
    EventsGenerator g(1024, 42);
    for (int64_t i = 0; i < kRecords; ++i) g.Next().Encode(d.data() + i * EventRecord::kSize);
    return d;
  }();
  return data;
}

void BM_Append(benchmark::State& state) {
  const int64_t commit_every = state.range(0);
  StoreOptions opts;
  opts.process_index = state.range(1) != 0;
  opts.seal_thread = state.range(2) != 0;
  const auto& data = Records();
  const std::string path = ScratchDir() + "/append.xtfq";
  for (auto _ : state) {
    state.PauseTiming();
    std::filesystem::remove(path);
    auto w = StoreWriter::CreatePath(path, opts);
    ArrayId id = *(*w)->CreateArray("events", EventRecord::StoreSchema());
    state.ResumeTiming();
    for (int64_t i = 0; i < kRecords; ++i) {
      if (!(*w)->Append(id, std::span(data).subspan(i * EventRecord::kSize, EventRecord::kSize)).ok()) {
        state.SkipWithError("append failed");
        return;
      }
      if ((i + 1) % commit_every == 0 && !(*w)->Commit().ok()) {
        state.SkipWithError("commit failed");
        return;
      }
    }
    if (!(*w)->Commit().ok()) state.SkipWithError("commit failed");
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
  state.SetBytesProcessed(state.iterations() * kRecords * EventRecord::kSize);
  state.counters["commits"] = static_cast<double>(kRecords / commit_every + 1);
}

void BM_PwriteBaseline(benchmark::State& state) {
  const auto& data = Records();
  const std::string path = ScratchDir() + "/pwrite.bin";
  for (auto _ : state) {
    state.PauseTiming();
    std::filesystem::remove(path);
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY, 0644);
    state.ResumeTiming();
    constexpr size_t kChunk = 1 << 20;
    for (size_t off = 0; off < data.size(); off += kChunk) {
      const size_t n = std::min(kChunk, data.size() - off);
      if (::pwrite(fd, data.data() + off, n, static_cast<off_t>(off)) != static_cast<ssize_t>(n)) {
        state.SkipWithError("pwrite failed");
      }
    }
    ::fdatasync(fd);
    ::close(fd);
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
  state.SetBytesProcessed(state.iterations() * kRecords * EventRecord::kSize);
}

// range(1): 1 keeps the P index (per-process copies of the 1024 ranks and the process tree).
BENCHMARK(BM_Append)
    ->ArgNames({"commit_every", "p_index", "seal_thread"})
    ->ArgsProduct({{10'000, 1'000'000}, {0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_PwriteBaseline)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace xtfq::bench

BENCHMARK_MAIN();
