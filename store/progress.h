// Progress: what a long operation (an import, building grid summaries) tells of its advance, for
// a display the command line draws (cli/ProgressBar). The operation calls Update as often as it
// likes; the display decides what to draw and when.
//
// Thread-safety: called from the operation's thread only.
#pragma once

#include <cstdint>
#include <string_view>

namespace xtfq {

class Progress {
 public:
  virtual ~Progress() = default;
  // In `phase` ("reading x.darshan", "grid summaries"), `done` of `total` `unit`s ("B", "arrays");
  // `total` 0: not known.
  virtual void Update(std::string_view phase, uint64_t done, uint64_t total, std::string_view unit) = 0;
  // The phase is over: a display clears itself before what is printed next.
  virtual void Finish() {}
};

}  // namespace xtfq
