#include "store/codec.h"

#include <fmt/format.h>
#include <lz4.h>

#include <cstring>

namespace xtfq {

std::string_view CodecName(Codec codec) {
  switch (codec) {
    case Codec::kNone:
      return "none";
    case Codec::kLz4:
      return "lz4";
  }
  return "unknown";
}

std::optional<Codec> ParseCodec(std::string_view name) {
  if (name == "none") return Codec::kNone;
  if (name == "lz4") return Codec::kLz4;
  return std::nullopt;
}

size_t MaxCompressedSize(Codec codec, size_t n) {
  return codec == Codec::kLz4 ? static_cast<size_t>(LZ4_compressBound(static_cast<int>(n))) : n;
}

size_t Compress(Codec codec, std::span<const std::byte> in, std::span<std::byte> out) {
  if (codec == Codec::kNone) {
    std::memcpy(out.data(), in.data(), in.size());
    return in.size();
  }
  const int n = LZ4_compress_default(reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out.data()),
                                     static_cast<int>(in.size()), static_cast<int>(out.size()));
  return static_cast<size_t>(n);
}

Status Decompress(Codec codec, std::span<const std::byte> in, std::span<std::byte> out) {
  if (codec == Codec::kNone) {
    if (in.size() != out.size()) {
      return Error(ErrorCode::kCorrupt, fmt::format("raw body of {} bytes, {} expected", in.size(), out.size()));
    }
    std::memcpy(out.data(), in.data(), in.size());
    return Ok();
  }
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out.data()),
                                    static_cast<int>(in.size()), static_cast<int>(out.size()));
  if (n < 0) {
    return Error(ErrorCode::kCorrupt, fmt::format("lz4 block of {} bytes does not decode", in.size()));
  }
  if (static_cast<size_t>(n) != out.size()) {
    return Error(ErrorCode::kCorrupt, fmt::format("lz4 block decodes to {} bytes, {} expected", n, out.size()));
  }
  return Ok();
}

}  // namespace xtfq
