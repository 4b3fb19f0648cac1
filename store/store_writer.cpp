#include "store/store_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <unordered_set>

#include "store/endian.h"
#include "store/posix_file.h"
#include "store/store.h"
#include "store/superblock.h"

namespace xtfq {

namespace f = format;

StoreWriter::StoreWriter(std::unique_ptr<File> file, StoreOptions options, uint32_t page_size)
    : file_(std::move(file)), options_(options), page_size_(page_size) {
  options_.write_batch_pages = std::max<uint32_t>(1, options_.write_batch_pages);
  batch_.resize(size_t{options_.write_batch_pages} * page_size_);
  heap_ = MakeChain(PageKind::kHeap, ArrayId(0), 0, 1);
}

StoreWriter::Chain StoreWriter::MakeChain(PageKind kind, ArrayId array, uint8_t level, uint32_t width) const {
  Chain c;
  c.kind = kind;
  c.array = array;
  c.level = level;
  c.width = width;
  c.capacity = PageCapacity(page_size_, width);
  c.page.assign(page_size_, std::byte{0});
  return c;
}

Result<std::unique_ptr<StoreWriter>> StoreWriter::Create(std::unique_ptr<File> file, StoreOptions options) {
  if (!ValidPageSize(options.page_size)) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("page size {} is not a power of two from {} to {}", options.page_size,
                             f::kMinPageSize, f::kMaxPageSize));
  }
  XTFQ_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  if (size != 0) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: exists and is not empty ({} bytes); refusing to overwrite it", file->name(), size));
  }
  std::unique_ptr<StoreWriter> w(new StoreWriter(std::move(file), options, options.page_size));
  XTFQ_TRY(w->Commit());
  XTFQ_TRY(w->Commit());
  return w;
}

Result<std::unique_ptr<StoreWriter>> StoreWriter::CreatePath(const std::string& path, StoreOptions options) {
  XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(path, PosixFile::Mode::kCreateNew));
  return Create(std::move(file), options);
}

Result<std::unique_ptr<StoreWriter>> StoreWriter::OpenPath(const std::string& path, StoreOptions options) {
  XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(path, PosixFile::Mode::kWrite));
  return Open(std::move(file), options);
}

Result<std::unique_ptr<StoreWriter>> StoreWriter::Open(std::unique_ptr<File> file, StoreOptions options) {
  XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open(std::move(file)));
  const Superblock& sb = store->superblock();
  const Catalogue& cat = store->catalogue();
  // The writer's file is the store's; the store object is only used for reading until the end.
  std::unique_ptr<StoreWriter> w(new StoreWriter(nullptr, options, sb.page_size));
  w->generation_ = sb.generation;
  w->page_count_ = sb.page_count;
  w->catalogue_pages_ = store->catalogue_pages();
  w->free_ = cat.free_pages;
  std::sort(w->free_.begin(), w->free_.end(), std::greater<>());
  w->heap_.desc = cat.heap;
  XTFQ_TRY(w->LoadOpenPage(*store, w->heap_, "string heap", false));
  for (const ArrayDesc& d : cat.arrays) {
    auto a = std::make_unique<ArrayState>();
    a->desc = d;
    a->levels.reserve(f::kMaxLevels);
    XTFQ_TRY(w->LoadArray(*store, *a));
    w->arrays_.push_back(std::move(a));
  }
  for (auto& a : w->arrays_) {
    if (!a->desc.per_process()) continue;
    AddChild(*w->arrays_[a->desc.parent.value - 1], a.get());
  }
  for (auto& a : w->arrays_) XTFQ_TRY(w->LoadProcessTree(*store, *a));
  w->file_ = store->ReleaseFile();
  // Pages beyond the committed generation are what a crashed writer left; drop them.
  const uint64_t committed = uint64_t{w->page_count_} * w->page_size_;
  if (store->file_size() > committed) XTFQ_TRY(w->file_->Truncate(committed));
  return w;
}

