#include "store/seal_queue.h"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "store/spin_wait.h"
#include "store/stored_page.h"

namespace xtfq {

SealQueue::SealQueue(PackWriter& pack, PageAllocator& slots, PageMapWriter& map, uint32_t page_size, bool threaded)
    : pack_(pack), slots_(slots), map_(map), jobs_(kDepth) {
  for (Job& j : jobs_) j.page.resize(page_size);
  if (!threaded) return;
  try {
    worker_ = std::thread([this] { Work(); });
  } catch (const std::system_error&) {
    // No thread to be had: pages are encoded on the writer's thread (the same file).
  }
}

SealQueue::~SealQueue() {
  if (!worker_.joinable()) return;
  stop_.store(true, std::memory_order_release);
  wake_.fetch_add(1, std::memory_order_release);
  wake_.notify_one();
  worker_.join();
}

void SealQueue::Encode(Job& job) const { EncodeStored(job.codec, job.page, job.stored, job.plan.get()); }

void SealQueue::Work() {
  uint64_t next = 0;
  for (;;) {
    // An event count: a Submit or the destructor after this load changes wake_, so the wait below
    // returns at once rather than missing them.
    const uint64_t w = wake_.load(std::memory_order_acquire);
    uint64_t have = submitted_.load(std::memory_order_acquire);
    // Spin a little before sleeping (a few us: grid passes run a third thread on two cores). 200
    // pauses, not WaitPast's 2000: the writer's next page is often hundreds of us away, and at 2000
    // this idle thread was 12% of a DXT import's CPU samples (docs/benchmarks.md, "Session 25":
    // events and DXT imports 0.2-0.5 s less CPU, the same wall time).
    constexpr int kIdleSpins = 200;
    for (int i = 0; i < kIdleSpins && have <= next; ++i) {
      SpinPause();
      have = submitted_.load(std::memory_order_acquire);
    }
    if (have <= next) {
      if (stop_.load(std::memory_order_acquire)) return;
      wake_.wait(w, std::memory_order_acquire);
      continue;
    }
    for (; next < have; ++next) {
      Encode(jobs_[next % kDepth]);
      encoded_.store(next + 1, std::memory_order_release);
      encoded_.notify_one();
    }
  }
}

Result<uint64_t> SealQueue::Submit(PageId id, std::span<const std::byte> page, std::shared_ptr<const ColumnPlan> plan,
                                   bool want_location) {
  const uint64_t t = submitted_.load(std::memory_order_relaxed);
  if (t - placed_ == kDepth) XTFQ_TRY(PlaceNext());
  Job& job = jobs_[t % kDepth];
  job.id = id;
  job.plan = std::move(plan);
  job.want = want_location;
  job.codec = pack_.codec();
  std::copy(page.begin(), page.end(), job.page.begin());
  if (!worker_.joinable()) {
    Encode(job);
    encoded_.store(t + 1, std::memory_order_relaxed);
  }
  submitted_.store(t + 1, std::memory_order_release);
  if (worker_.joinable()) {
    wake_.fetch_add(1, std::memory_order_release);
    wake_.notify_one();
  }
  return t;
}

Status SealQueue::PlaceNext() {
  WaitPast(encoded_, placed_);
  Job& job = jobs_[placed_ % kDepth];
  XTFQ_ASSIGN_OR_RETURN(Location loc, pack_.Place(job.stored, slots_));
  XTFQ_TRY(map_.Set(job.id, loc));
  if (job.want) located_.emplace(placed_, loc);
  ++placed_;
  return Ok();
}

Result<Location> SealQueue::Resolve(uint64_t ticket) {
  while (placed_ <= ticket) XTFQ_TRY(PlaceNext());
  const auto it = located_.find(ticket);
  if (it == located_.end()) {
    return Error(ErrorCode::kFailed, fmt::format("sealed page ticket {} has no location to resolve", ticket));
  }
  const Location loc = it->second;
  located_.erase(it);
  return loc;
}

Status SealQueue::Drain() {
  while (placed_ < submitted_.load(std::memory_order_relaxed)) XTFQ_TRY(PlaceNext());
  return Ok();
}

}  // namespace xtfq
