#include "importers/line_reader.h"

#include <fmt/format.h>

#include <cstring>

namespace xtfq {

Result<bool> LineReader::Next(std::string& line) {
  line.clear();
  for (;;) {
    if (pos_ == len_) {
      if (eof_) return false;
      if (!buf_) buf_ = std::make_unique_for_overwrite<char[]>(kChunk);
      XTFQ_ASSIGN_OR_RETURN(size_t got, f_.ReadAt(off_, std::span(reinterpret_cast<std::byte*>(buf_.get()), kChunk)));
      len_ = got;
      off_ += got, pos_ = 0;
      if (got == 0) {
        eof_ = true;
        if (line.empty()) return false;
        ++number_;
        return true;
      }
    }
    const char* start = buf_.get() + pos_;
    const void* nl = std::memchr(start, '\n', len_ - pos_);
    const size_t n = nl == nullptr ? len_ - pos_ : static_cast<size_t>(static_cast<const char*>(nl) - start);
    line.append(start, n);
    pos_ += n;
    if (line.size() > max_line_) {
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("{}: line {}: longer than {} bytes", f_.name(), number_ + 1, max_line_));
    }
    if (nl != nullptr) {
      ++pos_;
      ++number_;
      return true;
    }
  }
}

}  // namespace xtfq
