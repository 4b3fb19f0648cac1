#include "store/store_writer.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "store/catalogue_frame.h"
#include "store/endian.h"
#include "store/posix_file.h"
#include "store/store.h"
#include "store/stored_page.h"
#include "store/superblock.h"

namespace xtfq {

namespace f = format;

StoreWriter::StoreWriter(std::string file_name, StoreOptions options, uint32_t page_size)
    : options_(options),
      page_size_(page_size),
      pages_(file_name, f::kFirstDataPage, {}, 0),
      writes_(page_size, options.BatchPages(page_size)),
      chain_ids_(file_name, 1),
      pack_(page_size, options.codec.value_or(Codec::kLz4), options.BatchPages(page_size)),
      map_(page_size, f::kFirstDataPage, {}),
      shadows_(page_size, options.codec.value_or(Codec::kLz4), options.BatchPages(page_size)),
      seals_(pack_, pages_, map_, page_size, options.seal_thread),
      space_{pages_, writes_, chain_ids_, pack_, map_, shadows_, seals_},
      catalogue_(page_size, {}),
      heap_(PageKind::kHeap, ArrayId(0), 0, 1, page_size) {}

void StoreWriter::Attach(std::unique_ptr<File> file) {
  file_ = std::move(file);
  writes_.Attach(*file_);
  pages_.Attach(*file_);
  pack_.Attach(*file_);
  map_.Attach(*file_);
  shadows_.Attach(*file_);
}

StoreWriter::~StoreWriter() {
  if (file_ == nullptr) return;
  // Full pages written since the last commit lie past it, unreferenced: drop them now rather than
  // at the next writer's open (a failed writer, after ENOSPC, gives the space back). Best effort:
  // the next writer truncates again.
  const uint64_t committed = uint64_t{keep_pages_} * page_size_;
  auto size = file_->Size();
  if (size.ok() && *size > committed && keep_pages_ > f::kFirstDataPage) (void)file_->Truncate(committed);
}

Result<std::unique_ptr<StoreWriter>> StoreWriter::Create(std::unique_ptr<File> file, StoreOptions options) {
  if (!ValidPageSize(options.page_size)) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("page size {} is not a power of two from {} to {}",
                                                          options.page_size, f::kMinPageSize, f::kMaxPageSize));
  }
  XTFQ_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  if (size != 0) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: exists and is not empty ({} bytes); refusing to overwrite it", file->name(), size));
  }
  std::unique_ptr<StoreWriter> w(new StoreWriter(file->name(), options, options.page_size));
  w->Attach(std::move(file));
  XTFQ_TRY(w->Commit());
  XTFQ_TRY(w->Commit());
  return w;
}

Result<std::unique_ptr<StoreWriter>> StoreWriter::CreatePath(const std::string& path, StoreOptions options) {
  // Made aside and named once its first generations are durable: a creation killed half way
  // leaves nothing at `path` (docs/format.md, "Creating a store").
  XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(path, PosixFile::Mode::kCreateAside));
  PosixFile& posix = *file;
  XTFQ_ASSIGN_OR_RETURN(auto w, Create(std::move(file), options));
  XTFQ_TRY(posix.Publish());
  return w;
}

