#include "importers/common/line_reader.h"

#include <fmt/format.h>

#include <cstring>

namespace xtfq {

Result<bool> LineReader::Next(std::string& line) {
  std::string_view view;
  XTFQ_ASSIGN_OR_RETURN(bool more, Next(view));
  line.assign(view);
  return more;
}

Result<bool> LineReader::Next(std::string_view& line) {
  spill_.clear();
  auto too_long = [&] {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: line {}: longer than {} bytes", f_.name(), number_ + 1, max_line_));
  };
  for (;;) {
    if (pos_ == len_) {
      if (eof_) return false;
      if (!buf_) buf_ = std::make_unique_for_overwrite<char[]>(chunk_);
      XTFQ_ASSIGN_OR_RETURN(size_t got, f_.ReadAt(off_, std::span(reinterpret_cast<std::byte*>(buf_.get()), chunk_)));
      len_ = got;
      off_ += got, pos_ = 0;
      if (got == 0) {
        eof_ = true;
        if (spill_.empty()) return false;
        ++number_;
        line = spill_;
        return true;
      }
    }
    const char* start = buf_.get() + pos_;
    const void* nl = std::memchr(start, '\n', len_ - pos_);
    const size_t n = nl == nullptr ? len_ - pos_ : static_cast<size_t>(static_cast<const char*>(nl) - start);
    pos_ += n;
    if (nl != nullptr && spill_.empty()) {
      // The whole line is in the buffer: no copy.
      if (n > max_line_) return too_long();
      ++pos_;
      ++number_;
      line = std::string_view(start, n);
      return true;
    }
    spill_.append(start, n);
    if (spill_.size() > max_line_) return too_long();
    if (nl != nullptr) {
      ++pos_;
      ++number_;
      line = spill_;
      return true;
    }
  }
}

}  // namespace xtfq
