#include "store/page_map_writer.h"

#include <fmt/format.h>

#include "store/format.h"
#include "store/page_header.h"
#include "store/page_map_reader.h"

namespace xtfq {

namespace f = format;

PageMapWriter::PageMapWriter(uint32_t page_size, uint32_t page_count, std::vector<PageId> directory)
    : page_size_(page_size),
      committed_pages_(page_count),
      per_leaf_(PageMapReader::LeafCapacity(page_size)),
      directory_(std::move(directory)) {}

Result<std::vector<Location>*> PageMapWriter::Leaf(uint32_t index) {
  auto it = dirty_.find(index);
  if (it != dirty_.end()) return &it->second;
  std::vector<Location> locs;
  if (auto c = clean_.find(index); c != clean_.end()) {
    locs = std::move(c->second);
    clean_.erase(c);
  } else if (index < directory_.size() && directory_[index] != kNoPage) {
    XTFQ_ASSIGN_OR_RETURN(locs,
                          PageMapReader::ReadLeaf(*file_, page_size_, committed_pages_, directory_[index], index));
  }
  return &dirty_.emplace(index, std::move(locs)).first->second;
}

Status PageMapWriter::Set(PageId id, const Location& loc) {
  XTFQ_ASSIGN_OR_RETURN(std::vector<Location> * leaf, Leaf(id.value / per_leaf_));
  const uint32_t i = id.value % per_leaf_;
  if (leaf->size() <= i) leaf->resize(i + 1);
  (*leaf)[i] = loc;
  return Ok();
}

Result<Location> PageMapWriter::Get(PageId id) {
  const uint32_t index = id.value / per_leaf_, i = id.value % per_leaf_;
  const std::vector<Location>* leaf = nullptr;
  if (auto d = dirty_.find(index); d != dirty_.end()) {
    leaf = &d->second;
  } else if (auto c = clean_.find(index); c != clean_.end()) {
    leaf = &c->second;
  } else if (index < directory_.size() && directory_[index] != kNoPage) {
    // A committed leaf, kept as read (not dirty: a commit does not rewrite it).
    XTFQ_ASSIGN_OR_RETURN(std::vector<Location> locs,
                          PageMapReader::ReadLeaf(*file_, page_size_, committed_pages_, directory_[index], index));
    leaf = &clean_.emplace(index, std::move(locs)).first->second;
  } else {
    return Location{};
  }
  return i < leaf->size() ? (*leaf)[i] : Location{};
}

Result<Location> PageMapWriter::Peek(PageId id) const {
  const uint32_t index = id.value / per_leaf_, i = id.value % per_leaf_;
  if (auto it = dirty_.find(index); it != dirty_.end()) return i < it->second.size() ? it->second[i] : Location{};
  if (index >= directory_.size() || directory_[index] == kNoPage) return Location{};
  XTFQ_ASSIGN_OR_RETURN(std::vector<Location> locs,
                        PageMapReader::ReadLeaf(*file_, page_size_, committed_pages_, directory_[index], index));
  return i < locs.size() ? locs[i] : Location{};
}

Status PageMapWriter::Commit(PageAllocator& slots, PageWriteQueue& writes) {
  std::vector<std::byte> page(page_size_);
  for (auto& [index, locs] : dirty_) {
    if (locs.empty()) continue;
    XTFQ_ASSIGN_OR_RETURN(PageId slot, slots.Allocate());
    std::fill(page.begin(), page.end(), std::byte{0});
    PageHeader h;
    h.page_id = h.logical = slot;
    h.kind = PageKind::kPageMap;
    h.entry_count = static_cast<uint32_t>(locs.size());
    h.Encode(page.data());
    for (size_t i = 0; i < locs.size(); ++i) locs[i].Encode(page.data() + f::kPageHeaderSize + i * f::kLocationSize);
    SealPage(page);
    XTFQ_TRY(writes.Queue(slot, page));
    if (directory_.size() <= index) directory_.resize(index + 1, kNoPage);
    slots.Release(directory_[index]);
    directory_[index] = slot;
  }
  dirty_.clear();
  clean_.clear();
  committed_pages_ = slots.page_count();
  return Ok();
}

Status PageMapWriter::CheckInvariants(WriterAudit& audit) const {
  for (size_t i = 0; i < directory_.size(); ++i) {
    XTFQ_TRY(audit.Claim(directory_[i], WriterAudit::Role::kPageMap, fmt::format("page map leaf {}", i)));
  }
  for (const auto& [index, locs] : dirty_) {
    if (locs.size() > per_leaf_) {
      return audit.Violation(
          "W10", fmt::format("page map leaf {} holds {} Locations, more than {}", index, locs.size(), per_leaf_));
    }
  }
  return Ok();
}

}  // namespace xtfq
