// OpenChain: one chain being written (docs/format.md, "Chains and shadow pages"): its descriptor
// and its open page in memory (header space, then count() entries). The string heap is one, and so
// is every level of every array.
//
// Entries go into the open page. When it is full, Roll() seals it once into the pack, under the
// chain id reserved for it, linked to a newly reserved chain id for the next open page. At commit,
// CommitShadow() stores the open page's entries (and, on an index level, the right-edge entry for
// the level below) as a new shadow under a fresh chain id in the shadow pack, and drops the
// previous shadow from the page map (its bytes stay for the committed generation). So a chain
// never overwrites a committed byte (writer invariants W1 and W2).
//
// Invariants (writer invariant W4, CheckInvariants): desc().entries mod capacity() == count(), and
// the chain has a reserved open page exactly when it has entries. Its open page's and shadow's
// chain ids are claimed in the audit (W10).
//
// Thread-safety: not thread-safe; driven by its writer's thread.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "store/chain_desc.h"
#include "store/column_plan.h"
#include "store/format.h"
#include "store/ids.h"
#include "store/index_entry.h"
#include "store/page_header.h"
#include "store/page_space.h"
#include "store/writer_audit.h"

namespace xtfq {

class Store;

class OpenChain {
 public:
  // An empty chain of `width`-byte entries in pages of `kind` and `level` of `array` (0 for the heap).
  // `plan`: the entries' columns for the stored pages (nullptr: stored as they are, as the heap's).
  OpenChain(PageKind kind, ArrayId array, uint8_t level, uint32_t width, uint32_t page_size,
            std::shared_ptr<const ColumnPlan> plan = nullptr);

  const ChainDesc& desc() const { return desc_; }
  PageKind kind() const { return kind_; }
  uint8_t level() const { return level_; }
  ArrayId array() const { return array_; }
  uint32_t width() const { return width_; }
  uint32_t capacity() const { return capacity_; }
  // Entries in the open page.
  uint32_t count() const { return count_; }
  bool full() const { return count_ == capacity_; }
  // The open page's entries, count() of width() bytes.
  const std::byte* entries() const { return page_.data() + format::kPageHeaderSize; }

  // The hot path: stores one entry when the open page is reserved and the entry does not fill it.
  // Returns false, changing nothing, otherwise (then Reserve, Fill and Roll).
  bool TryAppendOne(const std::byte* entry) {
    if (desc_.open == kNoPage || count_ + 1 >= capacity_ ||
        format::kPageHeaderSize + size_t{count_ + 1} * width_ > page_.size()) {
      return false;
    }
    std::memcpy(page_.data() + format::kPageHeaderSize + size_t{count_} * width_, entry, width_);
    ++count_;
    ++desc_.entries;
    return true;
  }
  // Reserves the open page of an empty chain; nothing to do otherwise.
  Status Reserve(PageSpace& space);
  // Copies as many of `bytes` as the open page has room for, in whole entries; returns how many
  // bytes it took. REQUIRES: the open page is reserved; bytes.size() a multiple of width().
  size_t Fill(std::span<const std::byte> bytes);
  // Seals the full open page under its reserved id, linked to a newly reserved id that becomes the
  // open page, and drops the shadow; returns the sealed page's ticket in space.seals, whose
  // Location space.seals.Resolve() gives with want_location. REQUIRES: full().
  Result<uint64_t> Roll(PageSpace& space, bool want_location);
  // Reserve, Fill and Roll until `bytes` are stored: for a chain with no level above it (the heap).
  Status Append(std::span<const std::byte> bytes, PageSpace& space);

  // At commit: stores the open page's entries, then `right_edge` if given, as a new shadow (flag
  // bit 1 with a right edge) and drops the previous shadow; with nothing to write, only
  // drops it.
  Status CommitShadow(const std::optional<IndexEntry>& right_edge, PageSpace& space);

  // The chain as the committed generation left it: `desc`, and its shadow's entries read back
  // into the open page. On an index level (`index_level`) the shadow may end in a right-edge entry.
  // `what` names the chain in errors.
  Status Load(Store& store, const ChainDesc& desc, std::string_view what, bool index_level);

  // W4, and claims the open page's and the shadow's ids below `chain_ids` (W10). `what` names
  // the chain.
  Status CheckInvariants(WriterAudit& audit, uint32_t chain_ids, std::string_view what) const;

 private:
  // The header of shadow `at` (a chain id) holding the open page with `entries` entries.
  PageHeader ShadowHeader(PageId at, uint32_t entries, uint8_t extra_flags) const;
  // Makes the open page's buffer hold at least `bytes` (header included), zeros after what it held: it
  // grows by doubling up to the page size, so a chain of a few entries (a process's copy of a small
  // array, an index level above a few pages) holds a few hundred bytes, not a page.
  void Grow(size_t bytes);
  // The open page as a whole page of page_size_ bytes (zeros after its entries), for the seal and
  // shadow encoders: the buffer itself once grown to a page, else a copy in `scratch`.
  std::span<const std::byte> WholePage(std::vector<std::byte>& scratch) const;

  ChainDesc desc_;
  std::shared_ptr<const ColumnPlan> plan_;
  PageKind kind_;
  ArrayId array_;
  uint8_t level_;
  uint32_t width_;
  uint32_t capacity_;
  uint32_t page_size_;
  std::vector<std::byte> page_;  // the open page: header space, then count_ entries, then zeros (up to a page)
  uint32_t count_ = 0;
};

}  // namespace xtfq
