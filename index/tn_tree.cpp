#include "index/tn_tree.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "index/leaf_prefetch.h"
#include "store/endian.h"
#include "store/format.h"
#include "store/page_header.h"

namespace xtfq {

namespace f = format;

TnTree::TnTree(PageCache& cache, const ArrayDesc& array)
    : cache_(cache), array_(array), entry_width_(IndexEntry::Width(array.schema)) {}

Result<PageRef> TnTree::Fetch(size_t level, ChildRef child) {
  const PageId id = child.id;
  const ChainDesc& chain = array_.levels[level];
  const PageKey physical = chain.Resolve(id);
  auto bad = [&](const std::string& m) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: {} (chain page {}): array '{}' level {}: {}", cache_.source().name(), physical.Name(),
                             id.value, array_.name, level, m));
  };
  if (physical.none()) return bad("the tree leads to an empty open page");
  XTFQ_ASSIGN_OR_RETURN(PageRef page, cache_.Fetch(physical, chain.Hint(id, child.where)));
  const uint32_t width = level == 0 ? array_.schema.record_width() : entry_width_;
  const std::string wrong =
      TreePageMismatch(page.data(), level == 0 ? PageKind::kData : PageKind::kIndex, static_cast<uint8_t>(level),
                       array_.id, id, PageCapacity(cache_.page_size(), width));
  if (!wrong.empty()) return bad(wrong);
  return page;
}

uint32_t TnTree::FirstAtOrAfter(const std::byte* records, uint32_t n, uint64_t base_pos, int64_t t) const {
  const Schema& schema = array_.schema;
  if (!schema.time_field()) {
    const int64_t first = static_cast<int64_t>(base_pos);
    return t <= first ? 0 : static_cast<uint32_t>(std::min<uint64_t>(n, static_cast<uint64_t>(t) - base_pos));
  }
  const size_t w = schema.record_width();
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    const uint32_t mid = (lo + hi) / 2;
    if (schema.Time(records + mid * w) < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

Result<uint64_t> TnTree::LowerBound(int64_t t) {
  if (size() == 0) return uint64_t{0};
  uint64_t pos = 0;
  ChildRef id{Root(), {}};
  for (size_t level = height() - 1;; --level) {
    XTFQ_ASSIGN_OR_RETURN(PageRef page, Fetch(level, id));
    const uint32_t n = LoadLe<uint32_t>(page.data() + f::kPhEntryCount);
    const std::byte* base = page.data() + f::kPageHeaderSize;
    if (level == 0) return pos + FirstAtOrAfter(base, n, pos, t);
    // The last entry whose first key is < t holds the answer, or its end does (first entry if none).
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
      const uint32_t mid = (lo + hi) / 2;
      if (LoadLe<int64_t>(base + size_t{mid} * entry_width_ + f::kIeKey) < t)
        lo = mid + 1;
      else
        hi = mid;
    }
    const uint32_t child = lo == 0 ? 0 : lo - 1;
    for (uint32_t i = 0; i < child; ++i) pos += LoadLe<uint64_t>(base + size_t{i} * entry_width_ + f::kIeCount);
    id = ChildRef::Of(base + size_t{child} * entry_width_);
  }
}

Result<std::pair<PageRef, uint32_t>> TnTree::Leaf(uint64_t n) {
  ChildRef id{Root(), {}};
  for (size_t level = height() - 1;; --level) {
    XTFQ_ASSIGN_OR_RETURN(PageRef page, Fetch(level, id));
    const uint32_t entries = LoadLe<uint32_t>(page.data() + f::kPhEntryCount);
    const std::byte* base = page.data() + f::kPageHeaderSize;
    if (level == 0) {
      if (n >= entries)
        return Error(ErrorCode::kCorrupt, fmt::format("{}: {}: counts above it promise more records",
                                                      cache_.source().name(), page.key().Name()));
      return std::pair<PageRef, uint32_t>(std::move(page), static_cast<uint32_t>(n));
    }
    uint32_t i = 0;
    for (;; ++i) {
      if (i == entries)
        return Error(ErrorCode::kCorrupt,
                     fmt::format("{}: {}: counts below the total", cache_.source().name(), page.key().Name()));
      const uint64_t count = LoadLe<uint64_t>(base + size_t{i} * entry_width_ + f::kIeCount);
      if (n < count) break;
      n -= count;
    }
    id = ChildRef::Of(base + size_t{i} * entry_width_);
  }
}

Status TnTree::Record(uint64_t n, std::span<std::byte> out) {
  if (n >= size()) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("record {} of array '{}', which has {}", n, array_.name, size()));
  }
  XTFQ_ASSIGN_OR_RETURN(auto leaf, Leaf(n));
  const uint32_t width = array_.schema.record_width();
  std::memcpy(out.data(), leaf.first.data() + f::kPageHeaderSize + size_t{leaf.second} * width, width);
  return Ok();
}

