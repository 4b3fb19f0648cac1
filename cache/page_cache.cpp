#include "cache/page_cache.h"

#include <fmt/format.h>

#include <cassert>

#include "store/page_header.h"

namespace xtfq {

namespace {
constexpr size_t kInitialBuckets = 64;
constexpr size_t kMaxSpare = 64;
}  // namespace

PageCache::PageCache(PageSource& source, size_t budget_bytes)
    : source_(source),
      page_size_(source.page_size()),
      budget_pages_(std::max<size_t>(1, budget_bytes / source.page_size())),
      buckets_(kInitialBuckets),
      table_(std::make_unique<Table>(Table::bucket_traits(buckets_.data(), buckets_.size()))) {}

PageCache::~PageCache() {
  assert(pinned_ == 0 && "a PageRef outlived its PageCache");
  lru_.clear();
  table_->clear_and_dispose([](CacheFrame* f) { delete f; });
}

Result<PageRef> PageCache::Fetch(PageKey id, Location hint) {
  std::unique_ptr<CacheFrame> fresh;
  {
    std::lock_guard lock(mu_);
    auto it = table_->find(id, KeyHash(), KeyEqual());
    if (it != table_->end()) {
      ++hits_;
      if (it->pins++ == 0) {
        lru_.erase(lru_.iterator_to(*it));
        ++pinned_;
      }
      return PageRef(this, &*it);
    }
    ++misses_;
    fresh = TakeSpareLocked();
  }
  Status loaded = Load(*fresh, id, hint);
  std::lock_guard lock(mu_);
  if (!loaded.ok()) {
    KeepSpareLocked(std::move(fresh));
    return std::move(loaded).error();
  }
  auto it = table_->find(id, KeyHash(), KeyEqual());
  if (it != table_->end()) {  // another thread inserted it meanwhile: use theirs
    KeepSpareLocked(std::move(fresh));
    if (it->pins++ == 0) {
      lru_.erase(lru_.iterator_to(*it));
      ++pinned_;
    }
    return PageRef(this, &*it);
  }
  CacheFrame* f = fresh.release();
  f->pins = 1;
  ++pinned_;
  table_->insert(*f);
  GrowLocked();
  EvictLocked();
  return PageRef(this, f);
}

Status PageCache::Load(CacheFrame& f, PageKey key, Location hint) {
  f.key = key;
  if (!f.buffer) f.buffer = std::make_unique<std::byte[]>(page_size_);
  ++pages_read_;
  XTFQ_ASSIGN_OR_RETURN(f.data, source_.Load(key, hint, {f.buffer.get(), page_size_}));
  return Ok();
}

void PageCache::Unpin(CacheFrame* f) {
  std::lock_guard lock(mu_);
  assert(f->pins > 0);
  if (--f->pins == 0) {
    --pinned_;
    lru_.push_front(*f);
    EvictLocked();
  }
}

void PageCache::EvictLocked() {
  while (table_->size() > budget_pages_ && !lru_.empty()) {
    CacheFrame& victim = lru_.back();
    lru_.pop_back();
    table_->erase(table_->iterator_to(victim));
    ++evictions_;
    KeepSpareLocked(std::unique_ptr<CacheFrame>(&victim));
  }
}

void PageCache::GrowLocked() {
  if (table_->size() <= buckets_.size()) return;
  std::vector<Table::bucket_type> bigger(buckets_.size() * 2);
  table_->rehash(Table::bucket_traits(bigger.data(), bigger.size()));
  buckets_.swap(bigger);
}

std::unique_ptr<CacheFrame> PageCache::TakeSpareLocked() {
  if (spare_.empty()) return std::make_unique<CacheFrame>();
  auto f = std::move(spare_.back());
  spare_.pop_back();
  return f;
}

void PageCache::KeepSpareLocked(std::unique_ptr<CacheFrame> f) {
  f->pins = 0;
  f->data = nullptr;
  if (spare_.size() < kMaxSpare) spare_.push_back(std::move(f));
}

CacheStats PageCache::stats() const {
  return CacheStats{hits_.load(), misses_.load(), pages_read_.load(), evictions_.load()};
}

void PageCache::ResetStats() {
  hits_ = 0;
  misses_ = 0;
  pages_read_ = 0;
  evictions_ = 0;
}

size_t PageCache::resident_pages() const {
  std::lock_guard lock(mu_);
  return table_->size();
}

size_t PageCache::pinned_pages() const {
  std::lock_guard lock(mu_);
  return pinned_;
}

bool PageCache::Resident(PageKey id) const {
  std::lock_guard lock(mu_);
  return table_->find(id, KeyHash(), KeyEqual()) != table_->end();
}

Status PageCache::CheckInvariants() const {
  std::lock_guard lock(mu_);
  auto bad = [](const std::string& m) { return Error(ErrorCode::kCorrupt, "page cache invariant: " + m); };
  size_t unpinned = 0, pinned = 0;
  for (const CacheFrame& f : *table_) {
    if (f.data == nullptr) return bad(fmt::format("{} has no bytes", f.key.Name()));
    if (f.pins == 0) {
      ++unpinned;
      if (!static_cast<const LruHook&>(f).is_linked())
        return bad(fmt::format("unpinned {} is not in the LRU list", f.key.Name()));
    } else {
      ++pinned;
    }
  }
  for (const CacheFrame& f : lru_) {
    if (f.pins != 0) return bad(fmt::format("pinned {} is in the LRU list", f.key.Name()));
  }
  if (unpinned != lru_.size()) return bad(fmt::format("{} unpinned pages, {} in the LRU list", unpinned, lru_.size()));
  if (pinned != pinned_) return bad(fmt::format("{} pinned pages counted as {}", pinned, pinned_));
  if (table_->size() > budget_pages_ && !lru_.empty()) {
    return bad(fmt::format("{} resident pages over a budget of {} while {} are unpinned", table_->size(), budget_pages_,
                           lru_.size()));
  }
  return Ok();
}

}  // namespace xtfq
