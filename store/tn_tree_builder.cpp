#include "store/tn_tree_builder.h"

#include <fmt/format.h>

#include "store/endian.h"
#include "store/format.h"
#include "store/store.h"

namespace xtfq {

namespace f = format;

TnTreeBuilder::TnTreeBuilder(const ArrayDesc& desc, uint32_t page_size)
    : desc_(&desc),
      page_size_(page_size),
      record_plan_(ColumnPlan::ForRecords(desc.schema)),
      index_plan_(ColumnPlan::ForIndexEntries(desc.schema)) {
  levels_.reserve(f::kMaxLevels);
  levels_.emplace_back(PageKind::kData, desc.id, 0, desc.schema.record_width(), page_size_, record_plan_);
}

Status TnTreeBuilder::Load(Store& store) {
  const ArrayDesc& d = *desc_;
  levels_.clear();
  for (auto& waiting : pending_) waiting.clear();
  dirty_ = false;
  for (size_t l = 0; l < d.levels.size(); ++l) {
    const uint32_t width = l == 0 ? d.schema.record_width() : IndexEntry::Width(d.schema);
    OpenChain& c = levels_.emplace_back(l == 0 ? PageKind::kData : PageKind::kIndex, d.id, static_cast<uint8_t>(l),
                                        width, page_size_, l == 0 ? record_plan_ : index_plan_);
    XTFQ_TRY(c.Load(store, d.levels[l], fmt::format("array '{}' level {}", d.name, l), l > 0));
  }
  // The time of the last record, so that appends stay in time order across reopens.
  const Schema& schema = d.schema;
  const OpenChain& leaf = levels_[0];
  if (!schema.time_field() || leaf.desc().entries == 0) return Ok();
  if (leaf.count() > 0) {
    last_time_ = schema.Time(leaf.entries() + size_t{leaf.count() - 1} * leaf.width());
    return Ok();
  }
  std::vector<std::byte> page(page_size_);
  XTFQ_TRY(store.ReadSealed(leaf.desc().last_full, page));
  last_time_ = schema.Time(page.data() + f::kPageHeaderSize + size_t{leaf.capacity() - 1} * leaf.width());
  return Ok();
}

Error TnTreeBuilder::WidthError(size_t got) const {
  return Error(ErrorCode::kInvalidArgument, fmt::format("record of {} bytes for array '{}' of {}-byte records", got,
                                                        desc_->name, levels_[0].width()));
}

Error TnTreeBuilder::TimeError(int64_t t) const {
  return Error(ErrorCode::kInvalidArgument,
               fmt::format("array '{}' record {}: time {} is before the previous record's {}", desc_->name,
                           levels_[0].desc().entries, t, last_time_));
}

Status TnTreeBuilder::Append(size_t level, std::span<const std::byte> bytes, PageSpace& space) {
  OpenChain& c = levels_[level];
  while (!bytes.empty()) {
    XTFQ_TRY(c.Reserve(space));
    bytes = bytes.subspan(c.Fill(bytes));
    if (!c.full()) continue;
    // The filled page's entry for the level above (its first key, id and summary), taken while the
    // page is still the open one.
    IndexEntry up = Summarize(c, std::nullopt);
    XTFQ_ASSIGN_OR_RETURN(uint64_t ticket, c.Roll(space, true));
    // The page is encoded on the seal queue's thread while the next ones fill: its entry goes up,
    // after those before it, once the queue has placed it (when SealQueue::kDepth pages were
    // sealed after it), or at commit. (Not as soon as it is encoded: that depends on the threads'
    // timing, and the pack's layout would too.)
    pending_[level].push_back(Pending{std::move(up), ticket});
    XTFQ_TRY(CompleteLevel(level, false, space));
  }
  return Ok();
}

Status TnTreeBuilder::CompleteLevel(size_t level, bool all, PageSpace& space) {
  std::deque<Pending>& waiting = pending_[level];
  while (!waiting.empty() && (all || waiting.front().ticket < space.seals.placed())) {
    Pending p = std::move(waiting.front());
    waiting.pop_front();
    XTFQ_ASSIGN_OR_RETURN(p.entry.child_location, space.seals.Resolve(p.ticket));
    XTFQ_TRY(AddParentEntry(level, p.entry, space));
  }
  return Ok();
}

Status TnTreeBuilder::CompletePending(PageSpace& space) {
  // Bottom-up: entries added to level l + 1 may fill its page, whose entry then waits at l + 1.
  for (size_t l = 0; l < levels_.size(); ++l) XTFQ_TRY(CompleteLevel(l, true, space));
  return Ok();
}

Status TnTreeBuilder::AddParentEntry(size_t level, const IndexEntry& entry, PageSpace& space) {
  const Schema& schema = desc_->schema;
  if (level + 1 == levels_.size()) {
    if (levels_.size() == f::kMaxLevels) {
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("array '{}' needs more than {} levels", desc_->name, f::kMaxLevels));
    }
    levels_.emplace_back(PageKind::kIndex, desc_->id, static_cast<uint8_t>(level + 1), IndexEntry::Width(schema),
                         page_size_, index_plan_);
  }
  std::vector<std::byte> bytes(IndexEntry::Width(schema));
  entry.Encode(bytes.data());
  return Append(level + 1, bytes, space);
}

