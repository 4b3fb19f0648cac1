#include "store/open_chain.h"

#include <fmt/format.h>

#include <algorithm>

#include "store/store.h"

namespace xtfq {

namespace f = format;

OpenChain::OpenChain(PageKind kind, ArrayId array, uint8_t level, uint32_t width, uint32_t page_size,
                     std::shared_ptr<const ColumnPlan> plan)
    : plan_(std::move(plan)),
      kind_(kind),
      array_(array),
      level_(level),
      width_(width),
      capacity_(PageCapacity(page_size, width)),
      page_size_(page_size) {
  page_.assign(f::kPageHeaderSize, std::byte{0});
}

void OpenChain::Grow(size_t bytes) {
  if (bytes <= page_.size()) return;
  page_.resize(std::min<size_t>(page_size_, std::max(bytes, 2 * page_.size())), std::byte{0});
}

std::span<const std::byte> OpenChain::WholePage(std::vector<std::byte>& scratch) const {
  if (page_.size() == page_size_) return page_;
  scratch.assign(page_size_, std::byte{0});
  std::memcpy(scratch.data(), page_.data(), page_.size());
  return scratch;
}

Status OpenChain::Reserve(PageSpace& space) {
  if (desc_.open != kNoPage) return Ok();
  XTFQ_ASSIGN_OR_RETURN(PageId id, space.ids.Next());
  desc_.open = desc_.head = id;
  return Ok();
}

size_t OpenChain::Fill(std::span<const std::byte> bytes) {
  const size_t room = size_t{capacity_ - count_} * width_;
  const size_t n = std::min(room, bytes.size());
  Grow(f::kPageHeaderSize + size_t{count_} * width_ + n);
  std::memcpy(page_.data() + f::kPageHeaderSize + size_t{count_} * width_, bytes.data(), n);
  count_ += static_cast<uint32_t>(n / width_);
  desc_.entries += n / width_;
  return n;
}

Result<uint64_t> OpenChain::Roll(PageSpace& space, bool want_location) {
  XTFQ_ASSIGN_OR_RETURN(PageId next, space.ids.Next());
  PageHeader h;
  h.page_id = h.logical = desc_.open;
  h.kind = kind_;
  h.level = level_;
  h.array = array_;
  h.entry_count = count_;
  h.prev = desc_.last_full;
  h.next = next;
  Grow(page_size_);
  h.Encode(page_.data());
  XTFQ_ASSIGN_OR_RETURN(uint64_t sealed, space.seals.Submit(desc_.open, page_, plan_, want_location));
  XTFQ_TRY(space.DropShadow(desc_.shadow));
  desc_.shadow = kNoPage;
  desc_.shadow_location = Location{};
  desc_.last_full = desc_.open;
  desc_.open = next;
  count_ = 0;
  std::fill(page_.begin() + f::kPageHeaderSize, page_.end(), std::byte{0});
  return sealed;
}

Status OpenChain::Append(std::span<const std::byte> bytes, PageSpace& space) {
  while (!bytes.empty()) {
    XTFQ_TRY(Reserve(space));
    bytes = bytes.subspan(Fill(bytes));
    if (full()) XTFQ_TRY(Roll(space, false));
  }
  return Ok();
}

PageHeader OpenChain::ShadowHeader(PageId at, uint32_t entries, uint8_t extra_flags) const {
  PageHeader h;
  h.page_id = at;
  h.logical = desc_.open;
  h.kind = kind_;
  h.level = level_;
  h.flags = f::kFlagShadow | extra_flags;
  h.array = array_;
  h.entry_count = entries;
  h.prev = desc_.last_full;
  return h;
}

Status OpenChain::CommitShadow(const std::optional<IndexEntry>& right_edge, PageSpace& space) {
  const uint32_t total = count_ + (right_edge ? 1 : 0);
  if (total == 0) {
    XTFQ_TRY(space.DropShadow(desc_.shadow));
    desc_.shadow = kNoPage;
    desc_.shadow_location = Location{};
    return Ok();
  }
  if (right_edge) {
    Grow(f::kPageHeaderSize + size_t{total} * width_);
    right_edge->Encode(page_.data() + f::kPageHeaderSize + size_t{count_} * width_);
  }
  XTFQ_ASSIGN_OR_RETURN(PageId s, space.ids.Next());
  ShadowHeader(s, total, right_edge ? f::kFlagRightEdge : 0).Encode(page_.data());
  thread_local std::vector<std::byte> scratch;
  XTFQ_ASSIGN_OR_RETURN(const Location stored, space.SealShadow(s, WholePage(scratch), plan_.get()));
  XTFQ_TRY(space.DropShadow(desc_.shadow));
  desc_.shadow = s;
  desc_.shadow_location = stored;
  return Ok();
}

Status OpenChain::Load(Store& store, const ChainDesc& desc, std::string_view what, bool index_level) {
  desc_ = desc;
  count_ = desc_.OpenEntries(capacity_);
  if (desc_.shadow == kNoPage) return Ok();
  Grow(page_size_);
  XTFQ_TRY(store.ReadSealed(desc_.shadow, page_));
  const PageHeader h = PageHeader::Decode(page_.data());
  const bool edge = index_level && (h.flags & f::kFlagRightEdge) != 0;
  return ExpectHeader(
      h, ShadowHeader(desc_.shadow, count_ + (edge ? 1 : 0), edge ? f::kFlagRightEdge : 0),
      fmt::format("{}: page {}: shadow of the open page of the {}", store.name(), desc_.shadow.value, what));
}

Status OpenChain::CheckInvariants(WriterAudit& audit, uint32_t chain_ids, std::string_view what) const {
  if (desc_.entries % capacity_ != count_) {
    return audit.Violation("W4", fmt::format("{}: {} entries but {} buffered", what, desc_.entries, count_));
  }
  if (page_.size() < f::kPageHeaderSize + size_t{count_} * width_) {
    return audit.Violation("W4", fmt::format("{}: {} entries buffered in {} bytes", what, count_, page_.size()));
  }
  if ((desc_.entries == 0) != (desc_.open == kNoPage)) {
    return audit.Violation(
        "W4", fmt::format("{}: {} entries and open page {} disagree", what, desc_.entries, desc_.open.value));
  }
  XTFQ_TRY(audit.ClaimId(desc_.open, chain_ids, what));
  return audit.ClaimId(desc_.shadow, chain_ids, what);
}

}  // namespace xtfq
