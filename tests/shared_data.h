// Skipping and requiring ../shared: the real data under XTFQ_SHARED_DIR (the Darshan corpus,
// job_stats captures) and the shared benchmark generator. A test case that needs something there
// and finds it absent calls SharedAbsent (or SharedMissing for a path) and returns: with
// XTFQ_REQUIRE_SHARED=1 in the environment (CI, which always has ../shared) that is a failure
// naming what is absent; otherwise the case is counted as skipped and says why. Skip counts a case
// that skips for any other reason (the sanitizer build). tests/main.cpp exits with
// kSkipExitCode when a run skipped something and nothing failed, and CMakeLists.txt gives CTest
// that code as SKIP_RETURN_CODE, so ctest lists and counts skipped cases.
//
// Thread-safety: call from the test case's thread (doctest's MESSAGE and FAIL are not for other
// threads); the count itself is atomic.
#pragma once

#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <source_location>
#include <string>
#include <string_view>

namespace xtfq::test {

// The exit status of a test run that skipped at least one case and failed none (automake's and
// CTest's convention for "skipped").
constexpr int kSkipExitCode = 77;

// Test cases of this run that skipped (each call of Skip or SharedAbsent counts once).
inline std::atomic<int>& SkipCount() {
  static std::atomic<int> count{0};
  return count;
}

// True when XTFQ_REQUIRE_SHARED is set to anything but "" or "0".
inline bool SharedRequired() {
  const char* v = std::getenv("XTFQ_REQUIRE_SHARED");
  return v != nullptr && std::string_view(v) != "" && std::string_view(v) != "0";
}

// Counts the current test case as skipped and prints "skipped: WHY" at the caller's line; the
// caller returns.
inline void Skip(const std::string& why, std::source_location where = std::source_location::current()) {
  ++SkipCount();
  ADD_MESSAGE_AT(where.file_name(), static_cast<int>(where.line()), "skipped: " << why);
}

// Something of ../shared that the current test case needs is absent (WHAT says what, with its
// path): fails the case under XTFQ_REQUIRE_SHARED=1 (ending it), else skips it. The caller returns.
inline void SharedAbsent(const std::string& what, std::source_location where = std::source_location::current()) {
  if (SharedRequired())
    ADD_FAIL_AT(where.file_name(), static_cast<int>(where.line()), "XTFQ_REQUIRE_SHARED=1 but " << what);
  Skip(what, where);
}

// Returns true, after SharedAbsent("PATH is absent"), when PATH does not exist; the caller then
// returns.
inline bool SharedMissing(const std::filesystem::path& path,
                          std::source_location where = std::source_location::current()) {
  if (std::filesystem::exists(path)) return false;
  SharedAbsent(path.string() + " is absent", where);
  return true;
}

}  // namespace xtfq::test
