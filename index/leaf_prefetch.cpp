#include "index/leaf_prefetch.h"

#include <system_error>

#include "store/spin_wait.h"

namespace xtfq {

LeafPrefetch::LeafPrefetch(PageSource& source, std::vector<Want> pages)
    : source_(source), pages_(std::move(pages)), slots_(kDepth) {
  for (Slot& s : slots_) s.buffer.resize(source.page_size());
  if (pages_.empty()) return;
  try {
    worker_ = std::thread([this] { Work(); });
  } catch (const std::system_error&) {
    // No thread to be had: Next() loads every page itself.
  }
}

LeafPrefetch::~LeafPrefetch() {
  if (!worker_.joinable()) return;
  stop_.store(true, std::memory_order_release);
  // The helper may sleep on used_: change it so that its wait returns.
  used_.fetch_add(kDepth, std::memory_order_release);
  used_.notify_all();
  worker_.join();
}

bool LeafPrefetch::Load(uint64_t i) {
  Slot& s = slots_[i % kDepth];
  Result<const std::byte*> r = source_.Load(pages_[i].key, pages_[i].hint, s.buffer);
  const bool ok = r.ok();
  s.data = ok ? *r : nullptr;
  s.error.reset();
  if (!ok) s.error = r.error();
  // Once done is published the slot is the reader's (it may load page i + kDepth into it at once):
  // nothing here touches it after.
  s.done.store(i + 1, std::memory_order_release);
  s.done.notify_one();
  return ok;
}

void LeafPrefetch::Work() {
  for (;;) {
    const uint64_t i = claimed_.fetch_add(1, std::memory_order_acq_rel);
    if (i >= pages_.size()) return;
    // Slot i % kDepth is free once page i - kDepth is used.
    if (i >= kDepth) WaitPast(used_, i - kDepth, &stop_);
    if (stop_.load(std::memory_order_acquire)) return;
    if (!Load(i)) return;
  }
}

Result<const std::byte*> LeafPrefetch::Next() {
  if (next_ > 0) {
    used_.store(next_, std::memory_order_release);  // the page handed out before is done with
    used_.notify_one();
  }
  const uint64_t i = next_++;
  Slot& s = slots_[i % kDepth];
  // Not started by the helper: load it here (its slot is free: page i - kDepth was used).
  uint64_t expected = i;
  if (claimed_.compare_exchange_strong(expected, i + 1, std::memory_order_acq_rel)) Load(i);
  WaitPast(s.done, i, &stop_);
  if (s.error) return *s.error;
  return s.data;
}

}  // namespace xtfq
