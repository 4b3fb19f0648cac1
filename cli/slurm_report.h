// SlurmReport: renders a SlurmWindow (query/slurm/slurm_window_query.h) as text (a table per kind of
// series), JSON (ResultJson) or CSV (one row per group, the kind first).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "query/slurm/slurm_window_query.h"

namespace xtfq::cli {

class SlurmReport {
 public:
  static std::string Window(const SlurmWindow& w, const std::vector<SlurmKey>& by, const std::string& format);
};

}  // namespace xtfq::cli
