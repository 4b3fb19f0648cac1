// TnTreeBuilder: the TN tree of one array, built bottom-up as its records arrive (docs/format.md,
// "TN tree"). Level 0 is the chain of data pages; when a page of level L fills, its index entry
// (first key, page, summary) is appended to level L + 1, which may fill in turn; when the top level
// fills, a new top level begins. At commit, each level's open page is written as a shadow that ends
// in the right-edge entry of the level below, so the committed tree covers every record.
//
// Appending is two steps: Admit() refuses a record of the wrong width or earlier in time than the
// last, changing nothing else (the writer stays usable); Put() stores an admitted record, and an
// error from it may leave the tree half updated (the writer must fail, W8). The common case of
// Put(), a record that does not fill its page, is inline: one memcpy.
//
// Invariants (writer invariants W4 and W6, CheckInvariants): every level is an OpenChain of this
// array with its level number, of record width on level 0 and index-entry width above (W4 for
// each); level L + 1 has one entry per full page of level L; there are at most 16 levels and the
// top level has no full page; the last record buffered has the time later records are compared with;
// a tree with nothing appended since the last commit has the chains of the last commit. The keys
// and summaries of the entries cover pages already written, so only the checker can compare them
// (file invariants 11 and 12).
//
// Thread-safety: not thread-safe; driven by its writer's thread.
#pragma once

#include <array>
#include <climits>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "store/array_desc.h"
#include "store/column_plan.h"
#include "store/index_entry.h"
#include "store/open_chain.h"
#include "store/page_space.h"
#include "store/writer_audit.h"

namespace xtfq {

class Store;

class TnTreeBuilder {
 public:
  // An empty tree (one empty level) for the array `desc`, whose id, name, schema and, for a
  // per-process array, parent and process it reads. REQUIRES: `desc` outlives the builder.
  TnTreeBuilder(const ArrayDesc& desc, uint32_t page_size);
  TnTreeBuilder(const TnTreeBuilder&) = delete;
  TnTreeBuilder& operator=(const TnTreeBuilder&) = delete;

  const ArrayDesc& desc() const { return *desc_; }
  // The levels, 0 (the data pages) first.
  std::span<const OpenChain> levels() const { return levels_; }
  bool dirty() const { return dirty_; }
  // A per-process (or sole-process) array's root summary at the last commit: its entry in the
  // process tree (key and child are set by the process tree).
  const IndexEntry& totals() const { return totals_; }
  void set_totals(IndexEntry e) { totals_ = std::move(e); }

  // The tree as the committed generation left it (desc's levels), with the time of its last record.
  Status Load(Store& store);

  // Refuses a record of the wrong width, or earlier than the last one in time (kInvalidArgument);
  // otherwise takes its time as the last one. REQUIRES: Put(record) follows an Ok.
  Status Admit(std::span<const std::byte> record) {
    const OpenChain& leaf = levels_[0];
    if (record.size() != leaf.width()) return WidthError(record.size());
    const Schema& schema = desc_->schema;
    if (schema.time_field()) {
      const int64_t t = schema.Time(record.data());
      if (t < last_time_) return TimeError(t);
      last_time_ = t;
    }
    return Ok();
  }
  // Stores an admitted record, writing pages that fill.
  Status Put(std::span<const std::byte> record, PageSpace& space) {
    dirty_ = true;
    if (levels_[0].TryAppendOne(record.data())) return Ok();  // the common case: no page boundary
    return Append(0, record, space);
  }

  // Writes each level's open page as a shadow ending in the right edge of the level below, when
  // records were appended since the last commit; a per-process or sole-process array also keeps
  // its root summary (totals()).
  Status Commit(PageSpace& space);

  // Adds every pending entry of a full page to the level above, in order, once the seal queue says
  // where each page went. Append defers each until its page is placed; commit adds them first.
  Status CompletePending(PageSpace& space);

  // W4 and W5 for every level, and W6.
  Status CheckInvariants(WriterAudit& audit, uint32_t chain_ids) const;

 private:
  // Appends whole entries to `level`, rolling full pages and adding their entries above.
  Status Append(size_t level, std::span<const std::byte> bytes, PageSpace& space);
  // Emits the entry of a page of `level` that just filled into level + 1.
  Status AddParentEntry(size_t level, const IndexEntry& entry, PageSpace& space);
  // The entry for c's open page: its entries and the right-edge entry from the level below, if any;
  // the entry's child is the open page.
  IndexEntry Summarize(const OpenChain& c, const std::optional<IndexEntry>& edge) const;
  Error WidthError(size_t got) const;
  Error TimeError(int64_t t) const;

  const ArrayDesc* desc_;  // not owned
  uint32_t page_size_;
  std::shared_ptr<const ColumnPlan> record_plan_, index_plan_;  // the levels' columns
  std::vector<OpenChain> levels_;  // reserved to kMaxLevels: references stay valid as levels grow
  int64_t last_time_ = INT64_MIN;
  bool dirty_ = true;  // records appended (or the array created) since the last commit
  IndexEntry totals_;
  struct Pending {
    IndexEntry entry;  // of the last full data page, but for its Location
    uint64_t ticket = 0;
  };
  // Adds the pending entries of `level`'s full pages to level + 1, in order: all of them, or those
  // whose pages the seal queue has placed (then nothing waits for the second thread).
  Status CompleteLevel(size_t level, bool all, PageSpace& space);
  std::array<std::deque<Pending>, format::kMaxLevels> pending_;  // per level of the full pages
};

}  // namespace xtfq
