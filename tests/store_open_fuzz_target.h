// The store-opening fuzz target: any bytes, taken as a store file, are opened, checked and read
// through a one-page cache. It must never crash, hang or read out of bounds, whatever the bytes;
// errors are the expected outcome for almost all inputs. tests/fuzz_store_open.cpp runs it under
// libFuzzer; fuzz_regression_test.cpp replays every kept input with the ordinary tests.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xtfq::test {

// Returns the number of records read (for the regression test to report).
uint64_t FuzzStoreOpen(const uint8_t* data, size_t size);

}  // namespace xtfq::test
