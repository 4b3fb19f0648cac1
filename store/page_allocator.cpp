#include "store/page_allocator.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "store/format.h"

namespace xtfq {

PageAllocator::PageAllocator(std::string file, uint32_t page_count, std::vector<PageId> free_pages, uint64_t generation)
    : file_(std::move(file)), page_count_(page_count) {
  if (!free_pages.empty()) held_[generation] = std::move(free_pages);
}

Result<PageId> PageAllocator::Allocate() {
  if (free_.empty() && !held_.empty() && ++since_reclaim_ >= kReclaimEvery) Reclaim();
  if (!free_.empty()) {
    PageId id = free_.back();
    free_.pop_back();
    return id;
  }
  return TakeEnd();
}

Result<PageId> PageAllocator::TakeEnd() {
  if (page_count_ == format::kMaxPages) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: the store has reached {} pages", file_, format::kMaxPages));
  }
  return PageId(page_count_++);
}

std::vector<PageId> PageAllocator::FreeList() const {
  std::vector<PageId> v(free_.rbegin(), free_.rend());
  for (const auto& [generation, ids] : held_) v.insert(v.end(), ids.begin(), ids.end());
  v.insert(v.end(), pending_.begin(), pending_.end());
  return v;
}

void PageAllocator::EndCommit(uint64_t generation) {
  if (!pending_.empty()) {
    auto& ids = held_[generation];
    ids.insert(ids.end(), pending_.begin(), pending_.end());
    pending_.clear();
  }
  Reclaim();
}

void PageAllocator::Reclaim() {
  since_reclaim_ = 0;
  if (held_.empty()) return;
  std::optional<uint64_t> oldest;
  if (leases_ != nullptr) {
    // Only leases below the newest held generation can keep anything held.
    auto asked = leases_->OldestHeldGeneration(held_.rbegin()->first);
    if (!asked.ok()) return;
    oldest = *asked;
  }
  // Pages freed by h were last used by generation h - 1: free once no reader holds one below h.
  bool moved = false;
  for (auto it = held_.begin(); it != held_.end() && (!oldest || it->first <= *oldest);) {
    free_.insert(free_.end(), it->second.begin(), it->second.end());
    it = held_.erase(it);
    moved = true;
  }
  if (moved) std::sort(free_.begin(), free_.end(), std::greater<>());
}

Status PageAllocator::Claim(WriterAudit& audit, uint64_t committed) const {
  for (PageId id : free_) XTFQ_TRY(audit.Claim(id, WriterAudit::Role::kFree, "free"));
  for (const auto& [generation, ids] : held_) {
    if (generation > committed) {
      return audit.Violation(
          "W9", fmt::format("pages are held as freed by generation {}, after the committed {}", generation, committed));
    }
    for (PageId id : ids) XTFQ_TRY(audit.Claim(id, WriterAudit::Role::kHeld, "held for readers"));
  }
  for (PageId id : pending_) XTFQ_TRY(audit.Claim(id, WriterAudit::Role::kPending, "pending free"));
  if (!std::is_sorted(free_.begin(), free_.end(), std::greater<>())) {
    return audit.Violation("W5", "the free list is not sorted lowest id last");
  }
  return Ok();
}

}  // namespace xtfq
