// DarshanWindowReport: `xtfq query STORE` on a store of Darshan logs: the windowed signals of
// DarshanWindow printed as text, JSON or CSV (docs/cli.md, "query on Darshan logs").
//
// Thread-safety: stateless.
#pragma once

#include <string>

#include "query/darshan_window.h"

namespace xtfq::cli {

struct DarshanWindowRequest {
  std::string time = ":";  // seconds from the job's start, T1:T2 (either side may be empty)
  std::string ranks;       // R1:R2
  std::string module = "POSIX";
  std::string file_glob;
  std::optional<int64_t> log, job;
  bool per_rank = false, per_file = false, scan = false;
  std::string format = "text";
};

class DarshanWindowReport {
 public:
  static Result<std::string> Render(StoreReader& reader, const DarshanWindowRequest& request);
};

}  // namespace xtfq::cli
