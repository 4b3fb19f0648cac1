#include "store/process_index_builder.h"

#include <fmt/format.h>

#include <algorithm>

#include "store/chain_desc.h"
#include "store/column_plan.h"
#include "store/format.h"
#include "store/page_header.h"
#include "store/store.h"

namespace xtfq {

namespace f = format;

void ProcessIndexBuilder::Add(TnTreeBuilder& child) {
  const int64_t p = child.desc().process;
  if (p >= 0 && p < kDense) {
    if (dense_.size() <= static_cast<size_t>(p)) dense_.resize(static_cast<size_t>(p) + 1, nullptr);
    if (dense_[static_cast<size_t>(p)] == nullptr) ++processes_;
    dense_[static_cast<size_t>(p)] = &child;
  } else {
    if (sparse_.find(p) == sparse_.end()) ++processes_;
    sparse_[p] = &child;
  }
}

Status ProcessIndexBuilder::Load(Store& store, const ArrayDesc& a) {
  if (a.process_root == kNoPage) return Ok();
  std::vector<std::byte> page(page_size_);
  const Schema& schema = a.schema;
  const uint32_t width = IndexEntry::Width(schema);
  PageId first = a.process_root;
  for (int level = a.process_levels - 1; level >= 0; --level) {
    PageId next_first = kNoPage;
    for (PageId id = first; id != kNoPage;) {
      XTFQ_TRY(store.ReadSealed(id, page));
      const PageHeader h = PageHeader::Decode(page.data());
      const auto bad = [&](const std::string& m) {
        return Error(ErrorCode::kCorrupt, fmt::format("{}: page {}: process tree of array '{}' level {}: {}",
                                                      store.name(), id.value, a.name, level, m));
      };
      if (h.kind != PageKind::kProcess || h.level != level || h.array != a.id || h.entry_count == 0 ||
          h.entry_count > PageCapacity(page_size_, width) || pages_.size() >= store.catalogue().chain_ids) {
        return bad(fmt::format("a {} page of level {} with {} entries", PageKindName(h.kind), h.level, h.entry_count));
      }
      pages_.push_back(id);
      for (uint32_t i = 0; i < h.entry_count; ++i) {
        const IndexEntry e = IndexEntry::DecodeFor(schema, page.data() + f::kPageHeaderSize + size_t{i} * width);
        if (level > 0) {
          if (next_first == kNoPage) next_first = e.child;
          continue;
        }
        TnTreeBuilder* child = a.sole_process ? parent_ : Find(e.key);
        if (child == nullptr || !a.HoldsProcess(child->desc(), e.key) || child->desc().id != ArrayId(e.child.value)) {
          return bad(fmt::format("entry {} names no per-process array of process {}", i, e.key));
        }
        child->set_totals(e);
      }
      id = h.next;
    }
    first = next_first;
  }
  return Ok();
}

Status ProcessIndexBuilder::Build(ArrayDesc& a, PageSpace& space) {
  changed_ = false;
  // The tree is rebuilt as stored pages in the shadow pack; the committed one is dropped.
  for (PageId id : pages_) XTFQ_TRY(space.DropShadow(id));
  pages_.clear();
  const Schema& schema = a.schema;
  // Level 0: one entry per process, in process order.
  std::vector<IndexEntry> entries;
  auto add = [&](const TnTreeBuilder* c) {
    IndexEntry e = c->totals();
    e.key = c->desc().process;
    e.child = PageId(c->desc().id.value);
    entries.push_back(std::move(e));
  };
  if (a.sole_process) add(parent_);
  for (auto& [process, c] : sparse_) {
    if (process < 0) add(c);
  }
  std::sort(entries.begin(), entries.end(), [](const IndexEntry& x, const IndexEntry& y) { return x.key < y.key; });
  for (const TnTreeBuilder* c : dense_) {
    if (c != nullptr) add(c);
  }
  const size_t dense_end = entries.size();
  for (auto& [process, c] : sparse_) {
    if (process >= 0) add(c);
  }
  std::sort(entries.begin() + static_cast<ptrdiff_t>(dense_end), entries.end(),
            [](const IndexEntry& x, const IndexEntry& y) { return x.key < y.key; });
  a.process_root = kNoPage;
  a.process_root_location = Location{};
  a.process_levels = 0;
  if (entries.empty()) return Ok();
  const uint32_t width = IndexEntry::Width(schema);
  const std::shared_ptr<const ColumnPlan> plan = ColumnPlan::ForIndexEntries(schema);
  const uint32_t cap = PageCapacity(page_size_, width);
  std::vector<std::byte> page(page_size_);
  for (uint8_t level = 0;; ++level) {
    const size_t npages = (entries.size() + cap - 1) / cap;
    std::vector<PageId> ids;
    for (size_t i = 0; i < npages; ++i) {
      XTFQ_ASSIGN_OR_RETURN(PageId id, space.ids.Next());
      ids.push_back(id);
    }
    std::vector<IndexEntry> above;
    for (size_t i = 0; i < npages; ++i) {
      const size_t from = i * cap, to = std::min(entries.size(), from + cap);
      std::fill(page.begin(), page.end(), std::byte{0});
      PageHeader h;
      h.page_id = h.logical = ids[i];
      h.kind = PageKind::kProcess;
      h.level = level;
      h.array = a.id;
      h.entry_count = static_cast<uint32_t>(to - from);
      h.prev = i > 0 ? ids[i - 1] : kNoPage;
      h.next = i + 1 < npages ? ids[i + 1] : kNoPage;
      h.Encode(page.data());
      IndexEntry up;
      up.key = entries[from].key;
      up.child = ids[i];
      up.summary = Summary(schema);
      for (size_t k = from; k < to; ++k) {
        entries[k].Encode(page.data() + f::kPageHeaderSize + (k - from) * width);
        up.summary.Merge(entries[k].summary);
      }
      XTFQ_ASSIGN_OR_RETURN(up.child_location, space.SealShadow(ids[i], page, plan.get()));
      pages_.push_back(ids[i]);
      above.push_back(std::move(up));
    }
    if (npages == 1) {
      a.process_root = ids[0];
      a.process_root_location = above[0].child_location;
      a.process_levels = static_cast<uint16_t>(level + 1);
      return Ok();
    }
    if (level + 1 == f::kMaxLevels) {
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("array '{}': the process tree needs more than {} levels", a.name, f::kMaxLevels));
    }
    entries = std::move(above);
  }
}