Status StoreWriter::LoadOpenPage(Store& store, Chain& c, std::string_view what, bool index_level) {
  c.count = c.desc.OpenEntries(c.capacity);
  if (c.desc.shadow == kNoPage) return Ok();
  XTFQ_TRY(store.ReadPage(c.desc.shadow, c.page));
  const PageHeader h = PageHeader::Decode(c.page.data());
  const bool edge = index_level && (h.flags & f::kFlagRightEdge) != 0;
  return ExpectHeader(h, ShadowHeader(c, c.desc.shadow, c.count + (edge ? 1 : 0), edge ? f::kFlagRightEdge : 0),
                      fmt::format("{}: page {}: shadow of the open page of the {}", store.name(),
                                  c.desc.shadow.value, what));
}

Status StoreWriter::LoadArray(Store& store, ArrayState& a) {
  for (size_t l = 0; l < a.desc.levels.size(); ++l) {
    const uint32_t width = l == 0 ? a.desc.schema.record_width() : IndexEntry::Width(a.desc.schema);
    Chain c = MakeChain(l == 0 ? PageKind::kData : PageKind::kIndex, a.desc.id, static_cast<uint8_t>(l), width);
    c.desc = a.desc.levels[l];
    XTFQ_TRY(LoadOpenPage(store, c, fmt::format("array '{}' level {}", a.desc.name, l), l > 0));
    a.levels.push_back(std::move(c));
  }
  // The time of the last record, so that appends stay in time order across reopens.
  const Schema& schema = a.desc.schema;
  const Chain& leaf = a.levels[0];
  if (!schema.time_field() || leaf.desc.entries == 0) return Ok();
  if (leaf.count > 0) {
    a.last_time = schema.Time(leaf.page.data() + f::kPageHeaderSize + size_t{leaf.count - 1} * leaf.width);
    return Ok();
  }
  std::vector<std::byte> page(page_size_);
  XTFQ_TRY(store.ReadPage(leaf.desc.last_full, page));
  a.last_time = schema.Time(page.data() + f::kPageHeaderSize + size_t{leaf.capacity - 1} * leaf.width);
  return Ok();
}

Status StoreWriter::LoadProcessTree(Store& store, ArrayState& a) {
  if (a.desc.process_root == kNoPage) return Ok();
  std::vector<std::byte> page(page_size_);
  const Schema& schema = a.desc.schema;
  const uint32_t width = IndexEntry::Width(schema);
  PageId first = a.desc.process_root;
  for (int level = a.desc.process_levels - 1; level >= 0; --level) {
    PageId next_first = kNoPage;
    for (PageId id = first; id != kNoPage;) {
      XTFQ_TRY(store.ReadPage(id, page));
      const PageHeader h = PageHeader::Decode(page.data());
      const auto bad = [&](const std::string& m) {
        return Error(ErrorCode::kCorrupt, fmt::format("{}: page {}: process tree of array '{}' level {}: {}", store.name(),
                                                      id.value, a.desc.name, level, m));
      };
      if (h.kind != PageKind::kProcess || h.level != level || h.array != a.desc.id || h.entry_count == 0 ||
          h.entry_count > PageCapacity(page_size_, width) || a.process_pages.size() >= page_count_) {
        return bad(fmt::format("a {} page of level {} with {} entries", PageKindName(h.kind), h.level, h.entry_count));
      }
      a.process_pages.push_back(id);
      for (uint32_t i = 0; i < h.entry_count; ++i) {
        const IndexEntry e = IndexEntry::DecodeFor(schema, page.data() + f::kPageHeaderSize + size_t{i} * width);
        if (level > 0) {
          if (next_first == kNoPage) next_first = e.child;
          continue;
        }
        ArrayState* child = FindChild(a, e.key);
        if (child == nullptr || child->desc.id != ArrayId(e.child.value)) return bad(fmt::format("entry {} names no per-process array of process {}", i, e.key));
        child->totals = e;
      }
      id = h.next;
    }
    first = next_first;
  }
  return Ok();
}

