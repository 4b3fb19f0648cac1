// CatalogueWriter: the end of every commit (docs/format.md, "Commit protocol", steps 2 to 4): it
// writes the catalogue to fresh pages and releases the committed catalogue's pages; writes every
// queued page; extends the file over the reserved pages and syncs; then writes the superblock of
// the new generation into slot generation % 2 and syncs again. It holds the committed catalogue's
// page ids.
//
// Invariants: the catalogue is written to pages allocated for this commit, never over the committed
// one (writer invariant W1), whose pages are released to the next generation only (W2); no byte of
// the superblock is written before every page of its generation is written and synced (W3: an order
// of calls, which fault_test and crash_test check by failing and interrupting each one). The
// committed catalogue's pages are claimed in the audit (W5).
//
// Thread-safety: not thread-safe; owned by one StoreWriter.
#pragma once

#include <cstdint>
#include <vector>

#include "store/catalogue.h"
#include "store/codec.h"
#include "store/file.h"
#include "store/page_allocator.h"
#include "store/page_write_queue.h"
#include "store/writer_audit.h"

namespace xtfq {

class CatalogueWriter {
 public:
  // `committed_pages`: the pages of the committed catalogue (none for a new store).
  CatalogueWriter(uint32_t page_size, std::vector<PageId> committed_pages)
      : page_size_(page_size), pages_(std::move(committed_pages)) {}

  const std::vector<PageId>& pages() const { return pages_; }

  // Commits `cat` (arrays and heap; its free list is filled in here) as generation `generation`:
  // steps 2 to 4 of the commit protocol. On success `cat` is the committed catalogue and its pages
  // are pages(). On failure the file may hold new pages but its superblock of the committed
  // generation is intact (unless the final sync failed: then either generation may be the one read).
  // `codec` is the superblock's: the codec of pages sealed from then on.
  Status Commit(Catalogue& cat, uint64_t generation, Codec codec, PageAllocator& pages, PageWriteQueue& writes,
                File& file);

  // Claims the committed catalogue's pages (W5).
  Status Claim(WriterAudit& audit) const;

 private:
  uint32_t page_size_;
  std::vector<PageId> pages_;
};

}  // namespace xtfq
