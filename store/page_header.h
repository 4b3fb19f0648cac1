// PageHeader: the 32 bytes at the start of every page but the superblocks (docs/format.md,
// "Page header"), and the seal/verify pair that puts and checks its CRC32C.
//
// A page is sealed (checksum computed over bytes 4..page_size-1) after its last byte is set and
// before it is written; it is verified when it is read, before anything in it is trusted:
// checksum, own page id (catches misdirected writes), known kind and flags, zero reserved byte.
//
// Thread-safety: value type and pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "store/ids.h"
#include "store/result.h"

namespace xtfq {

enum class PageKind : uint8_t {
  kData = 1,       // records of an array (leaves)
  kIndex = 2,      // index entries of an array (levels above the leaves)
  kCatalogue = 3,  // a piece of the catalogue byte stream
  kHeap = 4,       // a piece of the string heap byte stream
  kProcess = 5,    // entries of an array's process tree (docs/format.md, "P index")
  kPageMap = 6,    // Locations of chain pages (docs/format.md, "Page map")
};

std::string_view PageKindName(PageKind kind);

struct PageHeader {
  PageId page_id;
  PageKind kind = PageKind::kData;
  uint8_t level = 0;
  uint8_t flags = 0;
  ArrayId array;
  uint32_t entry_count = 0;
  PageId prev;
  PageId next;
  PageId logical;     // equals page_id except in a shadow page (flag kFlagShadow)
  uint8_t codec = 0;  // how a stored page's body is stored; 0 in every plain page

  static PageHeader Decode(const std::byte* page);
  void Encode(std::byte* page) const;
  bool shadow() const;
};

// Computes the checksum of `page` and stores it in its first four bytes.
void SealPage(std::span<std::byte> page);

// Compares a decoded header with the one the structure around it requires (kind, level, flags,
// array, entry count, links, logical id); the error names the first field that differs.
Status ExpectHeader(const PageHeader& got, const PageHeader& want, std::string_view where);

// For a page reached through a tree: empty when its header says it is a `kind` page of `level` of
// `array` standing for `logical`, with 1 to `capacity` entries; otherwise what it holds instead.
// Reads only those fields, in place (the descent's hot path).
std::string TreePageMismatch(const std::byte* page, PageKind kind, uint8_t level, ArrayId array, PageId logical,
                             uint32_t capacity);

// Whether this build skips checksum checks (fuzz builds only, so that mutated inputs reach the
// decoders behind them).
bool ChecksumsBypassed();

// Verifies a plain page: checksum, page id, kind, flags and a zero codec byte. `file` names the store in errors,
// which also give the page id and its byte offset.
Status VerifyPage(std::span<const std::byte> page, PageId expected, std::string_view file);

}  // namespace xtfq
