#include "store/page_write_queue.h"

#include <algorithm>
#include <cstring>

namespace xtfq {

PageWriteQueue::PageWriteQueue(uint32_t page_size, uint32_t capacity)
    : page_size_(page_size), capacity_(std::max<uint32_t>(1, capacity)) {}

Status PageWriteQueue::Queue(PageId id, std::span<const std::byte> page) {
  if (ids_.size() == capacity_) XTFQ_TRY(Flush());
  // The batch grows to what is queued (most commits queue a few pages), up to capacity_ pages.
  const size_t need = (ids_.size() + 1) * page_size_;
  if (batch_.size() < need) batch_.resize(std::min(size_t{capacity_} * page_size_, std::max(need, 2 * batch_.size())));
  std::memcpy(batch_.data() + ids_.size() * page_size_, page.data(), page_size_);
  ids_.emplace_back(id.value, static_cast<uint32_t>(ids_.size()));
  return Ok();
}

Status PageWriteQueue::Flush() {
  std::sort(ids_.begin(), ids_.end());
  Status s = Ok();
  for (size_t i = 0; i < ids_.size() && s.ok();) {
    size_t j = i + 1;
    while (j < ids_.size() && ids_[j].first == ids_[j - 1].first + 1) ++j;
    const size_t n = j - i;
    if (run_.size() < n * page_size_) run_.resize(n * page_size_);
    for (size_t k = i; k < j; ++k) {
      std::memcpy(run_.data() + (k - i) * page_size_, batch_.data() + size_t{ids_[k].second} * page_size_, page_size_);
    }
    s = file_->WriteAt(uint64_t{ids_[i].first} * page_size_, std::span(run_).first(n * page_size_));
    i = j;
  }
  ids_.clear();
  return s;
}

}  // namespace xtfq
