// The single doctest binary: every *_test.cpp of every layer and the cross-layer tests here.
// Exits 0 when every selected case passed, 1 when one failed, and kSkipExitCode (77) when none
// failed but some skipped (tests/shared_data.h), which CTest reports as skipped.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <atomic>
#include <cstdio>
#include <string_view>

#include "tests/shared_data.h"

namespace {

// Counts the test cases that start, so that a run selecting none fails: CTest splits a name at a
// ';', and a filter that matches nothing would otherwise pass having run nothing.
std::atomic<int> g_started{0};

struct StartCounter : doctest::IReporter {
  explicit StartCounter(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override { ++g_started; }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
DOCTEST_REGISTER_LISTENER("start_counter", 1, StartCounter);

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int status = context.run();
  if (context.shouldExit() || status != 0) return status;
  bool filtered = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a(argv[i]);
    filtered = filtered || a.starts_with("--test-case=") || a.starts_with("-tc=");
  }
  if (filtered && g_started == 0) {
    std::fprintf(stderr,
                 "xtfq_tests: no test case matches the --test-case filter (a ';' in a test's name splits "
                 "it in CTest)\n");
    return 1;
  }
  if (const int skipped = xtfq::test::SkipCount(); skipped > 0) {
    std::fprintf(stderr, "xtfq_tests: %d test case%s skipped (see their messages); exit status %d\n", skipped,
                 skipped == 1 ? "" : "s", xtfq::test::kSkipExitCode);
    return xtfq::test::kSkipExitCode;
  }
  return 0;
}