StoreWriter::ArrayState* StoreWriter::FindChild(const ArrayState& parent, int64_t process) {
  if (process >= 0 && process < ArrayState::kDense) {
    return static_cast<size_t>(process) < parent.dense_children.size() ? parent.dense_children[process] : nullptr;
  }
  auto it = parent.sparse_children.find(process);
  return it == parent.sparse_children.end() ? nullptr : it->second;
}

void StoreWriter::AddChild(ArrayState& parent, ArrayState* child) {
  const int64_t p = child->desc.process;
  if (p >= 0 && p < ArrayState::kDense) {
    if (parent.dense_children.size() <= static_cast<size_t>(p)) parent.dense_children.resize(p + 1, nullptr);
    parent.dense_children[p] = child;
  } else {
    parent.sparse_children[p] = child;
  }
}

Result<StoreWriter::ArrayState*> StoreWriter::ProcessArray(ArrayState& parent, int64_t process) {
  parent.tree_dirty = true;
  if (ArrayState* c = FindChild(parent, process)) return c;
  if (arrays_.size() >= UINT32_MAX - 1) return Error(ErrorCode::kInvalidArgument, "too many arrays");
  ArrayState& a = NewArray(ArrayDesc::ProcessArrayName(parent.desc.name, process), parent.desc.schema);
  a.desc.parent = parent.desc.id;
  a.desc.process = process;
  AddChild(parent, &a);
  return &a;
}

StoreWriter::ArrayState& StoreWriter::NewArray(std::string name, const Schema& schema) {
  auto a = std::make_unique<ArrayState>();
  a->desc.id = ArrayId(static_cast<uint32_t>(arrays_.size() + 1));
  a->desc.name = std::move(name);
  a->desc.schema = schema;
  a->levels.reserve(f::kMaxLevels);
  a->levels.push_back(MakeChain(PageKind::kData, a->desc.id, 0, schema.record_width()));
  a->dirty = true;
  arrays_.push_back(std::move(a));
  return *arrays_.back();
}

Result<ArrayId> StoreWriter::CreateArray(std::string_view name, const Schema& schema) {
  XTFQ_TRY(Failed());
  if (name.empty() || name.size() > f::kMaxNameLength) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("array name '{}' must have 1 to {} bytes", name, f::kMaxNameLength));
  }
  if (FindArray(name) != nullptr) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("array '{}' already exists", name));
  }
  if (schema.record_width() == 0 || schema.record_width() > page_size_ - f::kPageHeaderSize) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("records of {} bytes do not fit a {}-byte page", schema.record_width(), page_size_));
  }
  if (PageCapacity(page_size_, IndexEntry::Width(schema)) < 2) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{} aggregate fields make index entries of {} bytes; two must fit a {}-byte page",
                             schema.aggregates().size(), IndexEntry::Width(schema), page_size_));
  }
  ArrayState& a = NewArray(std::string(name), schema);
  a.desc.process_index = options_.process_index && schema.process_field().has_value();
  return a.desc.id;
}

const ArrayDesc* StoreWriter::FindArray(std::string_view name) const {
  for (const auto& a : arrays_) {
    if (!a->desc.per_process() && a->desc.name == name) return &a->desc;
  }
  return nullptr;
}

Status StoreWriter::Append(ArrayId array, std::span<const std::byte> record) {
  XTFQ_TRY(Failed());
  if (array.value == 0 || array.value > arrays_.size()) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("no array with id {}", array.value));
  }
  ArrayState& a = *arrays_[array.value - 1];
  if (a.desc.per_process()) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("array '{}' is written through its parent", a.desc.name));
  }
  XTFQ_TRY(AppendTo(a, record));
  if (!a.desc.process_index) return Ok();
  // The record is in the parent now: a failure from here on must leave the writer failed.
  Result<ArrayState*> child = ProcessArray(a, a.desc.schema.Process(record.data()));
  if (!child.ok()) return Poison(child.error());
  return Poison(AppendTo(**child, record));
}

