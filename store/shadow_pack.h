// ShadowPack: where shadows go (docs/format.md, "Packs"). At every commit, each chain whose open
// page changed stores a new shadow, compressed like a sealed page, into this pack, under a fresh
// chain id; the shadow it replaces is dropped. A shadow pack takes its slots from the free list
// first, so slots freed by earlier commits are reused, and holds only shadows, never sealed pages.
// It counts, per slot, the live shadows that overlap it: when a commit drops the last one, the
// slot is released to the next generation (writer invariant W2), like a plain shadow slot before.
//
// Invariants (CheckInvariants): every slot with a live shadow is counted, and claimed as a pack
// slot (W5); the pack writer's run is whole (W10).
//
// Thread-safety: not thread-safe; owned by one StoreWriter.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>

#include "store/location.h"
#include "store/pack_writer.h"
#include "store/page_allocator.h"
#include "store/result.h"
#include "store/writer_audit.h"

namespace xtfq {

class ShadowPack {
 public:
  ShadowPack(uint32_t page_size, Codec codec, uint32_t batch_slots)
      : page_size_(page_size), pack_(page_size, codec, batch_slots, /*from_end=*/false) {}

  void Attach(File& file) { pack_.Attach(file); }
  // Stores a shadow (P bytes, its header encoded) and counts its slots live.
  Result<Location> Store(std::span<const std::byte> page, const ColumnPlan* plan, PageAllocator& slots);
  // A shadow at `loc` is no longer used by the generation being built: its slots that no other
  // live shadow overlaps are released.
  void Drop(const Location& loc, PageAllocator& slots);
  // Counts a committed shadow's slots live (a writer reopening the store).
  void Adopt(const Location& loc);
  // Pads and writes the pack's last slot (at commit, after every shadow is stored).
  Status Close() { return pack_.Close(); }
  Status CheckInvariants(WriterAudit& audit) const;

 private:
  uint32_t page_size_;
  PackWriter pack_;
  std::unordered_map<uint32_t, uint32_t> live_;  // slot -> live shadows overlapping it
};

}  // namespace xtfq
