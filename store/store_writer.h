// StoreWriter: the single writer of a store. Appends records to arrays and strings to the heap;
// Commit() makes everything appended so far durable and visible as one new generation.
//
// It coordinates units that each own one job: PageAllocator (free, pending and new page ids),
// PageWriteQueue (sealed pages written in batches sorted by id), OpenChain (a chain's descriptor
// and open page: the heap, and each level of each array), TnTreeBuilder (an array's levels, built
// bottom-up), ProcessIndexBuilder (an array's per-process arrays and process tree) and
// CatalogueWriter (catalogue pages and superblock at the end of a commit). The writer itself keeps
// the arrays, the heap and the failed state.
//
// Commit protocol (docs/format.md, "Commit protocol"). Writer invariants, numbered as in
// docs/format.md ("Writer invariants"), and checked by CheckInvariants() where memory can show them:
//  W1. Committed bytes are never overwritten. A full page is sealed once into the pack (slots taken
//      from the end of the file, each written whole, once); an open page's entries go to a new
//      shadow in the shadow pack (fresh slots) at every commit; the catalogue, every changed
//      page-map leaf and every changed process tree go to fresh pages at every commit.
//      Checked through W2 and W5 for the pages the writer holds; the committed generation's full
//      pages are known only on disk, where the checker (file invariant 9) and the crash and fault
//      tests check them.
//  W2. A slot the committed generation references (a shadow-pack slot whose last live shadow was
//      replaced, the old catalogue, an old map leaf, an old process tree) is freed only by the next
//      generation: it waits on the pending list and is allocated no earlier than while building
//      the generation after that. Checked: every shadow of the last commit that its chain no
//      longer uses has left the page map.
//  W3. Commit writes and syncs every page of the new generation, and extends the file over its
//      reserved pages, before it writes the superblock into slot generation % 2; then syncs again.
//      A crash at any point leaves the old or the new generation readable. An order of calls, not a
//      state: fault_test fails each call and crash_test kills the writer at random moments.
//  W4. For every chain (the heap, every level of every array), entries mod capacity equals the
//      entries buffered in its open page, and it has a reserved open page exactly when it has
//      entries. An array or heap with nothing appended since the last commit has the chains of the
//      last commit (a commit skips it). Checked.
//  W5. Free slots, slots held for readers, pending free slots, committed catalogue pages, the
//      pack's slots since the last commit, shadow-pack slots with a live shadow, map leaves and
//      process-tree pages are distinct ids in 2..page_count-1. Checked.
//  W6. Each array's levels form a TN tree built bottom-up: level L + 1 has one entry per full page
//      of level L, there are at most 16 levels, and the top level has no full page. Records of an
//      array with a time field are appended in time order (equal times keep append order). At
//      commit each open page's summary goes into the shadow of the level above as a right-edge
//      entry. Checked, but for the entries' keys and summaries, which cover pages on disk: the
//      checker compares them at every commit in the tests (file invariants 11 to 13).
//  W7. An array with a process index appends each record to the per-process array of its process as
//      well (created on first use, registered in the dense table for 0..65535 and the hash map
//      otherwise), except while all its records are of one process (sole_process: none is copied;
//      the first record of another copies them all into that process's array first); at commit each changed per-process
//      array's root summary becomes its entry in the parent's process tree, which is rebuilt from fresh pages. Checked:
//      registrations, record counts, totals against committed counts, the tree's page count (ProcessIndexBuilder).
//  W8. The writer fails closed. An error that may leave an operation half done (I/O, running out of
//      page ids or levels, anything after a record reached its parent) leaves the writer failed:
//      every later call, CheckInvariants() included, returns ErrorCode::kFailed, and the file stays
//      at its last commit; reopen to go on. An error found before anything changed (a bad argument,
//      a record out of time order) leaves it usable. Checked as far as it can be: a failed writer's
//      memory may be half through an operation, so its CheckInvariants() checks nothing else.
//  W9. A page freed by generation h is reused only when no reader leases a generation below h
//      (docs/format.md, "Readers beside a writer"): until then it is held, keyed by h, and h is at
//      most the committed generation. Checked: the keys; that the leases are asked is a call
//      order, tested by the reader-isolation tests.
// W10. Reserved open ids and shadow ids are distinct chain ids below the counter; the packs' runs
//      are consecutive slots ending at the last slot taken; a dirty map leaf holds at most M
//      Locations. Checked.
//
// Thread-safety: not thread-safe; one thread drives a writer. Opening takes an exclusive lock on
// files on disk, so there is one writer per store.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/catalogue.h"
#include "store/catalogue_writer.h"
#include "store/chain_id_allocator.h"
#include "store/file.h"
#include "store/open_chain.h"
#include "store/pack_writer.h"
#include "store/page_allocator.h"
#include "store/page_map_writer.h"
#include "store/page_space.h"
#include "store/page_write_queue.h"
#include "store/process_index_builder.h"
#include "store/record_sink.h"
#include "store/shadow_pack.h"
#include "store/store_options.h"
#include "store/tn_tree_builder.h"

