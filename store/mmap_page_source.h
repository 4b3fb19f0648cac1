// MmapPageSource: the file mapped read-only with Boost.Interprocess; plain pages are used in
// place, stored pages are checked and decoded from the mapping into the caller's buffer.
// Opt-in: mmap on Lustre or NFS turns a server hiccup into SIGBUS, which pread reports as an
// error instead (LMDB's caveat).
//
// Thread-safety: as PageSource; the mapping is immutable.
#pragma once

#include <boost/interprocess/file_mapping.hpp>
#include <boost/interprocess/mapped_region.hpp>
#include <memory>
#include <optional>
#include <string>

#include "store/file.h"
#include "store/page_map_reader.h"
#include "store/page_source.h"

namespace xtfq {

class MmapPageSource final : public PageSource {
 public:
  // Maps the first page_count pages of the file at `path`. With `expected`, the file mapped must
  // be that one (the store's open, leased file), not one renamed over `path` since.
  static Result<std::unique_ptr<MmapPageSource>> Open(const std::string& path, uint32_t page_size, uint32_t page_count,
                                                      PageMapReader& map,
                                                      std::optional<File::Identity> expected = std::nullopt);

  const std::string& name() const override { return path_; }
  uint32_t page_size() const override { return page_size_; }
  uint32_t page_count() const override { return page_count_; }
  Result<const std::byte*> Load(PageKey key, Location hint, std::span<std::byte> buffer) override;

 private:
  MmapPageSource(std::string path, uint32_t page_size, uint32_t page_count, PageMapReader& map)
      : path_(std::move(path)), page_size_(page_size), page_count_(page_count), map_(map) {}
  const std::byte* mapped() const;

  std::string path_;
  uint32_t page_size_;
  uint32_t page_count_;
  PageMapReader& map_;
  boost::interprocess::file_mapping mapping_;
  boost::interprocess::mapped_region region_;
};

}  // namespace xtfq
