#include "store/store.h"

#include <fmt/format.h>

#include "store/format.h"
#include "store/mmap_page_source.h"
#include "store/posix_file.h"
#include "store/pread_page_source.h"

namespace xtfq {

namespace f = format;

Result<std::unique_ptr<Store>> Store::OpenPath(const std::string& path) {
  XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<PosixFile> file, PosixFile::Open(path, PosixFile::Mode::kRead));
  return Open(std::move(file));
}

Result<std::unique_ptr<Store>> Store::Open(std::unique_ptr<File> file) {
  std::unique_ptr<Store> s(new Store(std::move(file)));
  XTFQ_ASSIGN_OR_RETURN(SuperblockChoice choice, ReadNewestSuperblock(*s->file_));
  s->sb_ = choice.sb;
  s->slot_ = choice.slot;
  s->other_ = std::move(choice.other);
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

Status Store::ReadPage(PageId id, std::span<std::byte> out) {
  if (id.value >= sb_.page_count) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: page {} is beyond the last page {}", name(), id.value, sb_.page_count - 1));
  }
  XTFQ_TRY(ReadExact(*file_, uint64_t{id.value} * sb_.page_size, out));
  return VerifyPage(out, id, name());
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
  XTFQ_ASSIGN_OR_RETURN(catalogue_, Catalogue::Decode(bytes, where));
  return catalogue_.Validate(sb_.page_size, sb_.page_count, where);
}

Result<std::unique_ptr<PageSource>> Store::MakeSource(Backend backend) {
  if (backend == Backend::kMmap) {
    XTFQ_ASSIGN_OR_RETURN(auto src, MmapPageSource::Open(file_->path(), sb_.page_size, sb_.page_count));
    return std::unique_ptr<PageSource>(std::move(src));
  }
  return std::unique_ptr<PageSource>(std::make_unique<PreadPageSource>(*file_, sb_.page_size, sb_.page_count));
}

}  // namespace xtfq
