#include "store/byte_reader.h"

#include <fmt/format.h>

namespace xtfq {

Result<std::span<const std::byte>> ByteReader::Take(size_t n, std::string_view what) {
  if (n > remaining()) {
    return Corrupt(fmt::format("{} needs {} bytes, {} left", what, n, remaining()));
  }
  auto s = bytes_.subspan(pos_, n);
  pos_ += n;
  return s;
}

Result<std::string> ByteReader::ReadString(size_t n, std::string_view what) {
  XTFQ_ASSIGN_OR_RETURN(std::span<const std::byte> b, Take(n, what));
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

Error ByteReader::Corrupt(std::string_view what) const {
  return Error(ErrorCode::kCorrupt, fmt::format("{} byte {}: {}", where_, pos_, what));
}

}  // namespace xtfq
