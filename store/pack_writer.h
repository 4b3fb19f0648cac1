// PackWriter: where sealed chain pages go (docs/format.md, "Packs"). Seal() stores a full page in
// its stored form (compressed with the store's codec, or raw) at the pack's cursor and returns its
// Location. A pack is a run of consecutive slots taken one at a time from the end of the file; the
// stored pages lie back to back from the run's first byte and may span slots. When the next slot
// taken is not the one after the run (a shadow or leaf took slots from the end in between), the
// run's last slot is padded with zeros and a new run starts at the new slot.
//
// Only whole slots are written, each once: complete slots go out in batches, and the partial last
// slot stays in memory until Close() (at every commit) pads and writes it; the next generation
// starts a new slot. So no committed byte is written again (W1), and the slots written since the
// last commit all lie beyond it, which a crash or a failed writer drops.
//
// Invariants (W10, CheckInvariants): the buffered run is consecutive slots, its cursor is inside
// its last slot, and every slot taken since the last commit is claimed as a pack slot (W5).
//
// Thread-safety: not thread-safe; owned by one StoreWriter.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "store/codec.h"
#include "store/column_plan.h"
#include "store/file.h"
#include "store/location.h"
#include "store/page_allocator.h"
#include "store/result.h"
#include "store/writer_audit.h"

namespace xtfq {

class PackWriter {
 public:
  // `batch_slots` complete slots are written at once. With `from_end`, slots are taken from the end
  // of the file (the pack of sealed pages, written while appending); otherwise from the free list
  // first (the shadow pack, written at commit).
  PackWriter(uint32_t page_size, Codec codec, uint32_t batch_slots, bool from_end = true);

  void Attach(File& file) { file_ = &file; }
  Codec codec() const { return codec_; }
  // Stores `page` (P bytes, its header encoded) and returns where. Its checksum is computed here.
  // `plan`: its entries' columns (nullptr for the heap's bytes), for the typed columns layout.
  Result<Location> Seal(std::span<const std::byte> page, const ColumnPlan* plan, PageAllocator& slots);
  // Stores a page already in its stored form (EncodeStored's output) and returns where; refuses
  // one past what a packed Location addresses (128 TiB).
  Result<Location> Place(std::span<const std::byte> stored, PageAllocator& slots);
  // The stored form at `loc` (a Location Seal or Place returned, or one of an earlier generation):
  // from the file, and from the slots still buffered for the part that lies in them.
  Status Read(const Location& loc, std::vector<std::byte>& stored) const;
  // Pads and writes the partial last slot and every buffered one: at commit, before the catalogue.
  Status Close();
  // Stored bytes by codec since the writer opened (for tests and `xtfq info`).
  // W10; with `claim`, also claims the slots taken since the last commit as pack slots (W5).
  Status CheckInvariants(WriterAudit& audit, bool claim = true) const;

 private:
  // Writes the buffered slots before the last one (all of them with `all`).
  Status Flush(bool all);

  File* file_ = nullptr;
  uint32_t page_size_;
  Codec codec_;
  uint32_t batch_slots_;
  bool from_end_;
  std::vector<std::byte> run_;      // the buffered slots of the current run
  PageId run_first_;                // slot of run_'s first byte; kNoPage when no run is open
  size_t cursor_ = 0;               // bytes used in run_
  std::vector<PageId> taken_;       // slots taken since the last commit
  std::vector<std::byte> scratch_;  // a stored form
};

}  // namespace xtfq
