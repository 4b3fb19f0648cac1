// libFuzzer entry point for reading a Darshan log (built by the `fuzz` preset with clang):
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build-fuzz/fuzz_darshan_log -max_len=65536 tests/fuzz/darshan_log
// Every crasher goes into tests/fuzz/darshan_log/, which the ordinary test run replays. The seeds
// are written by tests/fuzz/make_darshan_seeds.py.
#include <cstddef>
#include <cstdint>

#include "tests/darshan_log_fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xtfq::test::FuzzDarshanLog(data, size);
  return 0;
}
