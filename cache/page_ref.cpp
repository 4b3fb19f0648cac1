#include "cache/page_ref.h"

#include "cache/cache_frame.h"
#include "cache/page_cache.h"

namespace xtfq {

PageRef& PageRef::operator=(PageRef&& o) noexcept {
  if (this != &o) {
    Reset();
    cache_ = o.cache_;
    frame_ = o.frame_;
    o.cache_ = nullptr;
    o.frame_ = nullptr;
  }
  return *this;
}

PageKey PageRef::key() const { return frame_->key; }
const std::byte* PageRef::data() const { return frame_->data; }
std::span<const std::byte> PageRef::bytes() const { return {frame_->data, cache_->page_size()}; }

void PageRef::Reset() {
  if (frame_ != nullptr) {
    cache_->Unpin(frame_);
    frame_ = nullptr;
    cache_ = nullptr;
  }
}

}  // namespace xtfq
