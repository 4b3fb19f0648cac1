#include "store/page_map_reader.h"

#include <fmt/format.h>

#include "store/format.h"
#include "store/page_header.h"

namespace xtfq {

namespace f = format;

uint32_t PageMapReader::LeafCapacity(uint32_t page_size) { return (page_size - f::kPageHeaderSize) / f::kLocationSize; }

Result<std::vector<Location>> PageMapReader::ReadLeaf(File& file, uint32_t page_size, uint32_t page_count, PageId slot,
                                                      uint32_t index) {
  if (slot.value < f::kFirstDataPage || slot.value >= page_count) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: page map leaf {} at slot {}, outside slots 2..{}", file.name(),
                                                  index, slot.value, page_count - 1));
  }
  std::vector<std::byte> page(page_size);
  XTFQ_TRY(ReadExact(file, uint64_t{slot.value} * page_size, page));
  XTFQ_TRY(VerifyPage(page, slot, file.name()));
  const PageHeader h = PageHeader::Decode(page.data());
  const uint32_t cap = LeafCapacity(page_size);
  if (h.kind != PageKind::kPageMap || h.level != 0 || h.flags != 0 || h.array.value != 0 || h.entry_count == 0 ||
      h.entry_count > cap || h.prev != kNoPage || h.next != kNoPage) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: page {} (offset {}): page map leaf {}: holds a {} page of level {} with {} entries",
                             file.name(), slot.value, uint64_t{slot.value} * page_size, index, PageKindName(h.kind),
                             h.level, h.entry_count));
  }
  std::vector<Location> out(h.entry_count);
  for (uint32_t i = 0; i < h.entry_count; ++i) {
    out[i] = Location::Decode(page.data() + f::kPageHeaderSize + size_t{i} * f::kLocationSize);
  }
  return out;
}

Result<Location> PageMapReader::Find(PageId id) {
  if (id == kNoPage || id.value >= chain_ids_) return Location{};
  const uint32_t index = id.value / per_leaf_;
  if (index >= directory_.size() || directory_[index] == kNoPage) return Location{};
  std::lock_guard lock(mu_);
  auto it = leaves_.find(index);
  if (it == leaves_.end()) {
    XTFQ_ASSIGN_OR_RETURN(std::vector<Location> locs,
                          ReadLeaf(file_, page_size_, page_count_, directory_[index], index));
    ++leaf_reads_;
    if (leaves_.size() >= max_leaves_) {
      leaves_.erase(lru_.back());
      lru_.pop_back();
    }
    lru_.push_front(index);
    it = leaves_.emplace(index, Leaf{std::move(locs), lru_.begin()}).first;
  } else {
    lru_.splice(lru_.begin(), lru_, it->second.pos);
  }
  const uint32_t i = id.value % per_leaf_;
  return i < it->second.locations.size() ? it->second.locations[i] : Location{};
}

Status PageMapReader::CheckStored(const Location& loc, PageId id, uint32_t page_size, uint32_t page_count,
                                  std::string_view file, std::string_view said_by) {
  const uint64_t end = uint64_t{page_count} * page_size;
  if (!loc.stored()) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: page {}: {} has no stored copy of it", file, id.value, said_by));
  }
  if (loc.offset < uint64_t{f::kFirstDataPage} * page_size || loc.length <= f::kPageHeaderSize ||
      loc.length > page_size || loc.offset + loc.length > end) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: page {}: {} stores it at offset {}, {} bytes, outside the {} bytes of "
                             "slots 2..{} or longer than a page",
                             file, id.value, said_by, loc.offset, loc.length, end, page_count - 1));
  }
  return Ok();
}

Result<Location> PageMapReader::FindStored(PageId id, Location hint) {
  Location loc = hint;
  if (!loc.stored()) {
    XTFQ_ASSIGN_OR_RETURN(loc, Find(id));
  }
  XTFQ_TRY(CheckStored(loc, id, page_size_, page_count_, file_.name(),
                       hint.stored() ? "the entry or descriptor that leads to it" : "the page map"));
  return loc;
}

uint64_t PageMapReader::leaf_reads() const {
  std::lock_guard lock(mu_);
  return leaf_reads_;
}

}  // namespace xtfq
