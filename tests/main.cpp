// The single doctest binary: every *_test.cpp of every layer and the cross-layer tests here.
// Exits 0 when every selected case passed, 1 when one failed, and kSkipExitCode (77) when none
// failed but some skipped (tests/shared_data.h), which CTest reports as skipped.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "tests/shared_data.h"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int status = context.run();
  if (context.shouldExit() || status != 0) return status;
  if (const int skipped = xtfq::test::SkipCount(); skipped > 0) {
    std::fprintf(stderr, "xtfq_tests: %d test case%s skipped (see their messages); exit status %d\n", skipped,
                 skipped == 1 ? "" : "s", xtfq::test::kSkipExitCode);
    return xtfq::test::kSkipExitCode;
  }
  return 0;
}
