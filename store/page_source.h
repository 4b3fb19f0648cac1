// PageSource: where the page cache gets pages from. Two backends share this interface:
// PreadPageSource (default; copies each page with pread, safe on Lustre and NFS) and
// MmapPageSource (opt-in; maps the file with Boost.Interprocess and lets the cache use pages in
// place). A source covers the pages of one committed snapshot, ids 0..page_count-1.
//
// Thread-safety: Read and mapped() may be called from several threads at once.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "store/ids.h"
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
  // Non-null when pages can be read in place at mapped() + id * page_size(); they stay valid for
  // the life of the source.
  virtual const std::byte* mapped() const = 0;
  // Copies page `id` into `out`. REQUIRES: out.size() == page_size().
  virtual Status Read(PageId id, std::span<std::byte> out) = 0;
};

}  // namespace xtfq
