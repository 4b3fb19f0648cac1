#include "store/page_header.h"

#include <fmt/format.h>

#include "store/crc32c.h"
#include "store/endian.h"
#include "store/format.h"

namespace xtfq {

namespace f = format;

// Fuzz builds (the `fuzz` preset) accept any checksum, so that mutated inputs reach the decoders
// behind the checks; never defined in a build anyone runs on data.
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
constexpr bool kChecksumsBypassed = true;
#else
constexpr bool kChecksumsBypassed = false;
#endif

std::string_view PageKindName(PageKind kind) {
  switch (kind) {
    case PageKind::kData:
      return "data";
    case PageKind::kIndex:
      return "index";
    case PageKind::kCatalogue:
      return "catalogue";
    case PageKind::kHeap:
      return "heap";
    case PageKind::kProcess:
      return "process tree";
    case PageKind::kPageMap:
      return "page map";
  }
  return "unknown";
}

std::string TreePageMismatch(const std::byte* p, PageKind kind, uint8_t level, ArrayId array, PageId logical,
                             uint32_t capacity) {
  const auto got_kind = static_cast<PageKind>(LoadLe<uint8_t>(p + f::kPhKind));
  const uint8_t got_level = LoadLe<uint8_t>(p + f::kPhLevel);
  const uint32_t owner = LoadLe<uint32_t>(p + f::kPhArrayId);
  const uint32_t got_logical = LoadLe<uint32_t>(p + f::kPhLogicalId);
  const uint32_t entries = LoadLe<uint32_t>(p + f::kPhEntryCount);
  if (got_kind != kind || got_level != level || owner != array.value || got_logical != logical.value) {
    return fmt::format("holds a {} page of level {} of array {} for logical page {}", PageKindName(got_kind), got_level,
                       owner, got_logical);
  }
  if (entries == 0 || entries > capacity) return fmt::format("{} entries", entries);
  return {};
}

PageHeader PageHeader::Decode(const std::byte* p) {
  PageHeader h;
  h.page_id = PageId(LoadLe<uint32_t>(p + f::kPhPageId));
  h.kind = static_cast<PageKind>(LoadLe<uint8_t>(p + f::kPhKind));
  h.level = LoadLe<uint8_t>(p + f::kPhLevel);
  h.flags = LoadLe<uint8_t>(p + f::kPhFlags);
  h.array = ArrayId(LoadLe<uint32_t>(p + f::kPhArrayId));
  h.entry_count = LoadLe<uint32_t>(p + f::kPhEntryCount);
  h.prev = PageId(LoadLe<uint32_t>(p + f::kPhPrev));
  h.next = PageId(LoadLe<uint32_t>(p + f::kPhNext));
  h.logical = PageId(LoadLe<uint32_t>(p + f::kPhLogicalId));
  h.codec = LoadLe<uint8_t>(p + f::kPhCodec);
  return h;
}

void PageHeader::Encode(std::byte* p) const {
  StoreLe<uint32_t>(p + f::kPhChecksum, 0);
  StoreLe<uint32_t>(p + f::kPhPageId, page_id.value);
  StoreLe<uint8_t>(p + f::kPhKind, static_cast<uint8_t>(kind));
  StoreLe<uint8_t>(p + f::kPhLevel, level);
  StoreLe<uint8_t>(p + f::kPhFlags, flags);
  StoreLe<uint8_t>(p + f::kPhCodec, codec);
  StoreLe<uint32_t>(p + f::kPhArrayId, array.value);
  StoreLe<uint32_t>(p + f::kPhEntryCount, entry_count);
  StoreLe<uint32_t>(p + f::kPhPrev, prev.value);
  StoreLe<uint32_t>(p + f::kPhNext, next.value);
  StoreLe<uint32_t>(p + f::kPhLogicalId, logical.value);
}

bool ChecksumsBypassed() { return kChecksumsBypassed; }

bool PageHeader::shadow() const { return (flags & f::kFlagShadow) != 0; }

Status ExpectHeader(const PageHeader& got, const PageHeader& want, std::string_view where) {
  auto differs = [&](std::string_view field, uint64_t g, uint64_t w) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: {} is {}, {} expected", where, field, g, w));
  };
  if (got.kind != want.kind) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: kind is {}, {} expected", where, PageKindName(got.kind), PageKindName(want.kind)));
  }
  if (got.level != want.level) return differs("level", got.level, want.level);
  if (got.flags != want.flags) return differs("flags", got.flags, want.flags);
  if (got.array != want.array) return differs("array id", got.array.value, want.array.value);
  if (got.entry_count != want.entry_count) return differs("entry count", got.entry_count, want.entry_count);
  if (got.prev != want.prev) return differs("prev link", got.prev.value, want.prev.value);
  if (got.next != want.next) return differs("next link", got.next.value, want.next.value);
  if (got.logical != want.logical) return differs("logical id", got.logical.value, want.logical.value);
  return Ok();
}

void SealPage(std::span<std::byte> page) { StoreLe<uint32_t>(page.data() + f::kPhChecksum, Crc32c(page.subspan(4))); }

Status VerifyPage(std::span<const std::byte> page, PageId expected, std::string_view file) {
  const uint64_t offset = uint64_t{expected.value} * page.size();
  auto corrupt = [&](const std::string& what) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: page {} (offset {}): {}", file, expected.value, offset, what));
  };
  const uint32_t stored = LoadLe<uint32_t>(page.data() + f::kPhChecksum);
  const uint32_t computed = Crc32c(page.subspan(4));
  if (stored != computed && !kChecksumsBypassed) {
    return corrupt(fmt::format("checksum mismatch (stored {:#010x}, computed {:#010x})", stored, computed));
  }
  const PageHeader h = PageHeader::Decode(page.data());
  if (h.page_id != expected) {
    return corrupt(fmt::format("header names page {} (misdirected write)", h.page_id.value));
  }
  const auto kind = static_cast<uint8_t>(h.kind);
  if (kind < 1 || kind > 6) return corrupt(fmt::format("unknown page kind {}", kind));
  if ((h.flags & ~f::kKnownFlags) != 0) return corrupt(fmt::format("unknown flags {:#04x}", h.flags));
  if (h.codec != 0) return corrupt(fmt::format("codec {} in a plain page", h.codec));
  if (h.level >= f::kMaxLevels) return corrupt(fmt::format("level {} out of range", h.level));
  if (!h.shadow() && h.logical != h.page_id) {
    return corrupt(fmt::format("logical id {} differs from page id in a non-shadow page", h.logical.value));
  }
  return Ok();
}

}  // namespace xtfq
