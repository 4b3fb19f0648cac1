#include "store/pread_page_source.h"

#include <fmt/format.h>

#include <vector>

#include "store/page_header.h"
#include "store/stored_page.h"

namespace xtfq {

Result<const std::byte*> PreadPageSource::Load(PageKey key, Location hint, std::span<std::byte> buffer) {
  const PageId id = key.id();
  if (key.chain()) {
    XTFQ_ASSIGN_OR_RETURN(Location loc, map_.FindStored(id, hint));
    thread_local std::vector<std::byte> stored;
    XTFQ_TRY(ReadStored(file_, id, loc, stored, buffer));
    return buffer.data();
  }
  if (id.value >= page_count_) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: page {} is beyond the last page {}", name(), id.value, page_count_ - 1));
  }
  XTFQ_TRY(ReadExact(file_, uint64_t{id.value} * page_size_, buffer));
  XTFQ_TRY(VerifyPage(buffer, id, name()));
  return buffer.data();
}

}  // namespace xtfq
