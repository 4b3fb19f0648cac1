// DarshanDxtReader: the records of a DXT_POSIX or DXT_MPIIO module region, one at a time
// (../shared/docs/darshan-format.md, 4.7): the 104-byte file record (id, rank, hostname, write
// and read counts), then its segments, writes first, then reads. Segments are 40 bytes with a
// pthread id (DXT_POSIX v2, DXT_MPIIO v3) or 32 without; DXT_MPIIO v1 offsets are -1, as
// darshan-util reports them. One record's segments are held at a time (as darshan-util holds
// them), read a megabyte at a time, so a damaged count costs no more memory than the region has.
//
// Thread-safety: one reader per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "importers/darshan/darshan_log.h"

namespace xtfq {

struct DxtSegment {
  int64_t offset = 0, length = 0;
  double start = 0, end = 0;
  uint64_t thread = 0;  // 0 when the version has none
};

struct DxtRecord {
  uint64_t id = 0;
  int64_t rank = 0;
  std::string hostname;
  int64_t writes = 0, reads = 0;
  std::vector<DxtSegment> segments;  // writes, then reads
};

class DarshanDxtReader {
 public:
  static constexpr int kPosixSlot = 10, kMpiioSlot = 11;
  // REQUIRES: slot is kPosixSlot or kMpiioSlot.
  DarshanDxtReader(DarshanLog& log, int slot);
  bool has_thread() const { return has_thread_; }
  // The next record; false at the end of the region.
  Result<bool> Next(DxtRecord& out);
  // The region reader (for errors that name where it is).
  const DarshanRegionReader& region() const { return *reader_; }

 private:
  DarshanLog& log_;
  bool posix_;
  uint32_t version_;
  bool has_thread_;
  std::unique_ptr<DarshanRegionReader> reader_;
  std::vector<std::byte> raw_;
};

}  // namespace xtfq
