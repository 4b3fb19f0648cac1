// PageSpace: the units a writer's chains draw on (docs/format.md, "Two id spaces"): chain ids for
// their pages, the pack and page map where full pages go, and slots (with the write queue) for
// shadows and the other plain pages. The StoreWriter owns them all and hands this bundle down.
//
// Thread-safety: as its members (not thread-safe; one writer thread).
#pragma once

#include "store/chain_id_allocator.h"
#include "store/pack_writer.h"
#include "store/page_allocator.h"
#include "store/page_map_writer.h"
#include "store/page_write_queue.h"

namespace xtfq {

struct PageSpace {
  PageAllocator& slots;
  PageWriteQueue& writes;
  ChainIdAllocator& ids;
  PackWriter& pack;
  PageMapWriter& map;

  // Seals a full chain page (its header encoded) into the pack and records where in the map.
  Status SealChainPage(PageId id, std::span<const std::byte> page) {
    XTFQ_ASSIGN_OR_RETURN(Location loc, pack.Seal(page, slots));
    return map.Set(id, loc);
  }
};

}  // namespace xtfq
