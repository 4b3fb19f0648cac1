// DarshanCounterRecord and DarshanCounterDecoder: one record of a fixed-size Darshan module
// (POSIX, MPI-IO, STDIO, H5F, H5D, PNETCDF_FILE, PNETCDF_VAR, BG/Q, DFS, DAOS), decoded from the log's
// byte order and record version and up-converted to the current version as darshan-util does
// (../shared/docs/darshan-format.md, section 4): counters set by up-conversion are -1 (0 for
// POSIX_RENAMED_FROM and H5D_FILE_REC_ID).
//
// Thread-safety: value types; a decoder is immutable.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "importers/darshan_log.h"

namespace xtfq {

struct DarshanCounterRecord {
  uint64_t id = 0;
  int64_t rank = 0;
  std::vector<int64_t> ints;    // the current version's int counters, in order
  std::vector<double> floats;   // its float counters, in order
  uint64_t file_rec_id = 0;     // H5D and PNETCDF_VAR: the record id of the file
  std::vector<std::byte> tail;  // DFS: pool and container UUIDs; DAOS: those, then the OID (hi, lo)
};

class DarshanCounterDecoder {
 public:
  // The decoder of module slot `slot` of `log` at its record version; kInvalidArgument for a
  // module that is not fixed-size, kCorrupt for a version this build does not know.
  static Result<DarshanCounterDecoder> For(const DarshanLog& log, int slot);

  uint32_t record_bytes() const { return bytes_; }
  // Decodes one record of record_bytes(); false when darshan-util drops it (POSIX v1 records
  // of files opened with fopen). With `parser_quirks`, big-endian POSIX v1-v3 records keep
  // darshan-util's unswapped F_META_TIME, F_MAX_READ_TIME and F_MAX_WRITE_TIME.
  bool Decode(const std::byte* raw, DarshanCounterRecord& out, bool parser_quirks) const;
  // Reads the next record that darshan-util keeps from `reader` (the module's region) into `out`,
  // using `raw` as the buffer; false at the end of the region. An error when the region ends
  // inside a record.
  Result<bool> Next(DarshanRegionReader& reader, std::vector<std::byte>& raw, DarshanCounterRecord& out,
                    bool parser_quirks) const;

 private:
  const DarshanLog* log_ = nullptr;
  int slot_ = 0;
  uint32_t version_ = 0;
  uint32_t bytes_ = 0;
  uint32_t skip_ = 0;   // bytes between the base record and the counters (BG/Q v1)
  uint32_t tail_ = 0;   // bytes after the counters (DFS, DAOS)
  uint32_t ints_ = 0, floats_ = 0;  // as stored
  bool file_rec_ = false;           // a file record id follows the base record (as stored)
};

}  // namespace xtfq
