// libFuzzer entry point for job_stats snapshots (built by the `fuzz` preset with clang):
//   cmake --preset fuzz && cmake --build --preset fuzz
//   build-fuzz/fuzz_jobstats -max_len=65536 tests/fuzz/jobstats
// Every crasher goes into tests/fuzz/jobstats/, which the ordinary test run replays. The seeds
// are small `xtfq gen jobstats` snapshots of each variant and hand-written edge cases.
#include <cstddef>
#include <cstdint>

#include "tests/jobstats_fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xtfq::test::FuzzJobStats(data, size);
  return 0;
}
