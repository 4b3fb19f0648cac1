// ProcessWindow: `--ranks R1:R2`, the half-open process range [R1, R2) of a window (a process is
// a rank for Darshan and events, a target for job_stats; docs/glossary.md). Either side may be
// empty (`:R2`, `R1:`, `:`). Integers only; malformed or reversed is ErrorCode::kUsage.
//
// Thread-safety: value type and pure function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "store/result.h"

namespace xtfq {

struct ProcessWindow {
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  bool all() const { return lo == INT64_MIN && hi == INT64_MAX; }

  // `what` names the option in messages ("--ranks").
  static Result<ProcessWindow> Parse(std::string_view text, std::string_view what = "--ranks");
};

}  // namespace xtfq
