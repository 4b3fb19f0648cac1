#include "store/file.h"

#include <fmt/format.h>

namespace xtfq {

Status ReadExact(File& file, uint64_t offset, std::span<std::byte> out) {
  size_t done = 0;
  while (done < out.size()) {
    XTFQ_ASSIGN_OR_RETURN(size_t n, file.ReadAt(offset + done, out.subspan(done)));
    if (n == 0) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: unexpected end of file at offset {} ({} of {} bytes read)",
                                                    file.name(), offset + done, done, out.size()));
    }
    done += n;
  }
  return Ok();
}

}  // namespace xtfq
