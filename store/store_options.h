// StoreOptions: the choices made when a store is created or opened for writing.
//
// Thread-safety: value type.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "store/codec.h"
#include "store/format.h"

namespace xtfq {

struct StoreOptions {
  // Page size of a new store: a power of two from 4 KiB to 64 KiB. Ignored when opening.
  uint32_t page_size = format::kDefaultPageSize;
  // Pages are queued, up to this many, and written sorted by id, one write per run of consecutive ids;
  // a pack writes its complete slots this many at a time. Never more than kWriteBatchBytes of pages
  // (BatchPages), so the writer's buffers stay 16 MiB each whatever the page size.
  uint32_t write_batch_pages = 4096;
  static constexpr uint32_t kWriteBatchBytes = 16u << 20;
  uint32_t BatchPages(uint32_t page_size) const {
    return std::max<uint32_t>(1, std::min(write_batch_pages, kWriteBatchBytes / page_size));
  }
  // Arrays created with a process field keep per-process copies and a process tree (the P index,
  // docs/format.md). An array keeps the choice it was created with.
  bool process_index = true;
  // Open a store whose newest superblock is damaged (Store::Rollback) and write on from the
  // generation before it, which makes the loss permanent. Refused by default.
  bool allow_rollback = false;
  // The codec of full pages sealed from now on (docs/format.md, "Stored pages"): lz4 for a new
  // store; an opened store keeps its own unless this says otherwise. Pages keep the codec they
  // were sealed with.
  std::optional<Codec> codec;
  // Encode full pages on a second thread while appends go on (store/seal_queue.h); false encodes
  // them on the writer's thread, with the same result.
  bool seal_thread = true;
};

}  // namespace xtfq
