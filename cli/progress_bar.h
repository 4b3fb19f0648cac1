// ProgressBar: draws a Progress (store/progress.h) on stderr as one line redrawn in place: the
// phase, a bar, the share done, the rate and the time left ("import: reading x.darshan
// [########------------]  41%  312 MB/s  ETA 0:12"). It draws only when stderr is a terminal and
// not --quiet, only once the operation has run 2 s (short imports print nothing), at most five
// times a second; Finish() clears the line before the summary lines.
//
// Thread-safety: one thread (the operation's).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "store/progress.h"

namespace xtfq::cli {

class ProgressBar final : public Progress {
 public:
  // `command` names the line ("import"); `enabled` false: draws nothing.
  ProgressBar(std::string command, bool enabled);
  ~ProgressBar() override { Finish(); }
  void Update(std::string_view phase, uint64_t done, uint64_t total, std::string_view unit) override;
  void Finish() override;

  // The line for these values, without escapes: `rate` in units per second (0: not known yet).
  static std::string Line(std::string_view command, std::string_view phase, uint64_t done, uint64_t total,
                          std::string_view unit, double rate);
  // Whether stderr is a terminal (the default for `enabled`).
  static bool StderrIsTerminal();

 private:
  using Clock = std::chrono::steady_clock;
  std::string command_, phase_;
  bool enabled_, drawn_ = false;
  Clock::time_point start_ = Clock::now(), phase_start_ = start_, last_draw_{};
  uint64_t phase_done0_ = 0;
};

}  // namespace xtfq::cli
