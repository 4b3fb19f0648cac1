// TextFile: an in-memory File holding `text` (what a parser test reads instead of a file on disk).
#pragma once

#include <string>
#include <string_view>

#include "store/string_file.h"

namespace xtfq::test {

inline StringFile TextFile(const std::string& name, std::string_view text) {
  return StringFile(name, std::string(text));
}

}  // namespace xtfq::test
