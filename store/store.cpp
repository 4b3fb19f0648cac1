#include "store/store.h"

#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "store/catalogue_frame.h"
#include "store/format.h"
#include "store/mmap_page_source.h"
#include "store/posix_file.h"
#include "store/pread_page_source.h"
#include "store/stored_page.h"

namespace xtfq {

namespace f = format;

Result<std::unique_ptr<Store>> Store::OpenPath(const std::string& path) {
  XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<PosixFile> file, PosixFile::Open(path, PosixFile::Mode::kRead));
  return Open(std::move(file));
}

Store::~Store() {
  if (file_ != nullptr && leased_) file_->ReleaseGeneration(sb_.generation);
}

std::unique_ptr<File> Store::ReleaseFile() {
  if (file_ != nullptr && leased_) file_->ReleaseGeneration(sb_.generation);
  leased_ = false;
  return std::move(file_);
}

Status Store::LeaseNewest() {
  // The writer reuses a page freed by generation h only after h is committed and only when no
  // lease below h is held at that moment. A lease on g taken while g is still the newest
  // generation is therefore seen by every such check that could touch g's pages: read, lease,
  // read again, and keep the lease only if g is still the newest.
  auto take = [this](SuperblockChoice& choice, bool leased) {
    sb_ = choice.sb;
    slot_ = choice.slot;
    other_ = std::move(choice.other);
    other_generation_ = choice.other_generation;
    leased_ = leased;
  };
  constexpr int kAttempts = 1000;
  int damaged_reads = 0;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    XTFQ_ASSIGN_OR_RETURN(SuperblockChoice choice, ReadNewestSuperblock(*file_));
    const Status held = file_->HoldGeneration(choice.sb.generation);
    if (!held.ok() && held.error().code() == ErrorCode::kUnsupported) {
      take(choice, false);  // no locks here: read without a lease (docs/format.md)
      return Ok();
    }
    XTFQ_TRY(held);
    auto again = ReadNewestSuperblock(*file_);
    if (!again.ok()) {
      file_->ReleaseGeneration(choice.sb.generation);
      return std::move(again).error();
    }
    if (again->sb.generation == choice.sb.generation) {
      // An invalid other slot may be a superblock write read half done: read again, briefly,
      // before reporting damage.
      if (!again->other || ++damaged_reads > 3) {
        take(*again, true);
        return Ok();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    file_->ReleaseGeneration(choice.sb.generation);
  }
  return Error(ErrorCode::kBusy, fmt::format("{}: a writer committed during each of {} attempts to open a generation",
                                             name(), kAttempts));
}

Result<std::unique_ptr<Store>> Store::Open(std::unique_ptr<File> file) {
  std::unique_ptr<Store> s(new Store(std::move(file)));
  XTFQ_TRY(s->LeaseNewest());
  XTFQ_ASSIGN_OR_RETURN(s->file_size_, s->file_->Size());
  const uint64_t need = uint64_t{s->sb_.page_count} * s->sb_.page_size;
  if (s->file_size_ < need) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: truncated: generation {} has {} pages ({} bytes), the file has {} bytes", s->name(),
                             s->sb_.generation, s->sb_.page_count, need, s->file_size_));
  }
  XTFQ_TRY(s->LoadCatalogue());
  return s;
}

std::optional<std::string> Store::Rollback() const {
  if (!other_ || (other_generation_ && *other_generation_ + 1 == sb_.generation)) return std::nullopt;
  return other_generation_ && *other_generation_ == sb_.generation + 1
             ? fmt::format("generation {} was lost", *other_generation_)
             : std::string("a newer generation may have been lost");
}

Status Store::ReadPage(PageId id, std::span<std::byte> out) {
  if (id.value >= sb_.page_count) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: page {} is beyond the last page {}", name(), id.value, sb_.page_count - 1));
  }
  XTFQ_TRY(ReadExact(*file_, uint64_t{id.value} * sb_.page_size, out));
  return VerifyPage(out, id, name());
}