Status StoreWriter::AppendTo(ArrayState& a, std::span<const std::byte> record) {
  Chain& c = a.levels[0];
  if (record.size() != c.width) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("record of {} bytes for array '{}' of {}-byte records", record.size(), a.desc.name, c.width));
  }
  if (a.desc.schema.time_field()) {
    const int64_t t = a.desc.schema.Time(record.data());
    if (t < a.last_time) {
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("array '{}' record {}: time {} is before the previous record's {}", a.desc.name,
                               c.desc.entries, t, a.last_time));
    }
    a.last_time = t;
  }
  a.dirty = true;
  if (c.desc.open != kNoPage && c.count + 1 < c.capacity) {  // the common case: no page boundary
    std::memcpy(c.page.data() + f::kPageHeaderSize + size_t{c.count} * c.width, record.data(), c.width);
    ++c.count;
    ++c.desc.entries;
    return Ok();
  }
  return Poison(AppendBytes(c, record));
}

Result<StringRef> StoreWriter::AddString(std::string_view s) {
  XTFQ_TRY(Failed());
  if (s.size() > UINT32_MAX) return Error(ErrorCode::kInvalidArgument, "string longer than 4 GiB");
  XTFQ_TRY(Poison(EnsureOpen(heap_)));
  heap_dirty_ = true;
  const StringRef ref{heap_.desc.open, static_cast<uint16_t>(heap_.count)};
  std::byte len[f::kStringPrefixSize];
  StoreLe<uint32_t>(len, static_cast<uint32_t>(s.size()));
  XTFQ_TRY(Poison(AppendBytes(heap_, len)));
  XTFQ_TRY(Poison(AppendBytes(heap_, std::as_bytes(std::span(s.data(), s.size())))));
  return ref;
}

Status StoreWriter::AppendBytes(Chain& c, std::span<const std::byte> bytes) {
  // Whole entries for arrays; any run of bytes for the heap (width 1).
  while (!bytes.empty()) {
    XTFQ_TRY(EnsureOpen(c));
    const size_t room = size_t{c.capacity - c.count} * c.width;
    const size_t n = std::min(room, bytes.size());
    std::memcpy(c.page.data() + f::kPageHeaderSize + size_t{c.count} * c.width, bytes.data(), n);
    c.count += static_cast<uint32_t>(n / c.width);
    c.desc.entries += n / c.width;
    bytes = bytes.subspan(n);
    if (c.count == c.capacity) XTFQ_TRY(Roll(c));
  }
  return Ok();
}

Status StoreWriter::EnsureOpen(Chain& c) {
  if (c.desc.open != kNoPage) return Ok();
  XTFQ_ASSIGN_OR_RETURN(PageId id, Allocate());
  c.desc.open = c.desc.head = id;
  return Ok();
}

Status StoreWriter::Roll(Chain& c) {
  XTFQ_ASSIGN_OR_RETURN(PageId next, Allocate());
  PageHeader h;
  h.page_id = h.logical = c.desc.open;
  h.kind = c.kind;
  h.level = c.level;
  h.array = c.array;
  h.entry_count = c.count;
  h.prev = c.desc.last_full;
  h.next = next;
  h.Encode(c.page.data());
  SealPage(c.page);
  XTFQ_TRY(QueueWrite(c.desc.open, c.page));
  if (c.desc.shadow != kNoPage) {
    pending_free_.push_back(c.desc.shadow);
    c.desc.shadow = kNoPage;
  }
  // The filled page's entry for the level above (its first key, id and summary), taken while
  // the page is still the open one.
  std::optional<IndexEntry> parent;
  if (c.kind != PageKind::kHeap) parent = SummarizeOpen(*arrays_[c.array.value - 1], c, std::nullopt);
  c.desc.last_full = c.desc.open;
  c.desc.open = next;
  c.count = 0;
  std::fill(c.page.begin() + f::kPageHeaderSize, c.page.end(), std::byte{0});
  if (!parent) return Ok();
  return AddParentEntry(*arrays_[c.array.value - 1], c.level, *parent);
}