namespace {
// Whether `file` is what an interrupted creation left before its first superblock was durable:
// empty, or at most pages 0 to 2 at some page size with no store magic in either slot and page 2
// a valid catalogue page of a catalogue without arrays, framed or not (all that the first commit
// writes).
bool NeverCommitted(File& file) {
  auto size = file.Size();
  if (!size.ok()) return false;
  if (*size == 0) return true;
  if (LooksLikeStore(file)) return false;
  for (uint32_t p = f::kMinPageSize; p <= f::kMaxPageSize; p *= 2) {
    if (*size != uint64_t{p} * (f::kFirstDataPage + 1)) continue;
    std::vector<std::byte> page(p);
    if (!ReadExact(file, uint64_t{p} * f::kFirstDataPage, page).ok()) return false;
    const PageHeader h = PageHeader::Decode(page.data());
    if (!VerifyPage(page, PageId(f::kFirstDataPage), file.name()).ok() || h.kind != PageKind::kCatalogue ||
        h.entry_count > p - f::kPageHeaderSize) {
      return false;
    }
    // The catalogue framed (format 6) or not (format 5).
    const auto held = std::span<const std::byte>(page).subspan(f::kPageHeaderSize, h.entry_count);
    auto stream = CatalogueFrame::Unframe(held, file.name());
    const std::vector<std::byte> bytes =
        stream.ok() ? std::move(*stream) : std::vector<std::byte>(held.begin(), held.end());
    return bytes.size() >= f::kCatalogueHeaderSize && LoadLe<uint32_t>(bytes.data() + f::kCatArrayCount) == 0;
  }
  return false;
}

// Whether `path` still names the file open as `fd`.
bool SameFile(int fd, const std::string& path) {
  struct stat a {
  }, b{};
  return ::fstat(fd, &a) == 0 && ::lstat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
}  // namespace

Result<StoreWriter::Opened> StoreWriter::OpenOrCreatePath(const std::string& path, StoreOptions options) {
  Opened out;
  auto existing = PosixFile::Open(path, PosixFile::Mode::kWrite);
  if (!existing.ok() && existing.error().code() != ErrorCode::kNotFound) return std::move(existing).error();
  if (existing.ok()) {
    if (!NeverCommitted(**existing)) {
      XTFQ_ASSIGN_OR_RETURN(out.writer, Open(std::move(*existing), options));
      return out;
    }
    // Still holding the writer's lock on the old file, so no other writer is inside it.
    if (!SameFile((*existing)->fd(), path) || ::unlink(path.c_str()) != 0) {
      return Error(ErrorCode::kIo,
                   fmt::format("{}: never committed (an interrupted creation), and cannot be removed: {}", path,
                               std::strerror(errno)));
    }
    out.note = fmt::format("{}: was never committed (what an interrupted creation leaves); created anew", path);
  }
  XTFQ_ASSIGN_OR_RETURN(out.writer, CreatePath(path, options));
  out.created = true;
  return out;
}

Result<std::unique_ptr<StoreWriter>> StoreWriter::OpenPath(const std::string& path, StoreOptions options) {
  XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(path, PosixFile::Mode::kWrite));
  return Open(std::move(file), options);
}

