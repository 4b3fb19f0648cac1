// StoreWriter: the single writer of a store. Appends records to arrays and strings to the heap;
// Commit() makes everything appended so far durable and visible as one new generation.
//
// Commit protocol (docs/format.md, "Commit protocol"); numbered invariants, checked by
// CheckInvariants():
//  1. Committed bytes are never overwritten. Full pages go to ids reserved for them (free in the
//     committed state); an open page's entries go to a fresh shadow page at every commit; the
//     catalogue goes to fresh pages at every commit.
//  2. A page that the committed generation references becomes free only in the catalogue of the
//     next generation (pending_free_), so the previous superblock stays usable until the new one
//     is durable, and a page freed by generation g is reused no earlier than while building g+1.
//  3. Commit writes and syncs every page before it writes the superblock into slot
//     (generation % 2), then syncs again. A crash at any point leaves either the old or the new
//     generation readable.
//  4. For every chain, entries % capacity equals the entries buffered in its open page, and a
//     chain with entries has a reserved open page.
//  6. Each array's levels form a TN tree built bottom-up: level L+1 has one entry per full page of
//     level L (first key, child, summary), and the top level is a single open page. At commit,
//     each open page's summary goes into the shadow of the level above as a right-edge entry, so
//     the committed tree covers every record. Records of an array with a time field are appended
//     in time order (equal times keep append order).
//  5. Free pages, pending free pages, catalogue pages, reserved open pages, shadow pages and
//     process-tree pages are distinct and below page_count_.
//  7. An array with a process index appends each record to the per-process array of its process as
//     well (created on first use); at commit, each changed per-process array's root summary becomes
//     its entry in the parent's process tree, which is rebuilt from fresh pages.
// An I/O error while writing leaves the writer failed: every later call returns ErrorCode::kFailed
// and the store stays at its last commit; reopen to go on.
//
// Thread-safety: not thread-safe; one thread drives a writer. Opening takes an exclusive lock on
// files on disk, so there is one writer per store.
#pragma once

#include <memory>
#include <climits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/catalogue.h"
#include "store/index_entry.h"
#include "store/file.h"
#include "store/page_header.h"
#include "store/record_sink.h"
#include "store/store_options.h"

namespace xtfq {

class Store;

class StoreWriter final : public RecordSink {
 public:
  // A new store in an empty file; commits generations 1 and 2 (both superblock slots valid).
  static Result<std::unique_ptr<StoreWriter>> Create(std::unique_ptr<File> file, StoreOptions options = {});
  // Continues an existing store at its newest valid generation; drops pages beyond it.
  static Result<std::unique_ptr<StoreWriter>> Open(std::unique_ptr<File> file, StoreOptions options = {});
  static Result<std::unique_ptr<StoreWriter>> CreatePath(const std::string& path, StoreOptions options = {});
  static Result<std::unique_ptr<StoreWriter>> OpenPath(const std::string& path, StoreOptions options = {});

  // A new, empty array; written at the next commit. Names are 1..255 bytes and unique; at least two
  // index entries (20 + 32 bytes per aggregate field) must fit a page.
  Result<ArrayId> CreateArray(std::string_view name, const Schema& schema) override;
  // The array's id, name and schema. Its chain descriptors (and so record_count()) are those of
  // the last commit; Pending() has the current ones.
  const ArrayDesc* FindArray(std::string_view name) const;
  std::optional<ArrayId> FindArrayId(std::string_view name) const override {
    const ArrayDesc* a = FindArray(name);
    return a == nullptr ? std::nullopt : std::optional<ArrayId>(a->id);
  }
  // Appends one record; a record earlier than the array's last in time is refused
  // (kInvalidArgument). REQUIRES: record.size() == the array's record width.
  Status Append(ArrayId array, std::span<const std::byte> record) override;
  // Appends a string to the heap and returns where it is.
  Result<StringRef> AddString(std::string_view s) override;
  Status Commit();

  const std::string& name() const { return file_->name(); }
  uint64_t generation() const { return generation_; }
  uint32_t page_size() const { return page_size_; }
  uint32_t page_count() const { return page_count_; }
  // The catalogue the next commit would write (free list aside).
  Catalogue Pending() const;
  Status CheckInvariants() const;