IndexEntry StoreWriter::SummarizeOpen(const ArrayState& a, const Chain& c, const std::optional<IndexEntry>& edge) const {
  // Summarizes the c.count entries of the open page and the right-edge entry from the level
  // below, if any; the entry's child is the open page.
  const uint32_t n = c.count;
  const Schema& schema = a.desc.schema;
  IndexEntry e;
  e.summary = Summary(schema);
  e.child = c.desc.open;
  const std::byte* base = c.page.data() + f::kPageHeaderSize;
  if (c.level == 0 && n > 0) {
    e.key = schema.time_field() ? schema.Time(base) : static_cast<int64_t>(c.desc.entries - c.count);
    e.summary.AddRange(schema, base, n);
  }
  for (uint32_t i = 0; c.level > 0 && i < n; ++i) {
    const std::byte* p = base + size_t{i} * c.width;
    if (i == 0) e.key = LoadLe<int64_t>(p + f::kIeKey);
    e.summary.MergeEncoded(LoadLe<uint64_t>(p + f::kIeCount), p + f::kIndexEntryFixedSize);
  }
  if (edge) {
    if (n == 0) e.key = edge->key;
    e.summary.Merge(edge->summary);
  }
  return e;
}

Status StoreWriter::AddParentEntry(ArrayState& a, uint8_t level, const IndexEntry& entry) {
  if (static_cast<size_t>(level) + 1 == a.levels.size()) {
    if (a.levels.size() == f::kMaxLevels) {
      return Error(ErrorCode::kInvalidArgument, fmt::format("array '{}' needs more than {} levels", a.desc.name, f::kMaxLevels));
    }
    a.levels.push_back(MakeChain(PageKind::kIndex, a.desc.id, static_cast<uint8_t>(level + 1), IndexEntry::Width(a.desc.schema)));
  }
  std::vector<std::byte> bytes(IndexEntry::Width(a.desc.schema));
  entry.Encode(bytes.data());
  return AppendBytes(a.levels[level + 1], bytes);
}

PageHeader StoreWriter::ShadowHeader(const Chain& c, PageId at, uint32_t entries, uint8_t extra_flags) {
  PageHeader h;
  h.page_id = at;
  h.logical = c.desc.open;
  h.kind = c.kind;
  h.level = c.level;
  h.flags = f::kFlagShadow | extra_flags;
  h.array = c.array;
  h.entry_count = entries;
  h.prev = c.desc.last_full;
  return h;
}

Status StoreWriter::CommitHeap() {
  if (!heap_dirty_) return Ok();
  heap_dirty_ = false;
  if (heap_.count == 0) {  // the open page is empty; Roll already released its shadow
    if (heap_.desc.shadow != kNoPage) pending_free_.push_back(heap_.desc.shadow);
    heap_.desc.shadow = kNoPage;
    return Ok();
  }
  return WriteShadowImage(heap_, heap_.count, 0);
}

Status StoreWriter::WriteShadowImage(Chain& c, uint32_t entries, uint8_t extra_flags) {
  XTFQ_ASSIGN_OR_RETURN(PageId s, Allocate());
  ShadowHeader(c, s, entries, extra_flags).Encode(c.page.data());
  SealPage(c.page);
  XTFQ_TRY(QueueWrite(s, c.page));
  if (c.desc.shadow != kNoPage) pending_free_.push_back(c.desc.shadow);
  c.desc.shadow = s;
  return Ok();
}

