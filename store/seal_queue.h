// SealQueue: full chain pages on their way into the pack (docs/architecture.md, "Import
// pipeline"). Submit() copies a page that just filled into a ring of kDepth jobs and returns its
// ticket; a second thread encodes it (columns, lz4 or zstd: EncodeStored) while the writer fills the
// next pages. The writer's thread places encoded pages into the pack in ticket order, each when its
// Location is asked for (Resolve), when the ring is full, or at commit (Drain), and records each
// in the page map. So the pack's layout is the order of submission, as when pages were sealed one
// at a time, and every file operation stays on the writer's thread (the fault and crash tests
// see the same calls).
//
// Without a thread (threaded = false) Submit encodes at once: the same tickets and placement.
//
// Invariants: placed_ <= encoded_ <= submitted_ <= placed_ + kDepth; a ticket's Location is
// kept from its placement until Resolve() takes it (only for tickets submitted with
// want_location).
//
// After an error from Submit, Resolve or Drain the queue is not to be used again (its writer has
// failed: W8). A thread that cannot be started leaves the encoding on the writer's thread.
//
// Thread-safety: Submit, Resolve and Drain from the writer's thread only; the worker touches only
// the jobs between encoded_ and submitted_.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <thread>
#include <unordered_map>
#include <vector>

#include "store/codec.h"
#include "store/column_plan.h"
#include "store/ids.h"
#include "store/location.h"
#include "store/pack_writer.h"
#include "store/page_allocator.h"
#include "store/page_map_writer.h"
#include "store/result.h"

namespace xtfq {

class SealQueue {
 public:
  static constexpr uint64_t kDepth = 64;

  SealQueue(PackWriter& pack, PageAllocator& slots, PageMapWriter& map, uint32_t page_size, bool threaded);
  ~SealQueue();
  SealQueue(const SealQueue&) = delete;
  SealQueue& operator=(const SealQueue&) = delete;

  // Queues full page `id` (P bytes, header encoded; `plan`: its entries' columns, or nullptr) for
  // the pack and returns its ticket. With want_location, Resolve(ticket) gives where it went.
  Result<uint64_t> Submit(PageId id, std::span<const std::byte> page, std::shared_ptr<const ColumnPlan> plan,
                          bool want_location);
  // Places every page up to `ticket` and returns where that one went. REQUIRES: submitted with
  // want_location, and not resolved before.
  Result<Location> Resolve(uint64_t ticket);
  // Places every submitted page (at commit, before the pack closes).
  Status Drain();

  uint64_t placed() const { return placed_; }

 private:
  struct Job {
    PageId id;
    std::shared_ptr<const ColumnPlan> plan;
    bool want = false;
    Codec codec = Codec::kNone;  // the pack's when submitted
    std::vector<std::byte> page;
    std::vector<std::byte> stored;
  };
  // Waits for the oldest unplaced job's encoding, stores it into the pack and the map.
  Status PlaceNext();
  void Encode(Job& job) const;
  void Work();

  PackWriter& pack_;
  PageAllocator& slots_;
  PageMapWriter& map_;
  std::vector<Job> jobs_;  // kDepth, job t at t % kDepth
  std::atomic<uint64_t> submitted_{0};
  std::atomic<uint64_t> encoded_{0};
  std::atomic<uint64_t> wake_{0};  // changed by Submit and the destructor (Work sleeps on it)
  std::atomic<bool> stop_{false};
  uint64_t placed_ = 0;
  std::unordered_map<uint64_t, Location> located_;  // placed tickets not yet resolved
  std::thread worker_;
};

}  // namespace xtfq
