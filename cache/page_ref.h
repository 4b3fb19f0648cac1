// PageRef: a pin on one resident page of a PageCache (RAII).
//
// While a PageRef lives, its page stays resident and its bytes valid and unchanged; destroying
// or resetting it unpins the page, which returns to the LRU list once no pin is left. Movable,
// not copyable.
//
// Thread-safety: one PageRef is used by one thread; different refs to one page may live in
// different threads.
#pragma once

#include <cstddef>
#include <span>

#include "store/page_key.h"

namespace xtfq {

class PageCache;
struct CacheFrame;

class PageRef {
 public:
  PageRef() = default;
  PageRef(PageRef&& o) noexcept : cache_(o.cache_), frame_(o.frame_) {
    o.cache_ = nullptr;
    o.frame_ = nullptr;
  }
  PageRef& operator=(PageRef&& o) noexcept;
  PageRef(const PageRef&) = delete;
  PageRef& operator=(const PageRef&) = delete;
  ~PageRef() { Reset(); }

  bool valid() const { return frame_ != nullptr; }
  PageKey key() const;
  const std::byte* data() const;
  std::span<const std::byte> bytes() const;
  void Reset();

 private:
  friend class PageCache;
  PageRef(PageCache* cache, CacheFrame* frame) : cache_(cache), frame_(frame) {}

  PageCache* cache_ = nullptr;
  CacheFrame* frame_ = nullptr;
};

}  // namespace xtfq
