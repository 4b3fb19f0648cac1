// DarshanTotal: a module's records aggregated into one as `darshan-parser --total` prints them
// (POSIX, MPI-IO, STDIO, DFS, DAOS), read from darshan/<log>/<MODULE>.total, which the import
// computed over the records in the log's order (importers/darshan/DarshanAccumulator). Whole run.
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "query/core/store_reader.h"
#include "query/darshan/darshan_logs.h"
#include "store/schema.h"

namespace xtfq {

struct DarshanTotal {
  std::string module;
  std::vector<std::pair<std::string, Value>> counters;  // darshan-parser's names and order; i64 or f64

  // nullopt when the store has no such record (no records of the module, a module darshan-util
  // has no accumulator for, or a store written before these records were kept).
  static Result<std::optional<DarshanTotal>> Read(StoreReader& reader, const DarshanLogInfo& info,
                                                  const std::string& module);
};

}  // namespace xtfq
