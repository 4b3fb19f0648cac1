// DarshanRegionReader: the decompressed bytes of one region of a Darshan log (the job, the name
// records or a module), read in pieces so that memory stays bounded whatever the region's size
// (../shared/docs/darshan-format.md, 2.4).
//
// A region is `len` compressed bytes at `offset`: one or more complete zlib streams back to back
// (ZLIB, every MPI rank writes its own), one or more bzip2 streams (BZIP2), or raw bytes (NONE).
// After a stream ends the next one starts, until the region's bytes are used up. A stream that is
// cut short, corrupt, or followed by bytes that are not a stream is an error naming the file, the
// region and the byte offset in the file.
//
// Thread-safety: one reader per thread.
#pragma once

#include <bzlib.h>
#include <zlib.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "store/file.h"
#include "store/result.h"

namespace xtfq {

enum class DarshanCompression : uint8_t { kZlib = 0, kBzip2 = 1, kNone = 2 };

class DarshanRegionReader {
 public:
  // `what` names the region in errors ("POSIX module", "record table", ...).
  DarshanRegionReader(File& file, DarshanCompression comp, uint64_t offset, uint64_t len, std::string what);
  ~DarshanRegionReader();
  DarshanRegionReader(const DarshanRegionReader&) = delete;
  DarshanRegionReader& operator=(const DarshanRegionReader&) = delete;

  // Fills `out` as far as the region goes; returns the bytes produced (fewer only at the end, 0
  // once the region is used up).
  Result<size_t> Read(std::span<std::byte> out);
  // Reads exactly out.size() bytes; an error saying what was being read when the region ends first.
  Status ReadExact(std::span<std::byte> out, std::string_view item);
  // Replaces `out` with the next `bytes` bytes, growing it a megabyte at a time, so that a damaged
  // count in a record costs no more memory than the region really holds.
  Status ReadGrowing(std::vector<std::byte>& out, size_t bytes, std::string_view item);
  // The whole rest of the region.
  Result<std::vector<std::byte>> ReadAll();
  // Bytes produced so far (offset in the decompressed region).
  uint64_t produced() const { return produced_; }
  // The next byte of the file to be read (how far the compressed input has been taken in).
  uint64_t file_position() const { return pos_; }
  const std::string& what() const { return what_; }
  // "FILE: WHAT at byte OFFSET: message": OFFSET is where in the file the reader is.
  Error Fail(std::string_view message) const;

 private:
  Status Refill();
  Status StartStream();
  void EndStream();

  File& file_;
  DarshanCompression comp_;
  uint64_t begin_, end_;  // the region's compressed bytes in the file
  uint64_t pos_;          // next file byte to read into in_
  std::string what_;
  std::vector<std::byte> in_;
  size_t in_used_ = 0, in_size_ = 0;
  bool in_stream_ = false;  // a stream is started and not ended
  z_stream z_{};
  bz_stream bz_{};
  uint64_t produced_ = 0;
};

}  // namespace xtfq