Status ProcessIndexBuilder::CheckInvariants(const ArrayDesc& parent, uint64_t records, uint32_t chain_ids,
                                            WriterAudit& audit) const {
  const std::string what = fmt::format("process tree of array '{}'", parent.name);
  for (PageId id : pages_) XTFQ_TRY(audit.ClaimId(id, chain_ids, what));
  uint64_t sum = 0;
  size_t seen = 0;
  auto member = [&](int64_t process, const TnTreeBuilder* c, bool dense) -> Status {
    const ArrayDesc& d = c->desc();
    const bool in_dense = process >= 0 && process < kDense;
    if (d.process != process || in_dense != dense || d.parent != parent.id || d.id <= parent.id) {
      return audit.Violation(
          "W7", fmt::format("{}: array {} (parent {}, process {}) is registered under process {} "
                            "in the {} table",
                            what, d.id.value, d.parent.value, d.process, process, dense ? "dense" : "hash"));
    }
    if (c->totals().summary.count != d.record_count()) {
      return audit.Violation("W7", fmt::format("{}: array '{}' totals count {} records, it committed {}", what, d.name,
                                               c->totals().summary.count, d.record_count()));
    }
    sum += c->levels()[0].desc().entries;
    ++seen;
    return Ok();
  };
  for (size_t p = 0; p < dense_.size(); ++p) {
    if (dense_[p] != nullptr) XTFQ_TRY(member(static_cast<int64_t>(p), dense_[p], true));
  }
  for (const auto& [process, c] : sparse_) XTFQ_TRY(member(process, c, false));
  if (parent.sole_process) {
    // The tree's one entry is the array's own totals; no per-process array.
    if (seen != 0 || parent_->totals().summary.count != parent.record_count()) {
      return audit.Violation(
          "W7", fmt::format("{}: of sole process {}, yet with {} per-process arrays, or totals of "
                            "{} records where {} were committed",
                            what, parent.process, seen, parent_->totals().summary.count, parent.record_count()));
    }
    sum = records;
  } else if (seen != processes_) {
    return audit.Violation("W7",
                           fmt::format("{}: {} per-process arrays registered, {} counted", what, seen, processes_));
  }
  if (sum != records) {
    return audit.Violation("W7",
                           fmt::format("{}: the per-process arrays hold {} records, the array {}", what, sum, records));
  }
  if ((parent.process_root == kNoPage) != (parent.process_levels == 0) ||
      (parent.process_root == kNoPage) != pages_.empty() ||
      (parent.process_root != kNoPage &&
       std::find(pages_.begin(), pages_.end(), parent.process_root) == pages_.end())) {
    return audit.Violation("W7", fmt::format("{}: root {} with {} levels over {} pages", what,
                                             parent.process_root.value, parent.process_levels, pages_.size()));
  }
  if (!changed_) {
    const uint64_t want = ProcessTreePages(processes(), PageCapacity(page_size_, IndexEntry::Width(parent.schema)));
    if (pages_.size() != want) {
      return audit.Violation("W7", fmt::format("{}: unchanged since the last commit with {} pages for {} processes "
                                               "({} expected)",
                                               what, pages_.size(), processes(), want));
    }
  }
  return Ok();
}

}  // namespace xtfq
