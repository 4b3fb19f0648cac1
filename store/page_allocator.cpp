#include "store/page_allocator.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "store/format.h"

namespace xtfq {

PageAllocator::PageAllocator(std::string file, uint32_t page_count, std::vector<PageId> free_pages)
    : file_(std::move(file)), page_count_(page_count), free_(std::move(free_pages)) {
  std::sort(free_.begin(), free_.end(), std::greater<>());
}

Result<PageId> PageAllocator::Allocate() {
  if (!free_.empty()) {
    PageId id = free_.back();
    free_.pop_back();
    return id;
  }
  if (page_count_ == format::kMaxPages) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: the store has reached {} pages", file_, format::kMaxPages));
  }
  return PageId(page_count_++);
}

std::vector<PageId> PageAllocator::FreeList() const {
  std::vector<PageId> v(free_.rbegin(), free_.rend());
  v.insert(v.end(), pending_.begin(), pending_.end());
  return v;
}

void PageAllocator::EndCommit() {
  free_.insert(free_.end(), pending_.begin(), pending_.end());
  pending_.clear();
  std::sort(free_.begin(), free_.end(), std::greater<>());
}

Status PageAllocator::Claim(WriterAudit& audit) const {
  for (PageId id : free_) XTFQ_TRY(audit.Claim(id, WriterAudit::Role::kFree, "free"));
  for (PageId id : pending_) XTFQ_TRY(audit.Claim(id, WriterAudit::Role::kPending, "pending free"));
  if (!std::is_sorted(free_.begin(), free_.end(), std::greater<>())) {
    return audit.Violation("W5", "the free list is not sorted lowest id last");
  }
  return Ok();
}

}  // namespace xtfq