Status StoreWriter::CommitArray(ArrayState& a) {
  if (!a.dirty) return Ok();
  a.dirty = false;
  // Bottom-up: each open page's summary becomes the right-edge entry of the level above.
  std::optional<IndexEntry> edge;
  for (size_t l = 0; l < a.levels.size(); ++l) {
    Chain& c = a.levels[l];
    const bool has_edge = l > 0 && edge.has_value();
    const uint32_t total = c.count + (has_edge ? 1 : 0);
    std::optional<IndexEntry> next;
    // A per-process array also summarizes its root: its totals for the process tree.
    if (total > 0 && (l + 1 < a.levels.size() || a.desc.per_process())) next = SummarizeOpen(a, c, has_edge ? edge : std::nullopt);
    if (total == 0) {
      if (c.desc.shadow != kNoPage) pending_free_.push_back(c.desc.shadow);
      c.desc.shadow = kNoPage;
    } else {
      if (has_edge) edge->Encode(c.page.data() + f::kPageHeaderSize + size_t{c.count} * c.width);
      XTFQ_TRY(WriteShadowImage(c, total, has_edge ? f::kFlagRightEdge : 0));
    }
    edge = std::move(next);
  }
  if (a.desc.per_process() && edge) a.totals = std::move(*edge);
  return Ok();
}

Status StoreWriter::BuildProcessTree(ArrayState& a) {
  a.tree_dirty = false;
  pending_free_.insert(pending_free_.end(), a.process_pages.begin(), a.process_pages.end());
  a.process_pages.clear();
  const Schema& schema = a.desc.schema;
  // Level 0: one entry per process, in process order.
  std::vector<IndexEntry> entries;
  auto add = [&](const ArrayState* c) {
    IndexEntry e = c->totals;
    e.key = c->desc.process;
    e.child = PageId(c->desc.id.value);
    entries.push_back(std::move(e));
  };
  for (auto& [process, c] : a.sparse_children) {
    if (process < 0) add(c);
  }
  std::sort(entries.begin(), entries.end(), [](const IndexEntry& x, const IndexEntry& y) { return x.key < y.key; });
  for (const ArrayState* c : a.dense_children) {
    if (c != nullptr) add(c);
  }
  const size_t dense_end = entries.size();
  for (auto& [process, c] : a.sparse_children) {
    if (process >= 0) add(c);
  }
  std::sort(entries.begin() + static_cast<ptrdiff_t>(dense_end), entries.end(),
            [](const IndexEntry& x, const IndexEntry& y) { return x.key < y.key; });
  a.desc.process_root = kNoPage;
  a.desc.process_levels = 0;
  if (entries.empty()) return Ok();
  const uint32_t width = IndexEntry::Width(schema);
  const uint32_t cap = PageCapacity(page_size_, width);
  std::vector<std::byte> page(page_size_);
  for (uint8_t level = 0;; ++level) {
    const size_t npages = (entries.size() + cap - 1) / cap;
    std::vector<PageId> ids;
    for (size_t i = 0; i < npages; ++i) {
      XTFQ_ASSIGN_OR_RETURN(PageId id, Allocate());
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
      h.array = a.desc.id;
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
      SealPage(page);
      XTFQ_TRY(QueueWrite(ids[i], page));
      a.process_pages.push_back(ids[i]);
      above.push_back(std::move(up));
    }
    if (npages == 1) {
      a.desc.process_root = ids[0];
      a.desc.process_levels = static_cast<uint16_t>(level + 1);
      return Ok();
    }
    if (level + 1 == f::kMaxLevels) {
      return Error(ErrorCode::kInvalidArgument, fmt::format("array '{}': the process tree needs more than {} levels", a.desc.name, f::kMaxLevels));
    }
    entries = std::move(above);
  }
}

Result<PageId> StoreWriter::Allocate() {
  if (!free_.empty()) {
    PageId id = free_.back();
    free_.pop_back();
    return id;
  }
  if (page_count_ == f::kMaxPages) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("{}: the store has reached {} pages", name(), f::kMaxPages));
  }
  return PageId(page_count_++);
}

