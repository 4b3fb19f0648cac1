#include "index/process_tree.h"

#include <fmt/format.h>

#include "store/endian.h"
#include "store/format.h"
#include "store/index_entry.h"
#include "store/page_header.h"

namespace xtfq {

namespace f = format;

ProcessTree::ProcessTree(PageCache& cache, const Catalogue& catalogue, const ArrayDesc& array)
    : cache_(cache), catalogue_(catalogue), array_(array), entry_width_(IndexEntry::Width(array.schema)) {}

Result<PageRef> ProcessTree::Fetch(size_t level, ChildRef child) {
  const PageId id = child.id;
  auto bad = [&](const std::string& m) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: page {}: process tree of array '{}' level {}: {}",
                                                  cache_.source().name(), id.value, array_.name, level, m));
  };
  if (id == kNoPage) return bad("the tree leads to page 0");
  XTFQ_ASSIGN_OR_RETURN(PageRef page, cache_.Fetch(PageKey::Chain(id), child.where));
  const std::string wrong = TreePageMismatch(page.data(), PageKind::kProcess, static_cast<uint8_t>(level), array_.id,
                                             id, PageCapacity(cache_.page_size(), entry_width_));
  if (!wrong.empty()) return bad(wrong);
  return page;
}

bool ProcessTree::Below(int64_t key, int64_t p2) { return p2 == INT64_MAX || key < p2; }

Result<std::vector<const ArrayDesc*>> ProcessTree::Range(int64_t p1, int64_t p2) {
  std::vector<const ArrayDesc*> out;
  if (array_.process_root == kNoPage || !Below(p1, p2)) return out;
  ChildRef id{array_.process_root, array_.process_root_location};
  for (size_t level = height() - 1; level > 0; --level) {
    XTFQ_ASSIGN_OR_RETURN(PageRef page, Fetch(level, id));
    const uint32_t n = LoadLe<uint32_t>(page.data() + f::kPhEntryCount);
    const std::byte* base = page.data() + f::kPageHeaderSize;
    // The last entry whose first key is <= p1 (or the first).
    uint32_t lo = 0;
    for (uint32_t hi = n; lo + 1 < hi;) {
      const uint32_t mid = (lo + hi) / 2;
      if (LoadLe<int64_t>(base + size_t{mid} * entry_width_ + f::kIeKey) <= p1)
        lo = mid;
      else
        hi = mid;
    }
    id = ChildRef::Of(base + size_t{lo} * entry_width_);
  }
  // Level 0 is walked by its `next` links, which the page map resolves.
  for (uint64_t pages = 0; id.id != kNoPage; ++pages) {
    if (pages > catalogue_.chain_ids)
      return Error(ErrorCode::kCorrupt, fmt::format("{}: process tree of array '{}': level 0 does not end",
                                                    cache_.source().name(), array_.name));
    XTFQ_ASSIGN_OR_RETURN(PageRef page, Fetch(0, id));
    const uint32_t n = LoadLe<uint32_t>(page.data() + f::kPhEntryCount);
    const std::byte* base = page.data() + f::kPageHeaderSize;
    for (uint32_t i = 0; i < n; ++i) {
      const std::byte* e = base + size_t{i} * entry_width_;
      const int64_t key = LoadLe<int64_t>(e + f::kIeKey);
      if (key < p1) continue;
      if (!Below(key, p2)) return out;
      const ArrayDesc* a = catalogue_.Get(ArrayId(LoadLe<uint32_t>(e + f::kIeChild)));
      if (a == nullptr || !array_.HoldsProcess(*a, key)) {
        return Error(ErrorCode::kCorrupt, fmt::format("{}: page {}: process tree of array '{}': entry {} names no "
                                                      "per-process array of process {}",
                                                      cache_.source().name(), id.id.value, array_.name, i, key));
      }
      out.push_back(a);
    }
    id = ChildRef{PageId(LoadLe<uint32_t>(page.data() + f::kPhNext)), {}};
  }
  return out;
}

Result<Summary> ProcessTree::Totals(int64_t p1, int64_t p2) {
  Summary out(array_.schema);
  if (array_.process_root == kNoPage || !Below(p1, p2)) return out;
  XTFQ_TRY(TotalsIn(height() - 1, ChildRef{array_.process_root, array_.process_root_location}, INT64_MAX, p1, p2, out));
  return out;
}

Status ProcessTree::TotalsIn(size_t level, ChildRef id, int64_t upper, int64_t p1, int64_t p2, Summary& out) {
  XTFQ_ASSIGN_OR_RETURN(PageRef page, Fetch(level, id));
  const uint32_t n = LoadLe<uint32_t>(page.data() + f::kPhEntryCount);
  const std::byte* base = page.data() + f::kPageHeaderSize;
  for (uint32_t i = 0; i < n; ++i) {
    const std::byte* e = base + size_t{i} * entry_width_;
    const int64_t lo = LoadLe<int64_t>(e + f::kIeKey);
    if (!Below(lo, p2)) break;
    // Keys are distinct, so this subtree's keys are below the next entry's.
    const int64_t hi = i + 1 < n ? LoadLe<int64_t>(e + entry_width_ + f::kIeKey) - 1 : upper;
    if (level == 0 ? lo < p1 : hi < p1) continue;
    if (level == 0 || (lo >= p1 && Below(hi, p2))) {
      out.MergeEncoded(LoadLe<uint64_t>(e + f::kIeCount), e + f::kIndexEntryFixedSize);
    } else {
      XTFQ_TRY(TotalsIn(level - 1, ChildRef::Of(e), hi, p1, p2, out));
    }
  }
  return Ok();
}

}  // namespace xtfq
