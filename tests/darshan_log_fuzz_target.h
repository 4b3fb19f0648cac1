// The fuzz target for reading a Darshan log, shared by the libFuzzer binary (fuzz_darshan_log) and
// the regression test that replays kept inputs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xtfq::test {

// Opens `data` as a Darshan log, renders both dumps and decompresses every module region; returns
// the bytes decoded (0 when the log is refused).
uint64_t FuzzDarshanLog(const uint8_t* data, size_t size);

}  // namespace xtfq::test
