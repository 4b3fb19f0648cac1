// TextFile: an in-memory File holding `text` (what a parser test reads instead of a file on disk).
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/mem_file.h"

namespace xtfq::test {

inline MemFile TextFile(const std::string& name, std::string_view text) {
  auto disk = std::make_shared<MemDisk>();
  std::vector<std::byte> b(text.size());
  if (!text.empty()) std::memcpy(b.data(), text.data(), text.size());  // (an empty text has no data pointer)
  disk->SetContents(b);
  return MemFile(name, disk);
}

}  // namespace xtfq::test
