// Superblock: the root of a committed state (docs/format.md, "Superblock").
//
// Two slots, at the start of pages 0 and 1, are written alternately: generation g goes to slot
// g % 2. A reader takes the newest slot whose checksum and fields are valid, so a torn superblock
// write leaves the previous generation in force. ReadNewestSuperblock() also finds the page size when slot
// 0 is unreadable, by probing slot 1 at every allowed page size.
//
// Thread-safety: value type; ReadNewest only reads.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "store/file.h"
#include "store/format.h"
#include "store/ids.h"
#include "store/result.h"

namespace xtfq {

struct Superblock {
  uint32_t version = format::kFormatVersion;
  uint32_t page_size = format::kDefaultPageSize;
  uint64_t generation = 0;
  uint32_t page_count = 0;
  PageId catalogue_head;
  uint32_t catalogue_pages = 0;
  uint32_t catalogue_bytes = 0;
  uint64_t commit_time_ns = 0;        // wall clock at commit, informative only
  uint8_t codec = format::kCodecLz4;  // the codec of pages sealed from now on

  std::array<std::byte, format::kSuperblockSize> Encode() const;
  // Decodes and validates one slot; errors name `where` (file and slot).
  static Result<Superblock> Decode(std::span<const std::byte, format::kSuperblockSize> bytes, const std::string& where);

  static uint32_t Slot(uint64_t generation) { return static_cast<uint32_t>(generation % 2); }
};

// The newest valid superblock of a file, with what was wrong with the other slot, if anything.
struct SuperblockChoice {
  Superblock sb;
  uint32_t slot = 0;
  std::optional<Error> other;  // why the other slot is not valid, when it is not
  // When the other slot is not valid: what its generation field reads, raw (sb.generation + 1
  // says a newer generation was lost; sb.generation - 1 that the older slot was damaged).
  std::optional<uint64_t> other_generation;
};
Result<SuperblockChoice> ReadNewestSuperblock(File& file);

// Whether the file carries a store's magic in either superblock slot (slot 1 at every allowed
// page size), so that damage to one slot still identifies a store, not a log or text.
bool LooksLikeStore(File& file);

bool ValidPageSize(uint64_t page_size);

}  // namespace xtfq
