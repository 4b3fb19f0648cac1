// FuzzJobStats: one libFuzzer input as a job_stats snapshot: parsed, then imported twice into an
// in-memory store (the second time as the next collection, so rates are taken against the
// first). Returns the entries read (the regression test checks that the seeds have some).
#pragma once

#include <cstddef>
#include <cstdint>

namespace xtfq::test {

uint64_t FuzzJobStats(const uint8_t* data, size_t size);

}  // namespace xtfq::test
