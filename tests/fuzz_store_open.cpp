// libFuzzer entry point for opening a store (built by the `fuzz` preset with clang):
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build-fuzz/fuzz_store_open -max_len=65536 tests/fuzz/store_open
// Every crasher goes into tests/fuzz/store_open/, which the ordinary test run replays.
#include <cstddef>
#include <cstdint>

#include "tests/store_open_fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xtfq::test::FuzzStoreOpen(data, size);
  return 0;
}
