#include "store/superblock.h"

#include <fmt/format.h>

#include <cstring>

#include "store/crc32c.h"
#include "store/endian.h"

namespace xtfq {

namespace f = format;

bool ValidPageSize(uint64_t p) { return p >= f::kMinPageSize && p <= f::kMaxPageSize && (p & (p - 1)) == 0; }

std::array<std::byte, f::kSuperblockSize> Superblock::Encode() const {
  std::array<std::byte, f::kSuperblockSize> b{};
  std::memcpy(b.data() + f::kSbMagic, f::kMagic.data(), 8);
  StoreLe<uint32_t>(b.data() + f::kSbVersion, version);
  StoreLe<uint32_t>(b.data() + f::kSbPageSize, page_size);
  StoreLe<uint64_t>(b.data() + f::kSbGeneration, generation);
  StoreLe<uint32_t>(b.data() + f::kSbPageCount, page_count);
  StoreLe<uint32_t>(b.data() + f::kSbCatalogueHead, catalogue_head.value);
  StoreLe<uint32_t>(b.data() + f::kSbCataloguePages, catalogue_pages);
  StoreLe<uint32_t>(b.data() + f::kSbCatalogueBytes, catalogue_bytes);
  StoreLe<uint64_t>(b.data() + f::kSbCommitTime, commit_time_ns);
  StoreLe<uint8_t>(b.data() + f::kSbCodec, codec);
  StoreLe<uint32_t>(b.data() + f::kSbChecksum, Crc32c(std::span(b).first(f::kSbChecksum)));
  return b;
}

Result<Superblock> Superblock::Decode(std::span<const std::byte, f::kSuperblockSize> b, const std::string& where) {
  auto bad = [&](const std::string& what) { return Error(ErrorCode::kCorrupt, where + ": " + what); };
  if (std::memcmp(b.data(), f::kMagic.data(), 8) != 0) return bad("bad magic (not an xtfq store)");
  const uint32_t stored = LoadLe<uint32_t>(b.data() + f::kSbChecksum);
  const uint32_t computed = Crc32c(b.first(f::kSbChecksum));
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION  // fuzz builds reach the checks behind it
  if (stored != computed) {
    return bad(fmt::format("checksum mismatch (stored {:#010x}, computed {:#010x})", stored, computed));
  }
#endif
  Superblock s;
  s.version = LoadLe<uint32_t>(b.data() + f::kSbVersion);
  s.page_size = LoadLe<uint32_t>(b.data() + f::kSbPageSize);
  s.generation = LoadLe<uint64_t>(b.data() + f::kSbGeneration);
  s.page_count = LoadLe<uint32_t>(b.data() + f::kSbPageCount);
  s.catalogue_head = PageId(LoadLe<uint32_t>(b.data() + f::kSbCatalogueHead));
  s.catalogue_pages = LoadLe<uint32_t>(b.data() + f::kSbCataloguePages);
  s.catalogue_bytes = LoadLe<uint32_t>(b.data() + f::kSbCatalogueBytes);
  s.commit_time_ns = LoadLe<uint64_t>(b.data() + f::kSbCommitTime);
  s.codec = LoadLe<uint8_t>(b.data() + f::kSbCodec);
  if (s.version >= 3 && s.version < f::kOldestReadableVersion) {
    return Error(ErrorCode::kUnsupported,
                 fmt::format("{}: format version {}, written by an older xtfq; this build reads versions {} to {} "
                             "(pages compressed, index entries that say where their pages are). Re-import the "
                             "original inputs into a new store: xtfq import INPUT... -o NEW.xtfq",
                             where, s.version, f::kOldestReadableVersion, f::kFormatVersion));
  }
  if (s.version < f::kOldestReadableVersion || s.version > f::kFormatVersion) {
    return Error(ErrorCode::kUnsupported, fmt::format("{}: format version {} (this build reads versions {} to {})",
                                                      where, s.version, f::kOldestReadableVersion, f::kFormatVersion));
  }
  if (!f::StoreCodec(s.codec)) {
    return Error(ErrorCode::kUnsupported, fmt::format("{}: codec {} is unknown to this build", where, s.codec));
  }
  if (!ValidPageSize(s.page_size)) return bad(fmt::format("invalid page size {}", s.page_size));
  if (s.generation == 0) return bad("generation 0");
  if (s.page_count < f::kFirstDataPage + 1) return bad(fmt::format("page count {} too small", s.page_count));
  if (s.catalogue_head.value < f::kFirstDataPage || s.catalogue_head.value >= s.page_count) {
    return bad(fmt::format("catalogue head page {} outside pages 2..{}", s.catalogue_head.value, s.page_count - 1));
  }
  const uint64_t cap = s.page_size - f::kPageHeaderSize;
  if (s.catalogue_pages == 0 || s.catalogue_pages > s.page_count - f::kFirstDataPage ||
      s.catalogue_bytes <
          (s.version >= f::kFramedCatalogueVersion ? f::kCatalogueFrameSize : f::kCatalogueHeaderSize) ||
      s.catalogue_bytes > cap * s.catalogue_pages) {
    return bad(fmt::format("catalogue of {} bytes in {} pages is impossible", s.catalogue_bytes, s.catalogue_pages));
  }
  for (uint32_t i = 0; i < 3; ++i) {
    if (LoadLe<uint8_t>(b.data() + f::kSbReserved + i) != 0) return bad("reserved field is not zero");
  }
  return s;
}

Result<SuperblockChoice> ReadNewestSuperblock(File& file) {
  std::array<std::byte, f::kSuperblockSize> buf{};
  std::array<std::optional<uint64_t>, 2> raw_generation;  // each slot's generation field, as last read
  auto read_slot = [&](uint64_t offset, uint32_t slot) -> Result<Superblock> {
    const std::string where = fmt::format("{}: superblock {} (offset {})", file.name(), slot, offset);
    XTFQ_ASSIGN_OR_RETURN(uint64_t size, file.Size());
    if (size < offset + buf.size()) {
      return Error(ErrorCode::kCorrupt, where + ": beyond end of file (" + std::to_string(size) + " bytes)");
    }
    XTFQ_TRY(ReadExact(file, offset, buf));
    raw_generation[slot] = LoadLe<uint64_t>(buf.data() + f::kSbGeneration);
    return Superblock::Decode(buf, where);
  };

  Result<Superblock> s0 = read_slot(0, 0);
  if (!s0.ok() && s0.error().code() == ErrorCode::kIo) return std::move(s0).error();
  std::optional<Result<Superblock>> s1;
  if (s0.ok()) {
    s1 = read_slot(s0->page_size, 1);
  } else {
    for (uint32_t p = f::kMinPageSize; p <= f::kMaxPageSize; p *= 2) {
      Result<Superblock> r = read_slot(p, 1);
      if (r.ok() && r->page_size == p) {
        s1 = std::move(r);
        break;
      }
      if (!s1.has_value() || p == f::kMinPageSize) s1 = std::move(r);
    }
  }
  if (!s1->ok() && s1->error().code() == ErrorCode::kIo) return std::move(*s1).error();
  if (s1->ok() && (**s1).page_size != (s0.ok() ? s0->page_size : (**s1).page_size)) {
    s1 = Error(ErrorCode::kCorrupt, fmt::format("{}: superblock 1 gives page size {}, superblock 0 {}", file.name(),
                                                (**s1).page_size, s0->page_size));
  }
  const bool ok0 = s0.ok() && Superblock::Slot(s0->generation) == 0;
  const bool ok1 = s1->ok() && Superblock::Slot((**s1).generation) == 1;
  if (s0.ok() && !ok0)
    s0 = Error(ErrorCode::kCorrupt,
               fmt::format("{}: superblock 0 holds odd generation {}", file.name(), s0->generation));
  if (s1->ok() && !ok1)
    *s1 = Error(ErrorCode::kCorrupt,
                fmt::format("{}: superblock 1 holds even generation {}", file.name(), (**s1).generation));
  if (!ok0 && !ok1) {
    if (s0.error().code() == ErrorCode::kUnsupported) return std::move(s0).error();
    if (s1->error().code() == ErrorCode::kUnsupported) return std::move(*s1).error();
    return Error(ErrorCode::kCorrupt,
                 fmt::format("no valid superblock: {}; {}", s0.error().message(), s1->error().message()));
  }
  SuperblockChoice c;
  if (ok0 && (!ok1 || s0->generation > (**s1).generation)) {
    c.sb = *s0;
    c.slot = 0;
    if (!ok1) c.other = s1->error();
  } else {
    c.sb = **s1;
    c.slot = 1;
    if (!ok0) c.other = s0.error();
  }
  if (c.other) c.other_generation = raw_generation[1 - c.slot];  // from the bytes that failed
  return c;
}

bool LooksLikeStore(File& file) {
  auto magic_at = [&](uint64_t offset) {
    std::array<std::byte, 8> m{};
    auto got = file.ReadAt(offset, m);
    return got.ok() && *got == m.size() && std::memcmp(m.data(), f::kMagic.data(), m.size()) == 0;
  };
  if (magic_at(0)) return true;
  for (uint32_t p = f::kMinPageSize; p <= f::kMaxPageSize; p *= 2) {
    if (magic_at(p)) return true;
  }
  return false;
}

}  // namespace xtfq
