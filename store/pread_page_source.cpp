#include "store/pread_page_source.h"

#include <fmt/format.h>

namespace xtfq {

Status PreadPageSource::Read(PageId id, std::span<std::byte> out) {
  if (id.value >= page_count_) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: page {} is beyond the last page {}", name(), id.value, page_count_ - 1));
  }
  return ReadExact(file_, uint64_t{id.value} * page_size_, out);
}

}  // namespace xtfq
