// PageWriteQueue: sealed pages waiting to be written, up to a batch of `capacity` pages. Flush()
// writes them sorted by id, one WriteAt per run of consecutive ids: pages fill in one order and
// were reserved in another (per-process arrays interleave), so sorting turns many small writes into
// few large ones. Queue() copies the page, so the caller may reuse its buffer at once, and flushes
// first when the batch is full.
//
// Invariants: at most `capacity` pages are queued; every queued page is sealed, at an id whose
// bytes the committed generation does not use (writer invariant W1). A failed write empties the
// queue with an unknown part of it on disk; the writer then fails (W8), and since the committed
// generation uses none of those bytes, the file stays at its last commit.
//
// Thread-safety: not thread-safe; owned by one StoreWriter.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "store/file.h"
#include "store/ids.h"
#include "store/result.h"

namespace xtfq {

class PageWriteQueue {
 public:
  PageWriteQueue(uint32_t page_size, uint32_t capacity);

  // The file written to (the StoreWriter's; it outlives the queue's use). REQUIRES: before Queue().
  void Attach(File& file) { file_ = &file; }
  // REQUIRES: page.size() == page size, and the page sealed.
  Status Queue(PageId id, std::span<const std::byte> page);
  // Writes every queued page and empties the queue, also on failure.
  Status Flush();
  size_t queued() const { return ids_.size(); }

 private:
  File* file_ = nullptr;  // not owned
  uint32_t page_size_;
  uint32_t capacity_;
  std::vector<std::byte> batch_;                    // up to `capacity_` page slots
  std::vector<std::pair<uint32_t, uint32_t>> ids_;  // (page id, slot in batch_)
  std::vector<std::byte> run_;                      // one run of consecutive ids, to write
};

}  // namespace xtfq