Status Store::ReadSealed(PageId id, std::span<std::byte> out) {
  XTFQ_ASSIGN_OR_RETURN(Location loc, map_->FindStored(id));
  std::vector<std::byte> stored;
  return ReadStored(*file_, id, loc, stored, out);
}

Status Store::LoadCatalogue() {
  const uint32_t cap = sb_.page_size - f::kPageHeaderSize;
  std::vector<std::byte> page(sb_.page_size);
  std::vector<std::byte> bytes;
  bytes.reserve(sb_.catalogue_bytes);
  PageId id = sb_.catalogue_head;
  PageId prev = kNoPage;
  for (uint32_t i = 0; i < sb_.catalogue_pages; ++i) {
    if (id == kNoPage) {
      return Error(ErrorCode::kCorrupt,
                   fmt::format("{}: catalogue ends after {} of {} pages", name(), i, sb_.catalogue_pages));
    }
    XTFQ_TRY(ReadPage(id, page));
    const PageHeader h = PageHeader::Decode(page.data());
    auto bad = [&](const std::string& m) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: page {} (offset {}): catalogue page {}: {}", name(), id.value,
                                                    uint64_t{id.value} * sb_.page_size, i, m));
    };
    if (h.kind != PageKind::kCatalogue) return bad(fmt::format("kind is {}", PageKindName(h.kind)));
    if (h.prev != prev) return bad(fmt::format("prev link {} where {} was expected", h.prev.value, prev.value));
    if (h.entry_count > cap || bytes.size() + h.entry_count > sb_.catalogue_bytes) {
      return bad(fmt::format("holds {} bytes, more than the catalogue has left", h.entry_count));
    }
    catalogue_pages_.push_back(id);
    bytes.insert(bytes.end(), page.begin() + f::kPageHeaderSize, page.begin() + f::kPageHeaderSize + h.entry_count);
    prev = id;
    id = h.next;
  }
  if (id != kNoPage || bytes.size() != sb_.catalogue_bytes) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: catalogue pages hold {} bytes and link on to page {}; the superblock "
                             "says {} bytes in {} pages",
                             name(), bytes.size(), id.value, sb_.catalogue_bytes, sb_.catalogue_pages));
  }
  const std::string where = fmt::format("{}: catalogue", name());
  if (sb_.version >= f::kFramedCatalogueVersion) {  // docs/format.md, "Catalogue"
    XTFQ_ASSIGN_OR_RETURN(bytes, CatalogueFrame::Unframe(bytes, where));
  }
  XTFQ_ASSIGN_OR_RETURN(catalogue_, Catalogue::Decode(bytes, where));
  XTFQ_TRY(catalogue_.Validate(sb_.page_size, sb_.page_count, where));
  for (const ArrayDesc& a : catalogue_.arrays) {
    // A sole-process array (flags bit 1) is version 7's.
    if (a.sole_process && sb_.version < f::kSoleProcessVersion) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: array '{}' is of a sole process (flags bit 1), which a "
                                                    "version {} store cannot hold",
                                                    where, a.name, sb_.version));
    }
  }
  map_ = std::make_unique<PageMapReader>(*file_, sb_.page_size, sb_.page_count, catalogue_.chain_ids,
                                         catalogue_.map_leaves);
  return Ok();
}

Result<std::unique_ptr<PageSource>> Store::MakeSource(Backend backend) {
  if (backend == Backend::kMmap) {
    XTFQ_ASSIGN_OR_RETURN(auto src,
                          MmapPageSource::Open(file_->path(), sb_.page_size, sb_.page_count, *map_, file_->identity()));
    return std::unique_ptr<PageSource>(std::move(src));
  }
  return std::unique_ptr<PageSource>(std::make_unique<PreadPageSource>(*file_, sb_.page_size, sb_.page_count, *map_));
}

}  // namespace xtfq
