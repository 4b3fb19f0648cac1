// PageSpace: the units a writer's chains draw on (docs/format.md, "Two id spaces"): chain ids for
// their pages and shadows, the pack where full pages go, the shadow pack where shadows go, the
// page map that says where each is, the queue that seals full pages on a second thread, and slots (with the write
// queue) for the plain pages (process trees). The StoreWriter owns them all and hands this bundle down.
//
// Thread-safety: as its members (not thread-safe; one writer thread).
#pragma once

#include <fmt/format.h>

#include "store/chain_id_allocator.h"
#include "store/pack_writer.h"
#include "store/page_allocator.h"
#include "store/page_map_writer.h"
#include "store/page_write_queue.h"
#include "store/seal_queue.h"
#include "store/shadow_pack.h"

namespace xtfq {

struct PageSpace {
  PageAllocator& slots;
  PageWriteQueue& writes;
  ChainIdAllocator& ids;
  PackWriter& pack;
  PageMapWriter& map;
  ShadowPack& shadows;
  SealQueue& seals;  // full chain pages on their way into the pack

  // Stores shadow `id` (its header encoded) into the shadow pack and records where; returns where.
  // `plan`: its entries' columns (nullptr: stored as they are).
  Result<Location> SealShadow(PageId id, std::span<const std::byte> page, const ColumnPlan* plan) {
    XTFQ_ASSIGN_OR_RETURN(Location loc, shadows.Store(page, plan, slots));
    XTFQ_TRY(map.Set(id, loc));
    return loc;
  }
  // Shadow `id` is replaced (kNoPage: nothing): the map forgets it and its slots may be released.
  Status DropShadow(PageId id) {
    if (id == kNoPage) return Ok();
    XTFQ_ASSIGN_OR_RETURN(Location loc, map.Get(id));
    XTFQ_TRY(map.Set(id, Location{}));
    shadows.Drop(loc, slots);
    return Ok();
  }
};

}  // namespace xtfq
