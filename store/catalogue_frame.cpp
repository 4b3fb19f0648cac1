#include "store/catalogue_frame.h"

#include <fmt/format.h>

#include "store/endian.h"
#include "store/format.h"

namespace xtfq {

namespace f = format;

Result<std::vector<std::byte>> CatalogueFrame::Frame(const std::vector<std::byte>& catalogue, Codec codec) {
  if (catalogue.size() > f::kMaxCatalogueBytes) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("a catalogue of {} bytes: more than the {} a store holds",
                                                          catalogue.size(), f::kMaxCatalogueBytes));
  }
  std::vector<std::byte> out(f::kCatalogueFrameSize + MaxCompressedSize(codec, catalogue.size()));
  size_t n = codec == Codec::kNone ? 0 : Compress(codec, catalogue, std::span(out).subspan(f::kCatalogueFrameSize));
  if (n == 0 || n >= catalogue.size()) {
    codec = Codec::kNone;
    n = Compress(Codec::kNone, catalogue, std::span(out).subspan(f::kCatalogueFrameSize));
  }
  out.resize(f::kCatalogueFrameSize + n);
  StoreLe<uint8_t>(out.data() + f::kCfCodec, static_cast<uint8_t>(codec));
  StoreLe<uint32_t>(out.data() + f::kCfRawBytes, static_cast<uint32_t>(catalogue.size()));
  return out;
}

Result<std::vector<std::byte>> CatalogueFrame::Unframe(std::span<const std::byte> frame, std::string_view where) {
  if (frame.size() < f::kCatalogueFrameSize) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: {} bytes, shorter than its frame", where, frame.size()));
  }
  const uint8_t codec = LoadLe<uint8_t>(frame.data() + f::kCfCodec);
  const uint32_t raw = LoadLe<uint32_t>(frame.data() + f::kCfRawBytes);
  if (!f::StoreCodec(codec)) return Error(ErrorCode::kCorrupt, fmt::format("{}: codec {} is unknown", where, codec));
  if (raw > f::kMaxCatalogueBytes) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: says {} bytes, more than a catalogue holds", where, raw));
  }
  const auto block = frame.subspan(f::kCatalogueFrameSize);
  if (raw > MaxDecodedSize(static_cast<Codec>(codec), block)) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: says {} bytes, more than its {}-byte block can hold", where, raw, block.size()));
  }
  std::vector<std::byte> out(raw);
  if (Status s = Decompress(static_cast<Codec>(codec), block, out); !s.ok()) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: {}", where, s.error().message()));
  }
  return out;
}

}  // namespace xtfq