Result<std::unique_ptr<StoreWriter>> StoreWriter::Open(std::unique_ptr<File> file, StoreOptions options) {
  XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open(std::move(file)));
  const Superblock& sb = store->superblock();
  if (std::optional<std::string> lost = store->Rollback(); lost && !options.allow_rollback) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}; the store reads as generation {}: {}. Writing would make the loss permanent (it "
                             "reuses pages that generation may hold); `xtfq check` says more. Copy the file aside to "
                             "keep what is left, or pass --allow-rollback to write on from generation {}",
                             store->other_superblock()->message(), sb.generation, *lost, sb.generation));
  }
  const Catalogue& cat = store->catalogue();
  // The writer's file is the store's; the store object is only used for reading until the end.
  std::unique_ptr<StoreWriter> w(new StoreWriter(store->name(), options, sb.page_size));
  w->generation_ = sb.generation;
  w->pages_ = PageAllocator(store->name(), sb.page_count, cat.free_pages, sb.generation);
  w->keep_pages_ = sb.page_count;
  w->catalogue_ = CatalogueWriter(sb.page_size, store->catalogue_pages());
  w->chain_ids_ = ChainIdAllocator(store->name(), cat.chain_ids);
  w->map_ = PageMapWriter(sb.page_size, sb.page_count, cat.map_leaves);
  const Codec codec = options.codec.value_or(static_cast<Codec>(sb.codec));
  w->pack_ = PackWriter(sb.page_size, codec, options.BatchPages(sb.page_size));
  w->shadows_ = ShadowPack(sb.page_size, codec, options.BatchPages(sb.page_size));
  XTFQ_TRY(w->heap_.Load(*store, cat.heap, "string heap", false));
  w->committed_heap_ = cat.heap;
  for (const ArrayDesc& d : cat.arrays) {
    auto a = std::make_unique<ArrayState>(d, sb.page_size);
    if (d.process_index) a->index = std::make_unique<ProcessIndexBuilder>(sb.page_size, a->tree);
    XTFQ_TRY(a->tree.Load(*store));
    w->arrays_.push_back(std::move(a));
  }
  for (auto& a : w->arrays_) {
    if (!a->desc.per_process()) continue;
    ArrayState& parent = *w->arrays_[a->desc.parent.value - 1];
    if (parent.index == nullptr) {  // the catalogue's validation rules this out
      return Error(ErrorCode::kCorrupt,
                   fmt::format("{}: array '{}' has a parent without a process index", store->name(), a->desc.name));
    }
    parent.index->Add(a->tree);
  }
  for (auto& a : w->arrays_) {
    if (a->index != nullptr) XTFQ_TRY(a->index->Load(*store, a->desc));
  }
  // The shadow pack's live slots: those of the committed shadows and process-tree pages, until
  // they are replaced (in id order, so that each page-map leaf is read once).
  std::vector<PageId> rewritten;
  if (cat.heap.shadow != kNoPage) rewritten.push_back(cat.heap.shadow);
  for (const auto& a : w->arrays_) {
    for (const ChainDesc& c : a->desc.levels) {
      if (c.shadow != kNoPage) rewritten.push_back(c.shadow);
    }
    if (a->index != nullptr) rewritten.insert(rewritten.end(), a->index->pages().begin(), a->index->pages().end());
  }
  std::sort(rewritten.begin(), rewritten.end());
  for (PageId id : rewritten) {
    XTFQ_ASSIGN_OR_RETURN(Location loc, store->page_map().FindStored(id));
    w->shadows_.Adopt(loc);
  }
  w->Attach(store->ReleaseFile());
  // Pages beyond the committed generation are what a crashed writer left; drop them.
  const uint64_t committed = uint64_t{sb.page_count} * w->page_size_;
  if (store->file_size() > committed) XTFQ_TRY(w->file_->Truncate(committed));
  return w;
}

Result<TnTreeBuilder*> StoreWriter::ProcessArray(ArrayState& parent, int64_t process) {
  ProcessIndexBuilder& index = *parent.index;
  index.MarkChanged();
  if (TnTreeBuilder* c = index.Find(process)) return c;
  if (arrays_.size() >= UINT32_MAX - 1) return Error(ErrorCode::kInvalidArgument, "too many arrays");
  ArrayState& a = NewArray(ArrayDesc::ProcessArrayName(parent.desc.name, process), parent.desc.schema);
  a.desc.parent = parent.desc.id;
  a.desc.process = process;
  index.Add(a.tree);
  return &a.tree;
}

StoreWriter::ArrayState& StoreWriter::NewArray(std::string name, const Schema& schema) {
  ArrayDesc d;
  d.id = ArrayId(static_cast<uint32_t>(arrays_.size() + 1));
  d.name = std::move(name);
  d.schema = schema;
  arrays_.push_back(std::make_unique<ArrayState>(std::move(d), page_size_));
  return *arrays_.back();
}

Result<ArrayId> StoreWriter::CreateArray(std::string_view name, const Schema& schema) {
  XTFQ_TRY(Failed());
  if (name.empty() || name.size() > f::kMaxNameLength) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("array name '{}' must have 1 to {} bytes", name, f::kMaxNameLength));
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
  if (a.desc.process_index) a.index = std::make_unique<ProcessIndexBuilder>(page_size_, a.tree);
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
  XTFQ_TRY(a.tree.Admit(record));
  if (a.index == nullptr) return Poison(a.tree.Put(record, space_));
  // From here on a failure must leave the writer failed.
  const int64_t p = a.desc.schema.Process(record.data());
  if (a.tree.levels()[0].desc().entries == 0) {  // the first record: the array is of its process alone
    a.desc.sole_process = true;
    a.desc.process = p;
  }
  if (a.desc.sole_process) {
    a.index->MarkChanged();
    if (p == a.desc.process) return Poison(a.tree.Put(record, space_));
    XTFQ_TRY(Poison(EndSoleProcess(a)));
  }
  XTFQ_TRY(Poison(a.tree.Put(record, space_)));
  Result<TnTreeBuilder*> child = ProcessArray(a, p);
  if (!child.ok()) return Poison(child.error());
  return Poison(AppendTo(**child, record));
}

