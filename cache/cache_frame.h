// CacheFrame: one resident page of a PageCache: its id, bytes, pin count and the intrusive hooks
// that put it in the cache's lookup table and (when unpinned) its LRU list.
//
// Thread-safety: guarded by the owning PageCache's mutex, except data and key, which are
// immutable while the frame is pinned.
#pragma once

#include <boost/intrusive/list.hpp>
#include <boost/intrusive/unordered_set.hpp>
#include <cstdint>
#include <memory>

#include "store/page_key.h"

namespace xtfq {

namespace bi = boost::intrusive;

using LruHook = bi::list_base_hook<bi::link_mode<bi::safe_link>>;
using TableHook = bi::unordered_set_base_hook<bi::link_mode<bi::safe_link>, bi::store_hash<true>>;

struct CacheFrame : LruHook, TableHook {
  PageKey key;
  uint32_t pins = 0;
  const std::byte* data = nullptr;      // buffer.get(), or a plain page in a mapped file
  std::unique_ptr<std::byte[]> buffer;  // a copy, or a decoded stored page

  friend bool operator==(const CacheFrame& a, const CacheFrame& b) { return a.key == b.key; }
  friend size_t hash_value(const CacheFrame& f) { return std::hash<PageKey>()(f.key); }
};

}  // namespace xtfq