Status TnTree::ForEach(uint64_t lo, uint64_t hi, const std::function<Result<bool>(const std::byte*)>& fn) {
  hi = std::min(hi, size());
  const uint32_t width = array_.schema.record_width();
  while (lo < hi) {
    XTFQ_ASSIGN_OR_RETURN(auto leaf, Leaf(lo));
    const std::byte* base = leaf.first.data() + f::kPageHeaderSize;
    const uint32_t entries = LoadLe<uint32_t>(leaf.first.data() + f::kPhEntryCount);
    const uint64_t take = std::min<uint64_t>(entries - leaf.second, hi - lo);
    for (uint64_t i = 0; i < take; ++i) {
      XTFQ_ASSIGN_OR_RETURN(bool more, fn(base + (leaf.second + i) * width));
      if (!more) return Ok();
    }
    lo += take;
  }
  return Ok();
}

Status TnTree::LeavesIn(size_t level, ChildRef child, uint64_t base, uint64_t lo, uint64_t hi,
                        std::vector<LeafSpan>& out, uint64_t count) {
  if (level == 0) {
    out.push_back({child, base, count});
    return Ok();
  }
  XTFQ_ASSIGN_OR_RETURN(PageRef page, Fetch(level, child));
  const uint32_t entries = LoadLe<uint32_t>(page.data() + f::kPhEntryCount);
  const std::byte* p = page.data() + f::kPageHeaderSize;
  for (uint32_t i = 0; i < entries && base < hi; ++i, p += entry_width_) {
    const uint64_t count = LoadLe<uint64_t>(p + f::kIeCount);
    if (base + count > lo) XTFQ_TRY(LeavesIn(level - 1, ChildRef::Of(p), base, lo, hi, out, count));
    base += count;
  }
  return Ok();
}

Status TnTree::Scan(uint64_t lo, uint64_t hi, const std::function<Result<bool>(const std::byte*)>& fn) {
  hi = std::min(hi, size());
  if (lo >= hi) return Ok();
  if (height() == 1) return ForEach(lo, hi, fn);
  std::vector<LeafSpan> leaves;
  XTFQ_TRY(LeavesIn(height() - 1, ChildRef{Root(), {}}, 0, lo, hi, leaves, size()));
  const ChainDesc& chain = array_.levels[0];
  std::vector<LeafPrefetch::Want> wants;
  wants.reserve(leaves.size());
  for (const auto& [child, first, count] : leaves) {
    const PageKey key = chain.Resolve(child.id);
    if (key.none()) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: chain page {}: array '{}' level 0: the tree leads to an "
                                                    "empty open page",
                                                    cache_.source().name(), child.id.value, array_.name));
    }
    wants.push_back({key, chain.Hint(child.id, child.where)});
  }
  LeafPrefetch prefetch(cache_.source(), std::move(wants));
  const uint32_t width = array_.schema.record_width();
  const uint32_t capacity = PageCapacity(cache_.page_size(), width);
  for (const auto& [child, first, count] : leaves) {
    XTFQ_ASSIGN_OR_RETURN(const std::byte* page, prefetch.Next());
    const std::string wrong = TreePageMismatch(page, PageKind::kData, 0, array_.id, child.id, capacity);
    if (!wrong.empty()) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: chain page {}: array '{}' level 0: {}", cache_.source().name(),
                                                    child.id.value, array_.name, wrong));
    }
    const uint32_t entries = LoadLe<uint32_t>(page + f::kPhEntryCount);
    if (entries != count) {
      return Error(ErrorCode::kCorrupt,
                   fmt::format("{}: chain page {}: array '{}' level 0: {} records, the index "
                               "above counts {}",
                               cache_.source().name(), child.id.value, array_.name, entries, count));
    }
    const uint64_t from = std::max(lo, first), to = std::min(hi, first + entries);
    for (uint64_t n = from; n < to; ++n) {
      XTFQ_ASSIGN_OR_RETURN(bool more, fn(page + f::kPageHeaderSize + (n - first) * width));
      if (!more) return Ok();
    }
  }
  return Ok();
}

