// FuzzDarshanText: one libFuzzer input as darshan-parser text (the output of darshan-parser, with
// or without --show-incomplete): imported into an in-memory store, committed, reopened and
// checked. A text the importer accepts must give a store that `xtfq check` passes, so the
// checker's problems are returned for the caller to treat as a failure (the fuzz entry point
// aborts on them; the regression test checks there are none).
#pragma once

#include <cstddef>
#include <cstdint>

namespace xtfq::test {

struct DarshanTextFuzzOutcome {
  bool imported = false;  // the importer accepted the text
  uint64_t records = 0;   // counter records imported
  size_t problems = 0;    // what StoreChecker found in the committed store (must be 0)
};

DarshanTextFuzzOutcome FuzzDarshanText(const uint8_t* data, size_t size);

}  // namespace xtfq::test