Status StoreWriter::EndSoleProcess(ArrayState& a) {
  const int64_t p = a.desc.process;
  a.desc.sole_process = false;
  a.desc.process = 0;
  XTFQ_ASSIGN_OR_RETURN(TnTreeBuilder * copy, ProcessArray(a, p));
  // Every record so far is of process p: the full pages are read back from the pack (the seal
  // queue places them all first), then the open page's records are copied.
  const OpenChain& leaf = a.tree.levels()[0];
  const uint32_t capacity = leaf.capacity(), width = leaf.width();
  const uint64_t full = leaf.desc().FullPages(capacity);
  if (full > 0) XTFQ_TRY(seals_.Drain());
  std::vector<std::byte> page(page_size_), stored;
  PageId id = leaf.desc().head;
  for (uint64_t i = 0; i < full; ++i) {
    XTFQ_ASSIGN_OR_RETURN(Location loc, map_.Get(id));
    XTFQ_TRY(pack_.Read(loc, stored));
    XTFQ_TRY(DecodeStored(stored, id, loc, page, name()));
    const PageHeader h = PageHeader::Decode(page.data());
    if (h.kind != PageKind::kData || h.array != a.desc.id || h.entry_count != capacity) {
      return Error(ErrorCode::kCorrupt,
                   fmt::format("{}: page {} of array '{}': a {} page of array {} with {} records, read back to copy "
                               "its records of process {}",
                               name(), id.value, a.desc.name, PageKindName(h.kind), h.array.value, h.entry_count, p));
    }
    for (uint32_t k = 0; k < capacity; ++k) {
      XTFQ_TRY(AppendTo(*copy, std::span(page).subspan(f::kPageHeaderSize + size_t{k} * width, width)));
    }
    id = h.next;
  }
  for (uint32_t k = 0; k < leaf.count(); ++k) {
    XTFQ_TRY(AppendTo(*copy, std::span(leaf.entries() + size_t{k} * width, width)));
  }
  return Ok();
}

Result<StringRef> StoreWriter::AddString(std::string_view s) {
  XTFQ_TRY(Failed());
  if (s.size() > UINT32_MAX) return Error(ErrorCode::kInvalidArgument, "string longer than 4 GiB");
  XTFQ_TRY(Poison(heap_.Reserve(space_)));
  heap_dirty_ = true;
  const StringRef ref{heap_.desc().open, static_cast<uint16_t>(heap_.count())};
  std::byte len[f::kStringPrefixSize];
  StoreLe<uint32_t>(len, static_cast<uint32_t>(s.size()));
  XTFQ_TRY(Poison(heap_.Append(len, space_)));
  XTFQ_TRY(Poison(heap_.Append(std::as_bytes(std::span(s.data(), s.size())), space_)));
  return ref;
}

Status StoreWriter::CommitHeap() {
  if (!heap_dirty_) return Ok();
  heap_dirty_ = false;
  return heap_.CommitShadow(std::nullopt, space_);
}

Catalogue StoreWriter::Pending() const {
  Catalogue cat;
  for (const auto& a : arrays_) {
    ArrayDesc d = a->desc;
    d.levels.clear();
    for (const OpenChain& c : a->tree.levels()) d.levels.push_back(c.desc());
    cat.arrays.push_back(std::move(d));
  }
  cat.heap = heap_.desc();
  cat.chain_ids = chain_ids_.next();
  cat.map_leaves = map_.directory();
  return cat;
}

Status StoreWriter::Commit() {
  XTFQ_TRY(Failed());
  return Poison(DoCommit());
}