namespace xtfq {

class Store;

class StoreWriter final : public RecordSink {
 public:
  // A new store in an empty file; commits generations 1 and 2 (both superblock slots valid).
  static Result<std::unique_ptr<StoreWriter>> Create(std::unique_ptr<File> file, StoreOptions options = {});
  // Continues an existing store at its newest valid generation; drops pages beyond it. A store
  // that may have been rolled back (Store::Rollback) is refused unless options.allow_rollback.
  static Result<std::unique_ptr<StoreWriter>> Open(std::unique_ptr<File> file, StoreOptions options = {});
  // A new store at `path`, made aside and given its name once generations 1 and 2 are durable, so
  // a creation killed half way leaves nothing there; a file at `path` is never replaced.
  static Result<std::unique_ptr<StoreWriter>> CreatePath(const std::string& path, StoreOptions options = {});
  static Result<std::unique_ptr<StoreWriter>> OpenPath(const std::string& path, StoreOptions options = {});
  // OpenPath when `path` exists, else CreatePath. A file that is what an interrupted creation of
  // an older xtfq left (empty, or three pages without a superblock whose page 2 is a valid
  // catalogue page without arrays: never committed) is replaced by a new store, and `note` says so.
  struct Opened {
    std::unique_ptr<StoreWriter> writer;
    bool created = false;
    std::optional<std::string> note;
  };
  static Result<Opened> OpenOrCreatePath(const std::string& path, StoreOptions options = {});
  // Drops the pages written since the last commit from the end of the file (they are referenced
  // by no generation), so that a writer that failed on a full disk gives the space back.
  ~StoreWriter() override;
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

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
  uint32_t page_count() const { return pages_.page_count(); }
  // The catalogue the next commit would write (free list aside).
  Catalogue Pending() const;
  // Ok when W1 to W8 hold as far as memory shows them; a failed writer returns kFailed (W8).
  Status CheckInvariants() const;

 private:
  // One array: its descriptor (chains as of the last commit), its TN tree and, with a process
  // index, its per-process arrays.
  struct ArrayState {
    ArrayState(ArrayDesc d, uint32_t page_size) : desc(std::move(d)), tree(desc, page_size) {}
    ArrayState(const ArrayState&) = delete;
    ArrayState& operator=(const ArrayState&) = delete;

    ArrayDesc desc;  // levels: those of the last commit; tree has the current ones
    TnTreeBuilder tree;
    std::unique_ptr<ProcessIndexBuilder> index;  // with desc.process_index only
  };

  StoreWriter(std::string file_name, StoreOptions options, uint32_t page_size);
  void Attach(std::unique_ptr<File> file);
  // A new, empty array with the next id, dirty so that the next commit writes it.
  ArrayState& NewArray(std::string name, const Schema& schema);
  // The per-process array of `process` under `parent`, created when it is new.
  Result<TnTreeBuilder*> ProcessArray(ArrayState& parent, int64_t process);
  // The array's records so far, all of its sole process, copied into a new per-process array of
  // that process: from here on it keeps copies (docs/format.md, "P index").
  Status EndSoleProcess(ArrayState& parent);
  Status AppendTo(TnTreeBuilder& tree, std::span<const std::byte> record) {
    XTFQ_TRY(tree.Admit(record));
    return Poison(tree.Put(record, space_));
  }
  // Commits the heap's open page, if strings were added since the last commit.
  Status CommitHeap();
  Status DoCommit();
  Status Failed() const;
  Status Poison(Status s) {
    if (!s.ok() && !failed_) failed_ = s.error();
    return s;
  }

  std::unique_ptr<File> file_;
  StoreOptions options_;
  uint32_t page_size_;
  uint64_t generation_ = 0;
  // The pages the file keeps when the writer closes: page_count of generation_, or of a commit
  // that failed after its superblock may have been written.
  uint32_t keep_pages_ = 0;
  PageAllocator pages_;
  PageWriteQueue writes_;
  ChainIdAllocator chain_ids_;
  PackWriter pack_;
  PageMapWriter map_;
  ShadowPack shadows_;
  SealQueue seals_;  // before space_, after the pack, map and slots it uses
  PageSpace space_;  // the seven above
  CatalogueWriter catalogue_;
  std::vector<std::unique_ptr<ArrayState>> arrays_;
  OpenChain heap_;
  ChainDesc committed_heap_;  // the heap's chain as of the last commit
  bool heap_dirty_ = false;   // strings added since the last commit
  std::optional<Error> failed_;
};

}  // namespace xtfq
