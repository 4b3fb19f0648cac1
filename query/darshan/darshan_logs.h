// DarshanLogs: the Darshan logs of a store (docs/format.md, "Darshan layout"): the darshan.logs
// records decoded, and each log's source (the binary log or darshan-parser text it was imported
// from) as a read-only File, read chunk by chunk through the page cache (one descent of the
// darshan.source tree per chunk), so that DarshanLog and the dumps work on a store as on a file.
//
// Thread-safety: one thread at a time (the files share the reader's cache).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "layouts/darshan_layout.h"
#include "query/core/store_reader.h"
#include "store/file.h"

namespace xtfq {

struct DarshanLogInfo {
  int64_t log = 0, job = 0, uid = 0, start_sec = 0, start_nsec = 0, end_sec = 0, end_nsec = 0, nprocs = 0;
  int64_t format_minor = 0;
  uint64_t partial = 0;
  DarshanLayout::SourceKind source = DarshanLayout::SourceKind::kBinary;
  uint64_t source_bytes = 0;
  std::string exe, metadata, mounts, file;
  // (set by Find, not by List) The latest time the log's data reaches, ns from the job's start: the last DXT segment's
  // start; without DXT, when the header's run is not positive (start and end in the same second, or a killed job's end
  // of 0), the end of the last HEATMAP bin or counter record's reads and writes. Darshan's header times are whole
  // seconds (3.41 adds ns), so a short run's header may say 0 s while its data spans a fraction of a second; the log's
  // time frame reaches this far.
  int64_t data_last = 0;
};

class DarshanLogs {
 public:
  // The logs of `reader`'s store, in import order (none when it has no darshan.logs array).
  static Result<std::vector<DarshanLogInfo>> List(StoreReader& reader);
  // The log whose number is `log`, or the one log with job id `job`; an error that lists the logs
  // when there is no such log or the job id is ambiguous.
  static Result<DarshanLogInfo> Find(StoreReader& reader, std::optional<int64_t> log, std::optional<int64_t> job);
  // The name records of `info` by record id (empty when it has none).
  static Result<std::unordered_map<uint64_t, std::string>> Names(StoreReader& reader, const DarshanLogInfo& info);
  // What in the header of `info` cannot be right, each as a phrase ("4427712942739450220 processes (more than
  // 2^24)", "an end time before its start (run -1660838432 s)", no end time): a damaged or mislabelled header (a dev
  // snapshot's job struct) or a killed job's log (end time 0). darshan-parser prints these values as they are,
  // and so do `dump` and `info`, with these doubts beside them.
  static std::vector<std::string> HeaderDoubts(const DarshanLogInfo& info);
  // The run time darshan-parser prints ("# run time:"), seconds: end - start with the nanoseconds for
  // format 3.41, end - start + 1 whole seconds before it (darshan-util counts both ends' seconds).
  static double RunSeconds(const DarshanLogInfo& info);
  // Of POSIX, MPI-IO and STDIO (the modules a window or grid is answered for), those the log has
  // data of (counter records, DXT segments or HEATMAP bins), in that order.
  static std::vector<std::string> WindowModules(StoreReader& reader, const DarshanLogInfo& info);
  // `given` when not empty; else POSIX, or when the log has no POSIX data the first module it has
  // (with `note` saying so); POSIX when it has none (the answer then says what it lacks).
  static std::string ChooseModule(StoreReader& reader, const DarshanLogInfo& info, const std::string& given,
                                  std::string* note);
  // The modules of a log whose partial flag is set ("slot N" for an unnamed one).
  static std::vector<std::string> PartialModules(const DarshanLogInfo& log);
  // The source of `info` as a File (writes fail).
  static Result<std::unique_ptr<File>> Source(StoreReader& reader, const DarshanLogInfo& info);
};

}  // namespace xtfq
