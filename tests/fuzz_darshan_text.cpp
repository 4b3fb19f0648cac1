// libFuzzer entry point for darshan-parser text (built by the `fuzz` preset with clang):
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build-fuzz/fuzz_darshan_text -max_len=131072 tests/fuzz/darshan_text
// Every crasher goes into tests/fuzz/darshan_text/, which the ordinary test run replays. The
// seeds are `xtfq dump` of small generated logs (one with NaN, infinite and 1e308 counters) and
// the darshan_log seeds' text. An accepted text whose store fails `xtfq check` is a crash here.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "tests/darshan_text_fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (xtfq::test::FuzzDarshanText(data, size).problems != 0) std::abort();
  return 0;
}
