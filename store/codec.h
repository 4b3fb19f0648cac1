// Codec: how the body of a stored page is compressed (docs/format.md, "Stored pages"): as is
// (kNone), as one LZ4 block (kLz4: the raw block format, no frame, through liblz4) or as one zstd
// frame (kZstd, level 1, through libzstd: denser, slower to decode; for archived stores).
//
// Decompress never writes past `out` and succeeds only when the block decodes to exactly
// out.size() bytes, so a damaged block is an error, never a short or overrun page.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "store/format.h"
#include "store/result.h"

namespace xtfq {

enum class Codec : uint8_t {
  kNone = format::kCodecNone,
  kLz4 = format::kCodecLz4,
  kZstd = format::kCodecZstd,
};

std::string_view CodecName(Codec codec);
// "none", "lz4" or "zstd"; nullopt for anything else.
std::optional<Codec> ParseCodec(std::string_view name);

// The largest compressed size of `n` bytes under `codec` (n for kNone).
size_t MaxCompressedSize(Codec codec, size_t n);
// The most bytes `in` can decode to: itself for none; 255 times it (lz4's largest ratio) for lz4;
// the content size its zstd frame header records (0 when it records none or is not a frame).
// For refusing a size claimed beside a block before allocating for it.
uint64_t MaxDecodedSize(Codec codec, std::span<const std::byte> in);
// Compresses `in` into `out` (at least MaxCompressedSize bytes) and returns the bytes written.
// kNone copies.
size_t Compress(Codec codec, std::span<const std::byte> in, std::span<std::byte> out);
// Decodes `in` into exactly out.size() bytes; kCorrupt ("lz4 block decodes to ...") otherwise.
Status Decompress(Codec codec, std::span<const std::byte> in, std::span<std::byte> out);

}  // namespace xtfq