IndexEntry TnTreeBuilder::Summarize(const OpenChain& c, const std::optional<IndexEntry>& edge) const {
  const uint32_t n = c.count();
  const Schema& schema = desc_->schema;
  IndexEntry e;
  e.summary = Summary(schema);
  e.child = c.desc().open;
  const std::byte* base = c.entries();
  if (c.level() == 0 && n > 0) {
    e.key = schema.time_field() ? schema.Time(base) : static_cast<int64_t>(c.desc().entries - c.count());
    e.summary.AddRange(schema, base, n);
  }
  for (uint32_t i = 0; c.level() > 0 && i < n; ++i) {
    const std::byte* p = base + size_t{i} * c.width();
    if (i == 0) e.key = LoadLe<int64_t>(p + f::kIeKey);
    e.summary.MergeEncoded(LoadLe<uint64_t>(p + f::kIeCount), p + f::kIndexEntryFixedSize);
  }
  if (edge) {
    if (n == 0) e.key = edge->key;
    e.summary.Merge(edge->summary);
  }
  return e;
}

Status TnTreeBuilder::Commit(PageSpace& space) {
  XTFQ_TRY(CompletePending(space));
  if (!dirty_) return Ok();
  dirty_ = false;
  const bool keep_totals = desc_->per_process() || desc_->sole_process;
  // Bottom-up: each open page's summary becomes the right-edge entry of the level above.
  std::optional<IndexEntry> edge;
  for (size_t l = 0; l < levels_.size(); ++l) {
    OpenChain& c = levels_[l];
    const bool has_edge = l > 0 && edge.has_value();
    const uint32_t total = c.count() + (has_edge ? 1 : 0);
    std::optional<IndexEntry> next;
    // A per-process or sole-process array also summarizes its root: its totals for the process tree.
    if (total > 0 && (l + 1 < levels_.size() || keep_totals)) {
      next = Summarize(c, has_edge ? edge : std::nullopt);
    }
    XTFQ_TRY(c.CommitShadow(has_edge ? edge : std::nullopt, space));
    edge = std::move(next);
  }
  if (keep_totals && edge) totals_ = std::move(*edge);
  return Ok();
}

Status TnTreeBuilder::CheckInvariants(WriterAudit& audit, uint32_t chain_ids) const {
  const ArrayDesc& d = *desc_;
  if (levels_.empty() || levels_.size() > f::kMaxLevels) {
    return audit.Violation("W6", fmt::format("array '{}' has {} levels", d.name, levels_.size()));
  }
  for (size_t l = 0; l < levels_.size(); ++l) {
    const OpenChain& c = levels_[l];
    const std::string what = fmt::format("array '{}' level {}", d.name, l);
    XTFQ_TRY(c.CheckInvariants(audit, chain_ids, what));
    const uint32_t width = l == 0 ? d.schema.record_width() : IndexEntry::Width(d.schema);
    if (c.kind() != (l == 0 ? PageKind::kData : PageKind::kIndex) || c.level() != l || c.array() != d.id ||
        c.width() != width) {
      return audit.Violation("W6", fmt::format("{}: a chain of {} pages of level {} of array {} with {}-byte entries",
                                               what, PageKindName(c.kind()), c.level(), c.array().value, c.width()));
    }
    // Full pages whose entries are pending (CompletePending) have none above yet.
    if (l == 0) continue;
    const uint64_t below = levels_[l - 1].desc().FullPages(levels_[l - 1].capacity()) - pending_[l - 1].size();
    if (c.desc().entries != below) {
      return audit.Violation("W6",
                             fmt::format("{}: {} entries for {} full pages below", what, c.desc().entries, below));
    }
  }
  const OpenChain& top = levels_.back();
  if (top.desc().FullPages(top.capacity()) != pending_[levels_.size() - 1].size()) {
    return audit.Violation("W6", fmt::format("array '{}': the top level {} has {} full pages, {} of them waiting for "
                                             "their entries above",
                                             d.name, levels_.size() - 1, top.desc().FullPages(top.capacity()),
                                             pending_[levels_.size() - 1].size()));
  }
  const OpenChain& leaf = levels_[0];
  if (d.schema.time_field() && leaf.count() > 0) {
    const int64_t t = d.schema.Time(leaf.entries() + size_t{leaf.count() - 1} * leaf.width());
    if (t != last_time_) {
      return audit.Violation("W6", fmt::format("array '{}': the last record's time is {}, appends compare with {}",
                                               d.name, t, last_time_));
    }
  }
  if (d.schema.time_field() && leaf.desc().entries == 0 && last_time_ != INT64_MIN) {
    return audit.Violation("W6", fmt::format("array '{}' has no record but a last time {}", d.name, last_time_));
  }
  if (!dirty_) {
    bool same = d.levels.size() == levels_.size();
    for (size_t l = 0; same && l < levels_.size(); ++l) same = d.levels[l] == levels_[l].desc();
    if (!same) {
      return audit.Violation("W4", fmt::format("array '{}': nothing appended since the last commit, yet its chains "
                                               "differ from the committed ones",
                                               d.name));
    }
  }
  return Ok();
}

}  // namespace xtfq
