// PageAllocator: which page ids the writer may use next (docs/format.md, "Commit protocol", steps 1,
// 2 and 5; writer invariants W2 and W5).
//
// A page comes from the free list, lowest id first, else from the end of the file (page_count
// grows by one). A page that the committed generation still uses is never freed at once: Release()
// puts it on the pending list, which the next commit's catalogue records as free and which becomes
// allocatable only once that commit's superblock is durable (EndCommit). So a page freed by
// generation g is reused no earlier than while building g + 1, and a torn superblock write falls
// back to a generation whose pages are intact.
//
// Invariants (checked by Claim, as part of W5): free and pending ids are distinct and lie in
// 2..page_count-1; the free list is sorted so that its back() is its lowest id.
//
// Thread-safety: not thread-safe; owned by one StoreWriter.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "store/ids.h"
#include "store/result.h"
#include "store/writer_audit.h"

namespace xtfq {

class PageAllocator {
 public:
  // `file` names the store in errors. `free_pages` are the committed generation's free list.
  PageAllocator(std::string file, uint32_t page_count, std::vector<PageId> free_pages);

  // The lowest free page, else a new page at the end of the file.
  Result<PageId> Allocate();
  // Frees a page of the committed generation from the next one on (kNoPage: nothing to free).
  void Release(PageId id) {
    if (id != kNoPage) pending_.push_back(id);
  }
  void Release(std::span<const PageId> ids) { pending_.insert(pending_.end(), ids.begin(), ids.end()); }
  // The free list the next catalogue records: free pages in increasing order, then pending ones.
  std::vector<PageId> FreeList() const;
  // The commit's superblock is durable: pending pages become allocatable.
  void EndCommit();

  uint32_t page_count() const { return page_count_; }
  // Claims the free and pending pages (W5) and checks the free list's order.
  Status Claim(WriterAudit& audit) const;

 private:
  std::string file_;
  uint32_t page_count_;
  std::vector<PageId> free_;     // reusable now, sorted so that back() is the lowest id
  std::vector<PageId> pending_;  // referenced by the committed generation, free after the next
};

}  // namespace xtfq
