// DarshanCounterRecord and DarshanCounterDecoder: one record of a fixed-size Darshan module
// (POSIX, MPI-IO, STDIO, H5F, H5D, PNETCDF_FILE, PNETCDF_VAR, BG/Q, DFS, DAOS), decoded from the log's
// byte order and record version and up-converted to the current version as darshan-util does
// (../shared/docs/darshan-format.md, section 4): counters set by up-conversion are -1 (0 for
// POSIX_RENAMED_FROM and H5D_FILE_REC_ID), and a POSIX record loses what darshan-util's
// up-conversion loses (the last 16 bytes of a v3 record, the last 32 of a v2 one, read back as 0).
//
// Thread-safety: value types; a decoder is immutable.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "importers/darshan/darshan_log.h"

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
  // of files opened with fopen). With `parser_quirks`, the values are those darshan-util reads
  // (and darshan-parser prints), slips of its byte swap included, which only big-endian logs
  // show: the fopen test of POSIX v1 looks at the unswapped count; POSIX v1-v3 records keep
  // F_META_TIME, F_MAX_READ_TIME and F_MAX_WRITE_TIME unswapped;
  // PNETCDF_FILE v1-v2 FILE_OPENS is the sum of the unswapped INDEP_OPENS and COLL_OPENS; H5D
  // FILE_REC_ID stays unswapped when the log's H5F version is below 2. Without it, the values the
  // runtime wrote. The importer asks for darshan-util's, so that a binary log and its
  // darshan-parser text import the same values (docs/signals.md).
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
  uint32_t skip_ = 0;               // bytes between the base record and the counters (BG/Q v1)
  uint32_t tail_ = 0;               // bytes after the counters (DFS, DAOS)
  uint32_t ints_ = 0, floats_ = 0;  // as stored
  bool file_rec_ = false;           // a file record id follows the base record (as stored)
};

}  // namespace xtfq