Result<Summary> TnTree::Aggregate(uint64_t lo, uint64_t hi) {
  Summary out(array_.schema);
  hi = std::min(hi, size());
  if (lo >= hi) return out;
  XTFQ_TRY(AggregateIn(height() - 1, ChildRef{Root(), {}}, 0, lo, hi, out));
  return out;
}

uint32_t TnTree::Bucket(int64_t t, int64_t t1, int64_t t2, uint32_t buckets) {
  const auto off = static_cast<unsigned __int128>(static_cast<__int128>(t) - t1);
  const auto span = static_cast<unsigned __int128>(static_cast<__int128>(t2) - t1);
  return static_cast<uint32_t>(off * buckets / span);
}

int64_t TnTree::BucketStart(uint32_t b, int64_t t1, int64_t t2, uint32_t buckets) {
  // The least t with Bucket(t) >= b: t1 + ceil(b * span / buckets).
  const auto span = static_cast<unsigned __int128>(static_cast<__int128>(t2) - t1);
  const unsigned __int128 num = static_cast<unsigned __int128>(b) * span;
  return static_cast<int64_t>(static_cast<__int128>(t1) + static_cast<__int128>((num + buckets - 1) / buckets));
}

Result<std::vector<Summary>> TnTree::Histogram(int64_t t1, int64_t t2, uint32_t buckets) {
  std::vector<Summary> out(buckets, Summary(array_.schema));
  if (size() == 0 || t1 >= t2) return out;
  std::vector<int64_t> bounds;
  bounds.reserve(size_t{buckets} + 1);
  for (uint32_t k = 0; k <= buckets; ++k) bounds.push_back(BucketStart(k, t1, t2, buckets));
  XTFQ_TRY(HistogramIn(height() - 1, ChildRef{Root(), {}}, INT64_MIN, INT64_MAX, 0, Buckets{bounds, out.data()}));
  return out;
}

Status TnTree::AggregateTime(int64_t t1, int64_t t2, Summary& out) {
  if (size() == 0 || t1 >= t2) return Ok();
  const int64_t bounds[2] = {t1, t2};
  return HistogramIn(height() - 1, ChildRef{Root(), {}}, INT64_MIN, INT64_MAX, 0, Buckets{bounds, &out});
}

