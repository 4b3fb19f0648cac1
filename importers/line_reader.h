// LineReader: the lines of a File, read a megabyte at a time (darshan-parser text, job_stats
// captures). A line longer than the limit is an error naming the file and the line number.
//
// Thread-safety: one reader per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "store/file.h"

namespace xtfq {

class LineReader {
 public:
  explicit LineReader(File& f, size_t max_line = size_t{16} << 20) : f_(f), max_line_(max_line) {}
  // The next line without its newline; false at the end.
  Result<bool> Next(std::string& line);
  // The number of the line Next() returned last (from 1).
  uint64_t number() const { return number_; }

 private:
  File& f_;
  size_t max_line_;
  static constexpr size_t kChunk = size_t{1} << 20;
  std::unique_ptr<char[]> buf_;  // kChunk bytes, not zeroed (a small file's snapshot touches only its own)
  size_t len_ = 0, pos_ = 0;     // bytes in buf_, and the next one to read
  uint64_t off_ = 0, number_ = 0;
  bool eof_ = false;
};

}  // namespace xtfq
