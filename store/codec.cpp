#include "store/codec.h"

#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

#include <cstring>

namespace xtfq {

namespace {
// One zstd context per thread: ZSTD_compress and ZSTD_decompress would make one per call.
struct ZstdContexts {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_DCtx* d = ZSTD_createDCtx();
  ~ZstdContexts() {
    ZSTD_freeCCtx(c);
    ZSTD_freeDCtx(d);
  }
};
ZstdContexts& Zstd() {
  thread_local ZstdContexts z;
  return z;
}
}  // namespace

std::string_view CodecName(Codec codec) {
  switch (codec) {
    case Codec::kNone:
      return "none";
    case Codec::kLz4:
      return "lz4";
    case Codec::kZstd:
      return "zstd";
  }
  return "unknown";
}

std::optional<Codec> ParseCodec(std::string_view name) {
  if (name == "none") return Codec::kNone;
  if (name == "lz4") return Codec::kLz4;
  if (name == "zstd") return Codec::kZstd;
  return std::nullopt;
}

size_t MaxCompressedSize(Codec codec, size_t n) {
  if (codec == Codec::kLz4) return static_cast<size_t>(LZ4_compressBound(static_cast<int>(n)));
  if (codec == Codec::kZstd) return ZSTD_compressBound(n);
  return n;
}

uint64_t MaxDecodedSize(Codec codec, std::span<const std::byte> in) {
  if (codec == Codec::kNone) return in.size();
  if (codec == Codec::kLz4) return uint64_t{255} * in.size();
  const unsigned long long n = ZSTD_getFrameContentSize(in.data(), in.size());
  return n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR ? 0 : n;
}

size_t Compress(Codec codec, std::span<const std::byte> in, std::span<std::byte> out) {
  if (codec == Codec::kNone) {
    std::memcpy(out.data(), in.data(), in.size());
    return in.size();
  }
  if (codec == Codec::kZstd) {
    const size_t z = ZSTD_compressCCtx(Zstd().c, out.data(), out.size(), in.data(), in.size(), 1);
    return ZSTD_isError(z) ? 0 : z;
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
  if (codec == Codec::kZstd) {
    const size_t z = ZSTD_decompressDCtx(Zstd().d, out.data(), out.size(), in.data(), in.size());
    if (ZSTD_isError(z)) {
      return Error(ErrorCode::kCorrupt,
                   fmt::format("zstd frame of {} bytes does not decode: {}", in.size(), ZSTD_getErrorName(z)));
    }
    if (z != out.size()) {
      return Error(ErrorCode::kCorrupt, fmt::format("zstd frame decodes to {} bytes, {} expected", z, out.size()));
    }
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
