#include "index/chain_cursor.h"

#include <fmt/format.h>

#include "store/format.h"

namespace xtfq {

ChainCursor::ChainCursor(PageCache& cache, const ChainDesc& chain, PageKind kind, ArrayId array, uint32_t width)
    : cache_(cache),
      chain_(chain),
      kind_(kind),
      array_(array),
      width_(width),
      capacity_(PageCapacity(cache.page_size(), width)) {}

Status ChainCursor::Load(PageId logical, uint64_t page_no, PageId prev) {
  const uint64_t full = chain_.FullPages(capacity_);
  const bool open = page_no == full;
  const PageKey physical = chain_.Resolve(logical);
  auto where = [&] {
    return fmt::format("{}: {}: {} page {} of its chain", cache_.source().name(), physical.Name(), PageKindName(kind_),
                       page_no);
  };
  if (physical.none() || (open && logical != chain_.open)) {
    return Error(ErrorCode::kCorrupt, where() + ": the chain's links lead past its last page");
  }
  XTFQ_ASSIGN_OR_RETURN(page_, cache_.Fetch(physical));
  const PageHeader h = PageHeader::Decode(page_.data());
  PageHeader want;
  want.kind = kind_;
  want.array = array_;
  want.flags = open ? format::kFlagShadow : 0;
  want.entry_count = open ? chain_.OpenEntries(capacity_) : capacity_;
  want.prev = prev;
  want.next = open ? kNoPage : (page_no + 1 == full ? chain_.open : h.next);
  want.logical = logical;
  XTFQ_TRY(ExpectHeader(h, want, where()));
  if (!open && h.next == kNoPage) return Error(ErrorCode::kCorrupt, where() + ": next link is 0 before the last page");
  logical_ = logical;
  page_no_ = page_no;
  in_page_ = want.entry_count;
  slot_ = 0;
  return Ok();
}

Result<bool> ChainCursor::First() {
  page_.Reset();
  index_ = 0;
  if (chain_.entries == 0) return false;
  XTFQ_TRY(Load(chain_.head, 0, kNoPage));
  return true;
}

Result<bool> ChainCursor::Next() {
  if (index_ + 1 >= chain_.entries) {
    index_ = chain_.entries;
    page_.Reset();
    return false;
  }
  ++index_;
  if (++slot_ < in_page_) return true;
  const PageHeader h = PageHeader::Decode(page_.data());
  XTFQ_TRY(Load(h.next, page_no_ + 1, logical_));
  return true;
}

}  // namespace xtfq
