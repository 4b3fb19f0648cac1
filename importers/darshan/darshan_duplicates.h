// DarshanDuplicates: whether a Darshan input is, byte for byte, a log the store already holds (the
// source kept in darshan.source for `dump`) or an input taken earlier in the same import. Importing
// it again would count its run twice in every job and window answer, so the importer skips it and
// says so (`import --keep-duplicates` takes it anyway).
//
// Only inputs of the same size as an earlier log are compared, chunk by chunk: a store of many
// logs is not read for an input that matches none of them.
//
// A log of other bytes whose header names the same run as an earlier one (job id, uid, start and
// end seconds, processes and executable: the binary log and its darshan-parser text, or a copy
// rewritten by darshan-convert) is imported, and SameRun names the earlier log for a warning.
//
// Thread-safety: one import at a time (reads `existing`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "importers/darshan/darshan_record_writer.h"
#include "store/record_source.h"
#include "store/result.h"

namespace xtfq {

class DarshanDuplicates {
 public:
  struct Earlier {
    int64_t log = 0;
    std::string file;  // the file it was imported from
  };
  // The logs `existing` holds (none when it is nullptr or holds no Darshan log).
  static Result<DarshanDuplicates> Load(RecordSource* existing);
  // The earlier log with the same bytes as the file `path`, if there is one.
  Result<std::optional<Earlier>> Find(const std::string& path);
  // The earlier log whose header names the same run as `job` (other than `log` itself), if any.
  std::optional<Earlier> SameRun(int64_t log, const DarshanJob& job) const;
  // Log `log` was imported from the file `path` in this run, its header `job`.
  Status Add(int64_t log, const std::string& path, const DarshanJob& job);

 private:
  struct Log {
    int64_t log = 0;
    uint64_t bytes = 0;
    std::string file;
    bool stored = false;  // its bytes are in darshan.source; otherwise `file` on disk (this run's)
    int64_t job = 0, uid = 0, start_sec = 0, end_sec = 0, nprocs = 0;
    std::string exe;
  };
  Result<bool> SameAsStored(const Log& l, const std::string& path, uint64_t size);
  // Reads darshan.source once: the chunk refs of every kept log (source_refs_).
  Status ReadSourceRefs();

  // A kept log of more chunks than this is not compared (2^24 chunks of the source chunk size).
  static constexpr uint64_t kMaxChunks = uint64_t{1} << 24;

  RecordSource* existing_ = nullptr;
  std::vector<Log> logs_;
  bool source_read_ = false;
  // Per kept log: its source chunks' string refs by chunk number (none where a chunk is missing).
  std::unordered_map<int64_t, std::vector<std::optional<uint64_t>>> source_refs_;
};

}  // namespace xtfq
