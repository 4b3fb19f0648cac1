// PageSource: where the page cache gets pages from. Two backends share this interface:
// PreadPageSource (default; copies each page with pread, safe on Lustre and NFS) and
// MmapPageSource (opt-in; maps the file with Boost.Interprocess and lets the cache use plain pages
// in place). A source covers the pages of one committed snapshot: plain pages at slots
// 0..page_count-1, and chain pages where its page map says they are stored, which it verifies
// and decodes (docs/format.md, "Stored pages").
//
// Thread-safety: Load may be called from several threads at once.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "store/ids.h"
#include "store/location.h"
#include "store/page_key.h"
#include "store/result.h"

namespace xtfq {

enum class Backend : uint8_t {
  kPread = 0,
  kMmap = 1,
};

class PageSource {
 public:
  virtual ~PageSource() = default;

  virtual const std::string& name() const = 0;
  virtual uint32_t page_size() const = 0;
  virtual uint32_t page_count() const = 0;
  // Reads page `key`, verifies it (VerifyPage for a plain page; checksum, header and decoding for
  // a stored one) and returns where its page_size() bytes are: in `buffer`, or in place in a
  // mapping that lives as long as the source. A stored page is read at `hint` when that is stored
  // (an index entry's or a descriptor's Location), else where the page map says.
  // REQUIRES: buffer.size() == page_size().
  virtual Result<const std::byte*> Load(PageKey key, Location hint, std::span<std::byte> buffer) = 0;
};

}  // namespace xtfq