Status StoreWriter::QueueWrite(PageId id, std::span<const std::byte> page) {
  if (batch_ids_.size() == options_.write_batch_pages) XTFQ_TRY(Flush());
  std::memcpy(batch_.data() + batch_ids_.size() * page_size_, page.data(), page_size_);
  batch_ids_.emplace_back(id.value, static_cast<uint32_t>(batch_ids_.size()));
  return Ok();
}

Status StoreWriter::Flush() {
  // Pages fill in one order and were reserved in another (per-process arrays interleave), so the
  // batch is written sorted by id, one write per run of consecutive ids.
  std::sort(batch_ids_.begin(), batch_ids_.end());
  Status s = Ok();
  for (size_t i = 0; i < batch_ids_.size() && s.ok();) {
    size_t j = i + 1;
    while (j < batch_ids_.size() && batch_ids_[j].first == batch_ids_[j - 1].first + 1) ++j;
    const size_t n = j - i;
    if (run_.size() < n * page_size_) run_.resize(n * page_size_);
    for (size_t k = i; k < j; ++k) {
      std::memcpy(run_.data() + (k - i) * page_size_, batch_.data() + size_t{batch_ids_[k].second} * page_size_, page_size_);
    }
    s = file_->WriteAt(uint64_t{batch_ids_[i].first} * page_size_, std::span(run_).first(n * page_size_));
    i = j;
  }
  batch_ids_.clear();
  return s;
}

Catalogue StoreWriter::Pending() const {
  Catalogue cat;
  for (const auto& a : arrays_) {
    ArrayDesc d = a->desc;
    d.levels.clear();
    for (const Chain& c : a->levels) d.levels.push_back(c.desc);
    cat.arrays.push_back(std::move(d));
  }
  cat.heap = heap_.desc;
  return cat;
}

Status StoreWriter::Commit() {
  XTFQ_TRY(Failed());
  return Poison(DoCommit());
}

Status StoreWriter::DoCommit() {
  XTFQ_TRY(CommitHeap());
  for (auto& a : arrays_) XTFQ_TRY(CommitArray(*a));
  for (auto& a : arrays_) {
    if (a->tree_dirty) XTFQ_TRY(BuildProcessTree(*a));
  }

  // The new catalogue goes to fresh pages; the committed one is freed by this commit.
  pending_free_.insert(pending_free_.end(), catalogue_pages_.begin(), catalogue_pages_.end());
  Catalogue cat = Pending();
  const uint32_t cap = page_size_ - f::kPageHeaderSize;
  auto all_free = [&] {
    std::vector<PageId> v(free_.rbegin(), free_.rend());
    v.insert(v.end(), pending_free_.begin(), pending_free_.end());
    return v;
  };
  cat.free_pages = all_free();
  // Taking pages off the free list only shortens the catalogue, so this many pages suffice.
  const size_t npages = std::max<size_t>(1, (cat.EncodedSize() + cap - 1) / cap);
  std::vector<PageId> pages;
  for (size_t i = 0; i < npages; ++i) {
    XTFQ_ASSIGN_OR_RETURN(PageId id, Allocate());
    pages.push_back(id);
  }
  cat.free_pages = all_free();
  const std::vector<std::byte> bytes = cat.Encode();
  std::vector<std::byte> page(page_size_);
  size_t done = 0;
  for (size_t i = 0; i < pages.size(); ++i) {
    const auto n = static_cast<uint32_t>(std::min<size_t>(cap, bytes.size() - done));
    std::fill(page.begin(), page.end(), std::byte{0});
    PageHeader h;
    h.page_id = h.logical = pages[i];
    h.kind = PageKind::kCatalogue;
    h.entry_count = n;
    h.prev = i > 0 ? pages[i - 1] : kNoPage;
    h.next = i + 1 < pages.size() ? pages[i + 1] : kNoPage;
    h.Encode(page.data());
    std::memcpy(page.data() + f::kPageHeaderSize, bytes.data() + done, n);
    done += n;
    SealPage(page);
    XTFQ_TRY(QueueWrite(pages[i], page));
  }
  XTFQ_TRY(Flush());

  // Reserved open pages may lie beyond the last page written: the file must cover them.
  const uint64_t need = uint64_t{page_count_} * page_size_;
  XTFQ_ASSIGN_OR_RETURN(uint64_t size, file_->Size());
  if (size < need) XTFQ_TRY(file_->Truncate(need));
  XTFQ_TRY(file_->Sync());

  Superblock sb;
  sb.page_size = page_size_;
  sb.generation = generation_ + 1;
  sb.page_count = page_count_;
  sb.catalogue_head = pages.front();
  sb.catalogue_pages = static_cast<uint32_t>(pages.size());
  sb.catalogue_bytes = static_cast<uint32_t>(bytes.size());
  sb.commit_time_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  const auto sbytes = sb.Encode();
  XTFQ_TRY(file_->WriteAt(uint64_t{Superblock::Slot(sb.generation)} * page_size_, sbytes));
  XTFQ_TRY(file_->Sync());

  generation_ = sb.generation;
  catalogue_pages_ = std::move(pages);
  for (size_t i = 0; i < arrays_.size(); ++i) arrays_[i]->desc.levels = cat.arrays[i].levels;
  free_.insert(free_.end(), pending_free_.begin(), pending_free_.end());
  pending_free_.clear();
  std::sort(free_.begin(), free_.end(), std::greater<>());
  return Ok();
}

