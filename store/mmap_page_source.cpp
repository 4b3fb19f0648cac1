#include "store/mmap_page_source.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <boost/interprocess/exceptions.hpp>
#include <cstring>

#include "store/page_header.h"
#include "store/stored_page.h"

namespace xtfq {

namespace bip = boost::interprocess;

Result<std::unique_ptr<MmapPageSource>> MmapPageSource::Open(const std::string& path, uint32_t page_size,
                                                             uint32_t page_count, PageMapReader& map,
                                                             std::optional<File::Identity> expected) {
  if (path.empty()) {
    return Error(ErrorCode::kInvalidArgument, "the mmap backend needs a file on disk");
  }
  std::unique_ptr<MmapPageSource> s(new MmapPageSource(path, page_size, page_count, map));
  try {
    s->mapping_ = bip::file_mapping(path.c_str(), bip::read_only);
    struct stat st {};
    if (expected && (::fstat(s->mapping_.get_mapping_handle().handle, &st) != 0 ||
                     File::Identity{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)} != *expected)) {
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("{}: was replaced by another file since the store was opened; open it again", path));
    }
    s->region_ = bip::mapped_region(s->mapping_, bip::read_only, 0, static_cast<size_t>(page_size) * page_count);
    // Index lookups touch pages at random: a fault should read its page, not a readahead window.
    s->region_.advise(bip::mapped_region::advice_random);
  } catch (const bip::interprocess_exception& e) {
    return Error(ErrorCode::kIo, fmt::format("{}: cannot map {} pages: {}", path, page_count, e.what()));
  }
  return s;
}

const std::byte* MmapPageSource::mapped() const { return static_cast<const std::byte*>(region_.get_address()); }

Result<const std::byte*> MmapPageSource::Load(PageKey key, Location hint, std::span<std::byte> buffer) {
  const PageId id = key.id();
  if (key.chain()) {
    XTFQ_ASSIGN_OR_RETURN(Location loc, map_.FindStored(id, hint));
    XTFQ_TRY(DecodeStored({mapped() + loc.offset, loc.length}, id, loc, buffer, name()));
    return buffer.data();
  }
  if (id.value >= page_count_) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: page {} is beyond the last page {}", path_, id.value, page_count_ - 1));
  }
  const std::byte* page = mapped() + uint64_t{id.value} * page_size_;
  XTFQ_TRY(VerifyPage({page, page_size_}, id, name()));
  return page;
}

}  // namespace xtfq
