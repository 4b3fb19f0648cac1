// One fault sweep for every scenario that writes a store (docs/testing.md, "Fault sweeps"): the
// scenario runs once clean, counting its file calls, then once for every call n it makes and every
// failure mode asked (EIO at call n, a torn write at call n, a device gone for good from call n) on
// a fresh in-memory disk. Each failed run must end in an error value, and the scenario's own check
// is handed the disk with the generation that must survive: the commits whose superblock write was
// followed by its sync before call n, or the next one as well when call n was that sync.
//
// A scenario is a function (disk, plan) -> Outcome, where Outcome has `status` (the first error,
// or Ok) and `log` (every file call made, across reopens); the check is a function
// (disk, outcome, SweepPoint).
//
// Thread-safety: one sweep per thread; it runs the scenario on the calling thread.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "store/fault_file.h"
#include "store/format.h"
#include "store/mem_file.h"
#include "tests/why.h"

namespace xtfq::test {

enum class FaultMode { kEio = 0, kTorn = 1, kGone = 2 };

// One failed run: its call and mode, and the generation that must have survived.
struct SweepPoint {
  uint64_t call = 0;
  FaultMode mode = FaultMode::kEio;
  uint64_t generation = 0;  // committed before call n (0: none, the store may be absent)
  bool maybe_next = false;  // call n was the sync after a superblock write: the next one may have landed
};

// The plan that fails call n in `mode`.
inline FaultFile::Plan PlanFor(uint64_t n, FaultMode mode) {
  FaultFile::Plan plan;
  plan.fail_call = n;
  plan.torn = mode == FaultMode::kTorn;
  plan.fail_after = mode == FaultMode::kGone;
  plan.seed = n * 3 + static_cast<uint64_t>(mode);
  return plan;
}

// A superblock write: a whole superblock at one of the two slots of a store of `page_size` pages.
inline bool IsSuperblockWrite(const FaultFile::Call& c, uint32_t page_size) {
  return c.op == FaultFile::Op::kWrite && (c.offset == 0 || c.offset == page_size) && c.size == format::kSuperblockSize;
}

// The generation that survives a failure at call n, from the run's call log.
inline SweepPoint Survivor(const std::vector<FaultFile::Call>& log, uint64_t n, FaultMode mode, uint32_t page_size) {
  SweepPoint p{n, mode, 0, false};
  for (uint64_t i = 1; i + 1 < n && i < log.size(); ++i) {
    if (IsSuperblockWrite(log[i - 1], page_size) && log[i].op == FaultFile::Op::kSync) ++p.generation;
  }
  p.maybe_next =
      n >= 2 && n <= log.size() && IsSuperblockWrite(log[n - 2], page_size) && log[n - 1].op == FaultFile::Op::kSync;
  return p;
}

// Runs `scenario` clean (which must succeed and make more than `min_calls` calls), then failed at
// every call in every mode of `modes`; `check` judges each failed run. Returns the clean run's
// outcome.
template <class Scenario, class Check>
auto SweepFaults(uint32_t page_size, const std::vector<FaultMode>& modes, uint64_t min_calls, Scenario&& scenario,
                 Check&& check) {
  const auto clean = scenario(std::make_shared<MemDisk>(), FaultFile::Plan{});
  REQUIRE_MESSAGE(clean.status.ok(), Why(clean.status));
  const uint64_t total = clean.log.size();
  MESSAGE("the scenario makes " << total << " file calls");
  REQUIRE(total > min_calls);
  uint64_t failed = 0;
  for (uint64_t n = 1; n <= total; ++n) {
    for (FaultMode mode : modes) {
      CAPTURE(n);
      CAPTURE(static_cast<int>(mode));
      auto disk = std::make_shared<MemDisk>();
      const auto o = scenario(disk, PlanFor(n, mode));
      REQUIRE_FALSE(o.status.ok());
      ++failed;
      check(disk, o, Survivor(o.log, n, mode, page_size));
    }
  }
  CHECK(failed == modes.size() * total);
  return clean;
}

}  // namespace xtfq::test
