// Replays every input kept under tests/fuzz/ through its fuzz target: crashers found by libFuzzer
// stay fixed, and the seed stores still open.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "tests/darshan_log_fuzz_target.h"
#include "tests/darshan_text_fuzz_target.h"
#include "tests/jobstats_fuzz_target.h"
#include "tests/store_open_fuzz_target.h"

namespace xtfq::test {
namespace {

// Replays every input in tests/fuzz/<name>; returns what `target` returned for the seed-* inputs.
template <class Target>
uint64_t Replay(const char* name, Target target, size_t& inputs) {
  const std::filesystem::path dir = std::filesystem::path(XTFQ_SOURCE_DIR) / "tests/fuzz" / name;
  REQUIRE(std::filesystem::is_directory(dir));
  uint64_t seeds = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const uint64_t n = target(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    if (e.path().filename().string().rfind("seed-", 0) == 0) seeds += n;
    ++inputs;
  }
  return seeds;
}

TEST_CASE("fuzz regression: every kept darshan_log input runs without a crash") {
  size_t inputs = 0;
  CHECK(Replay("darshan_log", FuzzDarshanLog, inputs) > 0);  // the seed logs are valid
  MESSAGE(inputs << " inputs replayed");
  CHECK(inputs >= 3);
}

TEST_CASE("fuzz regression: every kept darshan_text input runs without a crash, and what imports passes check") {
  size_t inputs = 0;
  const uint64_t records = Replay(
      "darshan_text",
      [](const uint8_t* data, size_t size) -> uint64_t {
        const DarshanTextFuzzOutcome r = FuzzDarshanText(data, size);
        CHECK(r.problems == 0);
        return r.imported ? r.records : 0;
      },
      inputs);
  CHECK(records > 0);  // the seeds are darshan-parser text with counter records
  MESSAGE(inputs << " inputs replayed");
  CHECK(inputs >= 3);
}

TEST_CASE("fuzz regression: every kept jobstats input runs without a crash") {
  size_t inputs = 0;
  CHECK(Replay("jobstats", FuzzJobStats, inputs) > 0);  // the seeds hold entries
  MESSAGE(inputs << " inputs replayed");
  CHECK(inputs >= 7);
}

TEST_CASE("fuzz regression: every kept store_open input runs without a crash") {
  size_t inputs = 0;
  CHECK(Replay("store_open", FuzzStoreOpen, inputs) > 0);  // the seed stores are valid and hold records
  MESSAGE(inputs << " inputs replayed");
  CHECK(inputs >= 1);
}

}  // namespace
}  // namespace xtfq::test
