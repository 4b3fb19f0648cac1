// DarshanPerf: Darshan's aggregate performance of a log, per module, as `darshan-parser --perf` and
// `--file` print it and PyDarshan's job_stats reports it (agg_perf_by_slowest, its times, the
// slowest rank, the file counts), read from darshan/<log>/perf (docs/format.md, "Darshan's
// aggregate performance"), where the import stored what darshan-util's accumulator computes.
// It covers the whole run: darshan-util has no such figure for a window.
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "layouts/darshan_module_perf.h"
#include "query/core/store_reader.h"
#include "query/darshan/darshan_logs.h"

namespace xtfq {

struct DarshanModulePerfAnswer {
  std::string module;  // as darshan-parser names it: POSIX, MPI-IO, STDIO, DFS, DAOS
  DarshanModulePerf perf;
};

struct DarshanPerfAnswer {
  // false: the store was written before the import kept these figures (re-import the log).
  bool kept = false;
  // The log was imported from darshan-parser text: counts and bytes are exact, times and rates
  // are computed from six-decimal times (estimates, off in the last digits).
  bool from_text = false;
  std::vector<DarshanModulePerfAnswer> modules;  // in slot order

  // The module's figures, if the log has them.
  const DarshanModulePerf* Find(std::string_view module) const;
};

class DarshanPerf {
 public:
  static Result<DarshanPerfAnswer> Read(StoreReader& reader, const DarshanLogInfo& info);
  // What to say when the figures are not kept: which store, and how to get them.
  static std::string NotKept(const DarshanLogInfo& info);
};

}  // namespace xtfq
