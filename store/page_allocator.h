// PageAllocator: which page ids the writer may use next (docs/format.md, "Commit protocol", steps 1,
// 2 and 5, and "Readers beside a writer"; writer invariants W2, W5 and W9).
//
// A page comes from the free list, lowest id first, else from the end of the file (page_count
// grows by one). A page that the committed generation still uses is never freed at once: Release()
// puts it on the pending list, which the next commit's catalogue records as free. When that
// commit's superblock is durable (EndCommit), the pages it freed are held for readers: they were
// part of the generation before it, which readers may still be reading. Held pages freed by
// generation h become allocatable only when no reader leases a generation below h (the File's
// OldestHeldGeneration). So a page freed by generation g is reused no earlier than while building
// g + 1, a torn superblock write falls back to a generation whose pages are intact, and a reader
// never sees a page of its generation overwritten.
//
// The catalogue's free list does not say which generation freed a page, so a writer that opens a
// store holds every free page of the committed generation g as freed by g: until the readers of
// generations below g are gone, it takes new pages from the end of the file instead.
//
// Invariants (checked by Claim, as part of W5): free, held and pending ids are distinct and lie in
// 2..page_count-1; the free list is sorted so that its back() is its lowest id; held pages are
// keyed by a generation no later than the committed one (W9).
//
// Thread-safety: not thread-safe; owned by one StoreWriter.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "store/file.h"
#include "store/ids.h"
#include "store/result.h"
#include "store/writer_audit.h"

namespace xtfq {

class PageAllocator {
 public:
  // `file` names the store in errors. `free_pages` are the free list of committed generation
  // `generation`, held as freed by it until Attach()'s file shows no reader below it.
  PageAllocator(std::string file, uint32_t page_count, std::vector<PageId> free_pages, uint64_t generation);

  // The file whose readers' leases decide when held pages become free; frees at once the held
  // pages no reader needs.
  void Attach(File& file) {
    leases_ = &file;
    Reclaim();
  }

  // The lowest free page, else a new page at the end of the file.
  Result<PageId> Allocate();
  // A new page at the end of the file, never one from the free list (packs: docs/format.md, "Packs").
  Result<PageId> TakeEnd();
  // Frees a page of the committed generation from the next one on (kNoPage: nothing to free).
  void Release(PageId id) {
    if (id != kNoPage) pending_.push_back(id);
  }
  void Release(std::span<const PageId> ids) { pending_.insert(pending_.end(), ids.begin(), ids.end()); }
  // The free list the next catalogue records: free pages in increasing order, then held ones from
  // the oldest generation, then pending ones.
  std::vector<PageId> FreeList() const;
  // Generation `generation`'s superblock is durable: its pending pages are held for the readers of
  // the generations before it, and held pages no reader needs become allocatable.
  void EndCommit(uint64_t generation);

  uint32_t page_count() const { return page_count_; }
  // Claims the free, held and pending pages (W5) and checks the free list's order (W5) and the
  // held pages' generations (W9) against `committed`, the last committed generation.
  Status Claim(WriterAudit& audit, uint64_t committed) const;

 private:
  // Moves to the free list the held pages of every generation h that no reader still needs (no
  // lease below h). A file that cannot say keeps them held.
  void Reclaim();

  static constexpr uint32_t kReclaimEvery = 256;  // allocations from the end between lease checks

  std::string file_;
  uint32_t page_count_;
  File* leases_ = nullptr;
  std::vector<PageId> free_;                      // reusable now, sorted so that back() is the lowest id
  std::map<uint64_t, std::vector<PageId>> held_;  // by the generation that freed them
  std::vector<PageId> pending_;                   // referenced by the committed generation
  uint32_t since_reclaim_ = 0;
};

}  // namespace xtfq
