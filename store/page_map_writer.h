// PageMapWriter: the page map as the writer changes it (docs/format.md, "Page map"). Set() records
// where a sealed chain page is stored; the leaf it falls in becomes dirty, read first from the
// committed generation when it has one. Commit() writes each dirty leaf to a fresh slot and
// releases the leaf's committed slot to the next generation, like a shadow (writer invariants W1,
// W2), and the catalogue then records the directory.
//
// Invariants (W10, CheckInvariants): every dirty leaf has at most M entries, and every directory
// slot is a distinct page of 2..page_count-1 (claimed in the audit, W5).
//
// Thread-safety: not thread-safe; owned by one StoreWriter.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "store/file.h"
#include "store/ids.h"
#include "store/location.h"
#include "store/page_allocator.h"
#include "store/page_write_queue.h"
#include "store/result.h"
#include "store/writer_audit.h"

namespace xtfq {

class PageMapWriter {
 public:
  // `directory`: the committed generation's leaf slots (none for a new store).
  PageMapWriter(uint32_t page_size, uint32_t page_count, std::vector<PageId> directory);

  // The file committed leaves are read from. REQUIRES: before Set() on a store with leaves.
  void Attach(File& file) { file_ = &file; }
  Status Set(PageId id, const Location& loc);
  // Where `id` is stored, as far as this writer knows (dirty leaves, else the committed ones).
  Result<Location> Get(PageId id);
  // Get without keeping what it reads (for CheckInvariants).
  Result<Location> Peek(PageId id) const;
  // Writes the dirty leaves to fresh slots; the directory then names them.
  Status Commit(PageAllocator& slots, PageWriteQueue& writes);
  const std::vector<PageId>& directory() const { return directory_; }
  // Claims the directory's slots (W5) and checks the dirty leaves (W10).
  Status CheckInvariants(WriterAudit& audit) const;

 private:
  Result<std::vector<Location>*> Leaf(uint32_t index);

  File* file_ = nullptr;
  uint32_t page_size_;
  uint32_t committed_pages_;  // page_count of the generation the directory's leaves belong to
  uint32_t per_leaf_;
  std::vector<PageId> directory_;
  std::map<uint32_t, std::vector<Location>> dirty_;
  std::map<uint32_t, std::vector<Location>> clean_;  // committed leaves Get read, unchanged (until Commit)
};

}  // namespace xtfq
