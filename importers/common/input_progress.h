// InputProgress: an import's advance through its input files, told to a Progress (store/progress.h)
// as bytes read of all the inputs' bytes: the files done, and the position in the current one.
// Importers call Begin for each file and At as they read it (cheap: it only forwards every 1 MiB).
//
// Thread-safety: one import's thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/progress.h"

namespace xtfq {

class InputProgress {
 public:
  // `progress` nullptr: every call does nothing.
  InputProgress(Progress* progress, const std::vector<std::string>& inputs);
  void Begin(const std::string& input);
  void At(uint64_t position);  // bytes of the current input read
  void End();                  // the current input read whole

 private:
  void Tell();
  Progress* progress_;
  uint64_t total_ = 0, done_ = 0, current_size_ = 0, position_ = 0, told_ = 0;
  size_t count_ = 0, index_ = 0;
  std::string phase_;
};

}  // namespace xtfq
