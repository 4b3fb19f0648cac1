#include "store/shadow_pack.h"

#include <fmt/format.h>

namespace xtfq {

Result<Location> ShadowPack::Store(std::span<const std::byte> page, const ColumnPlan* plan, PageAllocator& slots) {
  XTFQ_ASSIGN_OR_RETURN(Location loc, pack_.Seal(page, plan, slots));
  Adopt(loc);
  return loc;
}

void ShadowPack::Adopt(const Location& loc) {
  for (uint64_t s = loc.offset / page_size_; s <= (loc.offset + loc.length - 1) / page_size_; ++s) {
    ++live_[static_cast<uint32_t>(s)];
  }
}

void ShadowPack::Drop(const Location& loc, PageAllocator& slots) {
  if (!loc.stored()) return;
  for (uint64_t s = loc.offset / page_size_; s <= (loc.offset + loc.length - 1) / page_size_; ++s) {
    auto it = live_.find(static_cast<uint32_t>(s));
    if (it == live_.end()) continue;  // CheckInvariants finds the miscount
    if (--it->second == 0) {
      live_.erase(it);
      slots.Release(PageId(static_cast<uint32_t>(s)));
    }
  }
}

Status ShadowPack::CheckInvariants(WriterAudit& audit) const {
  for (const auto& [slot, n] : live_) {
    XTFQ_TRY(audit.Claim(PageId(slot), WriterAudit::Role::kPack, fmt::format("shadow pack ({} live shadows)", n)));
  }
  return pack_.CheckInvariants(audit, /*claim=*/false);
}

}  // namespace xtfq