 private:
  struct Chain {
    ChainDesc desc;
    PageKind kind = PageKind::kData;
    ArrayId array;
    uint8_t level = 0;
    uint32_t width = 1;
    uint32_t capacity = 0;
    std::vector<std::byte> page;  // the open page: header space, then `count` entries
    uint32_t count = 0;
  };

  StoreWriter(std::unique_ptr<File> file, StoreOptions options, uint32_t page_size);
  struct ArrayState {
    ArrayDesc desc;            // levels live in `levels`
    std::vector<Chain> levels;  // reserved to kMaxLevels: references stay valid as levels grow
    int64_t last_time = INT64_MIN;
    bool dirty = false;  // records appended since the last commit
    // Per-process arrays of a parent: processes 0..kDense-1 by position, others by map.
    static constexpr int64_t kDense = 1 << 16;
    std::vector<ArrayState*> dense_children;
    std::unordered_map<int64_t, ArrayState*> sparse_children;
    bool tree_dirty = false;              // a per-process array changed since the last commit
    std::vector<PageId> process_pages;    // the committed process tree's pages
    IndexEntry totals;                    // a per-process array's root summary at the last commit
  };

  Chain MakeChain(PageKind kind, ArrayId array, uint8_t level, uint32_t width) const;
  Status LoadArray(Store& store, ArrayState& a);
  // Reads a parent's committed process tree: its pages, and each per-process array's totals.
  Status LoadProcessTree(Store& store, ArrayState& a);
  Status AppendTo(ArrayState& a, std::span<const std::byte> record);
  // A new, empty array with the next id, dirty so that the next commit writes it.
  ArrayState& NewArray(std::string name, const Schema& schema);
  // The per-process array of `process` under `parent`, created when it is new.
  Result<ArrayState*> ProcessArray(ArrayState& parent, int64_t process);
  static ArrayState* FindChild(const ArrayState& parent, int64_t process);
  static void AddChild(ArrayState& parent, ArrayState* child);
  Status BuildProcessTree(ArrayState& a);
  // Emits the entry for a page of `level` that just filled, into level + 1.
  Status AddParentEntry(ArrayState& a, uint8_t level, const IndexEntry& entry);
  IndexEntry SummarizeOpen(const ArrayState& a, const Chain& c, const std::optional<IndexEntry>& edge) const;
  Status CommitArray(ArrayState& a);
  Status WriteShadowImage(Chain& c, uint32_t entries, uint8_t extra_flags);
  Status LoadOpenPage(Store& store, Chain& c, std::string_view what, bool index_level);
  Status EnsureOpen(Chain& c);
  Status AppendBytes(Chain& c, std::span<const std::byte> bytes);
  Status Roll(Chain& c);
  // The header of the shadow page at `at` holding c's open page with `entries` entries.
  static PageHeader ShadowHeader(const Chain& c, PageId at, uint32_t entries, uint8_t extra_flags);
  // Commits the heap's open page, if strings were added since the last commit.
  Status CommitHeap();
  Status DoCommit();
  Result<PageId> Allocate();
  Status QueueWrite(PageId id, std::span<const std::byte> page);
  Status Flush();
  Status Failed() const;
  Status Poison(Status s);

  std::unique_ptr<File> file_;
  StoreOptions options_;
  uint32_t page_size_;
  uint64_t generation_ = 0;
  uint32_t page_count_ = format::kFirstDataPage;
  std::vector<PageId> free_;          // reusable now, sorted so that back() is the lowest id
  std::vector<PageId> pending_free_;  // referenced by the committed generation, free after the next
  std::vector<PageId> catalogue_pages_;
  std::vector<std::unique_ptr<ArrayState>> arrays_;
  Chain heap_;
  bool heap_dirty_ = false;  // strings added since the last commit
  std::vector<std::byte> batch_;                          // pages queued for writing
  std::vector<std::pair<uint32_t, uint32_t>> batch_ids_;  // (page id, slot in batch_)
  std::vector<std::byte> run_;                            // one run of consecutive ids, to write
  std::optional<Error> failed_;
};

}  // namespace xtfq