Status TnTree::HistogramIn(size_t level, ChildRef id, int64_t lower, int64_t upper, uint64_t base_pos,
                           const Buckets& b) {
  XTFQ_ASSIGN_OR_RETURN(PageRef page, Fetch(level, id));
  const uint32_t n = LoadLe<uint32_t>(page.data() + f::kPhEntryCount);
  const std::byte* base = page.data() + f::kPageHeaderSize;
  const Schema& schema = array_.schema;
  const int64_t t1 = b.bounds.front(), t2 = b.bounds.back();
  if (level == 0) {
    // The records in the window, then one run per bucket, each added in one tight loop.
    const uint32_t w = schema.record_width();
    // The parent's keys bound this leaf's: skip the searches they settle.
    uint32_t i = lower >= t1 ? 0 : FirstAtOrAfter(base, n, base_pos, t1);
    const uint32_t end = upper < t2 ? n : FirstAtOrAfter(base, n, base_pos, t2);
    while (i < end) {
      const int64_t t = schema.time_field() ? schema.Time(base + size_t{i} * w) : static_cast<int64_t>(base_pos + i);
      const uint32_t bucket = b.Of(t);
      const int64_t bucket_end = b.bounds[bucket + 1];
      const uint32_t j =
          bucket_end >= t2 ? end : i + FirstAtOrAfter(base + size_t{i} * w, end - i, base_pos + i, bucket_end);
      b.out[bucket].AddRange(schema, base + size_t{i} * w, j - i);
      i = j;
    }
    return Ok();
  }
  // Entries before the last one whose key is < t1 hold no key of the window.
  uint32_t first = 0;
  for (uint32_t hi = n; first + 1 < hi;) {
    const uint32_t mid = (first + hi) / 2;
    if (LoadLe<int64_t>(base + size_t{mid} * entry_width_ + f::kIeKey) < t1)
      first = mid;
    else
      hi = mid;
  }
  uint64_t start = base_pos;
  for (uint32_t i = 0; i < first; ++i) start += LoadLe<uint64_t>(base + size_t{i} * entry_width_ + f::kIeCount);
  constexpr uint32_t kNone = UINT32_MAX;
  uint32_t bucket = kNone;
  for (uint32_t i = first; i < n; ++i) {
    const std::byte* e = base + size_t{i} * entry_width_;
    const int64_t lo = LoadLe<int64_t>(e + f::kIeKey);
    if (lo >= t2) break;
    const int64_t hi = i + 1 < n ? LoadLe<int64_t>(e + entry_width_ + f::kIeKey) : upper;  // keys here are in [lo, hi]
    const uint64_t count = LoadLe<uint64_t>(e + f::kIeCount);
    if (hi >= t1) {
      bool merged = false;
      if (lo >= t1) {
        // Keys ascend, so the bucket of each entry's first key only moves forward.
        if (bucket == kNone) bucket = b.Of(lo);
        while (lo >= b.bounds[bucket + 1]) ++bucket;
        if (hi < b.bounds[bucket + 1]) {
          b.out[bucket].MergeEncoded(count, e + f::kIndexEntryFixedSize);
          merged = true;
        }
      }
      if (!merged) XTFQ_TRY(HistogramIn(level - 1, ChildRef::Of(e), lo, hi, start, b));
    }
    start += count;
  }
  return Ok();
}

Status TnTree::AggregateIn(size_t level, ChildRef id, uint64_t base_pos, uint64_t lo, uint64_t hi, Summary& out) {
  XTFQ_ASSIGN_OR_RETURN(PageRef page, Fetch(level, id));
  const uint32_t n = LoadLe<uint32_t>(page.data() + f::kPhEntryCount);
  const std::byte* base = page.data() + f::kPageHeaderSize;
  if (level == 0) {
    const uint64_t from = lo > base_pos ? lo - base_pos : 0;
    const uint64_t to = std::min<uint64_t>(n, hi - base_pos);
    for (uint64_t i = from; i < to; ++i) out.Add(array_.schema, base + i * array_.schema.record_width());
    return Ok();
  }
  uint64_t start = base_pos;
  for (uint32_t i = 0; i < n && start < hi; ++i) {
    const std::byte* e = base + size_t{i} * entry_width_;
    const uint64_t count = LoadLe<uint64_t>(e + f::kIeCount);
    const uint64_t end = start + count;
    if (end > lo) {
      if (start >= lo && end <= hi) {
        out.MergeEncoded(count, e + f::kIndexEntryFixedSize);
      } else {
        const ChildRef child = ChildRef::Of(e);
        // Unpinned before the descent, so at most one page per level stays pinned.
        if (i + 1 == n || end >= hi) page.Reset();
        XTFQ_TRY(AggregateIn(level - 1, child, start, lo, hi, out));
        if (!page.valid()) return Ok();
      }
    }
    start = end;
  }
  return Ok();
}

}  // namespace xtfq
