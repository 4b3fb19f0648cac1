// PreadPageSource: pages read with File::ReadAt (pread for files on disk). The default backend.
//
// Thread-safety: as PageSource. The File and the page map must outlive the source.
#pragma once

#include "store/file.h"
#include "store/page_map_reader.h"
#include "store/page_source.h"

namespace xtfq {

class PreadPageSource final : public PageSource {
 public:
  PreadPageSource(File& file, uint32_t page_size, uint32_t page_count, PageMapReader& map)
      : file_(file), page_size_(page_size), page_count_(page_count), map_(map) {}

  const std::string& name() const override { return file_.name(); }
  uint32_t page_size() const override { return page_size_; }
  uint32_t page_count() const override { return page_count_; }
  Result<const std::byte*> Load(PageKey key, Location hint, std::span<std::byte> buffer) override;

 private:
  File& file_;
  uint32_t page_size_;
  uint32_t page_count_;
  PageMapReader& map_;
};

}  // namespace xtfq