Status StoreWriter::Failed() const {
  if (!failed_) return Ok();
  return Error(ErrorCode::kFailed,
               fmt::format("{}: the writer failed earlier ({}); the store is at generation {}; reopen it",
                           name(), failed_->message(), generation_));
}

Status StoreWriter::Poison(Status s) {
  if (!s.ok() && !failed_) failed_ = s.error();
  return s;
}

Status StoreWriter::CheckInvariants() const {
  auto bad = [&](const std::string& m) { return Error(ErrorCode::kCorrupt, fmt::format("{}: writer invariant: {}", name(), m)); };
  std::unordered_set<uint32_t> seen;
  auto claim = [&](PageId id, std::string_view what) -> Status {
    if (id == kNoPage) return Ok();
    if (id.value < f::kFirstDataPage || id.value >= page_count_) return bad(fmt::format("{} page {} out of range", what, id.value));
    if (!seen.insert(id.value).second) return bad(fmt::format("{} page {} is claimed twice", what, id.value));
    return Ok();
  };
  for (PageId id : free_) XTFQ_TRY(claim(id, "free"));
  for (PageId id : pending_free_) XTFQ_TRY(claim(id, "pending free"));
  for (PageId id : catalogue_pages_) XTFQ_TRY(claim(id, "catalogue"));
  auto chain = [&](const Chain& c, std::string_view what) -> Status {
    if (c.desc.entries % c.capacity != c.count) return bad(fmt::format("{}: {} entries but {} buffered", what, c.desc.entries, c.count));
    if ((c.desc.entries == 0) != (c.desc.open == kNoPage)) return bad(fmt::format("{}: open page and entries disagree", what));
    XTFQ_TRY(claim(c.desc.open, what));
    return claim(c.desc.shadow, what);
  };
  XTFQ_TRY(chain(heap_, "heap"));
  for (const auto& a : arrays_) {
    for (PageId id : a->process_pages) XTFQ_TRY(claim(id, fmt::format("{} process tree", a->desc.name)));
    for (size_t l = 0; l < a->levels.size(); ++l) {
      XTFQ_TRY(chain(a->levels[l], fmt::format("{} level {}", a->desc.name, l)));
      if (l > 0 && a->levels[l].desc.entries != a->levels[l - 1].desc.FullPages(a->levels[l - 1].capacity)) {
        return bad(fmt::format("{} level {}: one entry per full page below is broken", a->desc.name, l));
      }
    }
  }
  return Ok();
}

}  // namespace xtfq
