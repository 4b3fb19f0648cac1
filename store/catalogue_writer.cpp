#include "store/catalogue_writer.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "store/catalogue_frame.h"
#include "store/format.h"
#include "store/page_header.h"
#include "store/superblock.h"

namespace xtfq {

namespace f = format;

Status CatalogueWriter::Commit(Catalogue& cat, uint64_t generation, Codec codec, PageAllocator& pages,
                               PageWriteQueue& writes, File& file) {
  // The new catalogue goes to fresh pages; the committed one is freed by this commit.
  pages.Release(pages_);
  const uint32_t cap = page_size_ - f::kPageHeaderSize;
  // The pages it takes come off the free list, which the catalogue holds: take pages until the
  // framed catalogue of the free list left fits them. Pages the catalogue then does not fill
  // stay in its chain, empty.
  std::vector<PageId> ids;
  std::vector<std::byte> bytes;
  for (;;) {
    cat.free_pages = pages.FreeList();
    XTFQ_ASSIGN_OR_RETURN(bytes, CatalogueFrame::Frame(cat.Encode(), codec));
    const size_t need = std::max<size_t>(1, (bytes.size() + cap - 1) / cap);
    if (need <= ids.size()) break;
    while (ids.size() < need) {
      XTFQ_ASSIGN_OR_RETURN(PageId id, pages.Allocate());
      ids.push_back(id);
    }
  }
  std::vector<std::byte> page(page_size_);
  size_t done = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    const auto n = static_cast<uint32_t>(std::min<size_t>(cap, bytes.size() - done));
    std::fill(page.begin(), page.end(), std::byte{0});
    PageHeader h;
    h.page_id = h.logical = ids[i];
    h.kind = PageKind::kCatalogue;
    h.entry_count = n;
    h.prev = i > 0 ? ids[i - 1] : kNoPage;
    h.next = i + 1 < ids.size() ? ids[i + 1] : kNoPage;
    h.Encode(page.data());
    std::memcpy(page.data() + f::kPageHeaderSize, bytes.data() + done, n);
    done += n;
    SealPage(page);
    XTFQ_TRY(writes.Queue(ids[i], page));
  }
  XTFQ_TRY(writes.Flush());

  // Every slot is written by now (packs, shadows, leaves, catalogue); a guard all the same.
  const uint64_t need = uint64_t{pages.page_count()} * page_size_;
  XTFQ_ASSIGN_OR_RETURN(uint64_t size, file.Size());
  if (size < need) XTFQ_TRY(file.Truncate(need));
  XTFQ_TRY(file.Sync());

  Superblock sb;
  sb.page_size = page_size_;
  sb.generation = generation;
  sb.page_count = pages.page_count();
  sb.codec = static_cast<uint8_t>(codec);
  sb.catalogue_head = ids.front();
  sb.catalogue_pages = static_cast<uint32_t>(ids.size());
  sb.catalogue_bytes = static_cast<uint32_t>(bytes.size());
  sb.commit_time_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  const auto sbytes = sb.Encode();
  XTFQ_TRY(file.WriteAt(uint64_t{Superblock::Slot(sb.generation)} * page_size_, sbytes));
  XTFQ_TRY(file.Sync());
  pages_ = std::move(ids);
  return Ok();
}

Status CatalogueWriter::Claim(WriterAudit& audit) const {
  for (PageId id : pages_) XTFQ_TRY(audit.Claim(id, WriterAudit::Role::kCatalogue, "catalogue"));
  return Ok();
}

}  // namespace xtfq
