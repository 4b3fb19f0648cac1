// LineReader: the lines of a File, read a megabyte at a time (darshan-parser text, job_stats
// captures). A line longer than the limit is an error naming the file and the line number.
//
// Thread-safety: one reader per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "store/file.h"

namespace xtfq {

class LineReader {
 public:
  // Reads `chunk` bytes at a time (a reader of a file's first lines asks for less).
  explicit LineReader(File& f, size_t max_line = size_t{16} << 20, size_t chunk = size_t{1} << 20)
      : f_(f), max_line_(max_line), chunk_(chunk) {}
  // The next line without its newline; false at the end.
  Result<bool> Next(std::string& line);
  // The same, as a view that stays valid until the next call (into the read buffer when the line
  // lies in it whole, as nearly every line does: no copy).
  Result<bool> Next(std::string_view& line);
  // The number of the line Next() returned last (from 1).
  uint64_t number() const { return number_; }

 private:
  File& f_;
  size_t max_line_;
  size_t chunk_;
  std::unique_ptr<char[]> buf_;  // chunk_ bytes, not zeroed (a small file's snapshot touches only its own)
  size_t len_ = 0, pos_ = 0;     // bytes in buf_, and the next one to read
  uint64_t off_ = 0, number_ = 0;
  bool eof_ = false;
  std::string spill_;  // a line that runs past the end of the buffer
};

}  // namespace xtfq