Status StoreWriter::DoCommit() {
  // Every full page sealed so far is stored, and its entry is in the level above.
  for (auto& a : arrays_) XTFQ_TRY(a->tree.CompletePending(space_));
  XTFQ_TRY(seals_.Drain());
  XTFQ_TRY(pack_.Close());
  XTFQ_TRY(CommitHeap());
  for (auto& a : arrays_) XTFQ_TRY(a->tree.Commit(space_));
  for (auto& a : arrays_) {
    if (a->index != nullptr && a->index->changed()) XTFQ_TRY(a->index->Build(a->desc, space_));
  }
  // The shadows are all stored by now: the shadow pack's last slot is padded and written, and the
  // map's changed leaves go to fresh slots before the catalogue names them.
  XTFQ_TRY(shadows_.Close());
  XTFQ_TRY(map_.Commit(pages_, writes_));
  Catalogue cat = Pending();
  if (Status s = catalogue_.Commit(cat, generation_ + 1, pack_.codec(), pages_, writes_, *file_); !s.ok()) {
    // The superblock may have reached the disk: its generation may use every page so far.
    keep_pages_ = pages_.page_count();
    return s;
  }
  ++generation_;
  keep_pages_ = pages_.page_count();
  committed_heap_ = cat.heap;
  for (size_t i = 0; i < arrays_.size(); ++i) arrays_[i]->desc.levels = std::move(cat.arrays[i].levels);
  pages_.EndCommit(generation_);
  return Ok();
}

Status StoreWriter::Failed() const {
  if (!failed_) return Ok();
  return Error(ErrorCode::kFailed,
               fmt::format("{}: the writer failed earlier ({}); the store is at generation {}; reopen it", name(),
                           failed_->message(), generation_));
}

Status StoreWriter::CheckInvariants() const {
  XTFQ_TRY(Failed());  // W8: a failed writer's memory may be half through an operation
  WriterAudit audit(name(), pages_.page_count());
  XTFQ_TRY(pages_.Claim(audit, generation_));
  XTFQ_TRY(catalogue_.Claim(audit));
  XTFQ_TRY(pack_.CheckInvariants(audit));
  XTFQ_TRY(shadows_.CheckInvariants(audit));
  XTFQ_TRY(map_.CheckInvariants(audit));
  XTFQ_TRY(heap_.CheckInvariants(audit, chain_ids_.next(), "heap"));
  if (!heap_dirty_ && !(heap_.desc() == committed_heap_)) {
    return audit.Violation("W4",
                           "heap: nothing added since the last commit, yet its chain differs from the committed one");
  }
  for (const auto& a : arrays_) {
    XTFQ_TRY(a->tree.CheckInvariants(audit, chain_ids_.next()));
    if (a->index != nullptr)
      XTFQ_TRY(a->index->CheckInvariants(a->desc, a->tree.levels()[0].desc().entries, chain_ids_.next(), audit));
    if (a->desc.per_process()) {
      const ArrayState& parent = *arrays_[a->desc.parent.value - 1];
      if (parent.index == nullptr || parent.index->Find(a->desc.process) != &a->tree) {
        return audit.Violation("W7", fmt::format("array '{}' is not registered with its parent", a->desc.name));
      }
    }
  }
  // W2: a shadow of the last commit that its chain has replaced is dropped from the map (its slots
  // are released once no live shadow overlaps them, which the shadow pack's claims check).
  auto replaced = [&](PageId committed, const ChainDesc& now, std::string_view what) -> Status {
    if (committed == kNoPage || committed == now.shadow) return Ok();
    XTFQ_ASSIGN_OR_RETURN(Location loc, map_.Peek(committed));
    if (!loc.stored()) return Ok();
    return audit.Violation("W2", fmt::format("{}: shadow {} of the last commit was replaced but is still in the page "
                                             "map (offset {})",
                                             what, committed.value, loc.offset));
  };
  XTFQ_TRY(replaced(committed_heap_.shadow, heap_.desc(), "heap"));
  for (const auto& a : arrays_) {
    const auto levels = a->tree.levels();
    for (size_t l = 0; l < a->desc.levels.size() && l < levels.size(); ++l) {
      XTFQ_TRY(
          replaced(a->desc.levels[l].shadow, levels[l].desc(), fmt::format("array '{}' level {}", a->desc.name, l)));
    }
  }
  return Ok();
}

}  // namespace xtfq
