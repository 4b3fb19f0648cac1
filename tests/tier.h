// Test tiers (docs/testing.md, "Tiers"): how large a multi-process or long scenario runs.
//   small   one small instance of each scenario (2 kill moments an import, 16 crashes, a
//           10^4-rank grid): the default of a sanitizer build, whose pass must fit beside the
//           release one
//   full    everything but the stress tier: the default of a release build
//   stress  the full set (50 kill moments an import, 500 crashes, 30 s of load, 10^5 ranks, every
//           byte of the corruption sweep)
// XTFQ_TIER=small|full|stress chooses another tier than the build's default (the CTest presets set
// it); without it, XTFQ_STRESS=1 (as before tiers were named) is the stress tier. An unknown
// XTFQ_TIER is ignored.
//
// A case that only runs from some tier up calls SkipBelow and returns when it says so: below
// that tier the case is counted as skipped and says why (tests/shared_data.h), never passed
// having run nothing.
//
// Thread-safety: CurrentTier reads the environment; call SkipBelow from the test case's thread.
#pragma once

#include <cstdlib>
#include <source_location>
#include <string>
#include <string_view>

#include "tests/shared_data.h"

namespace xtfq::test {

enum class Tier { kSmall = 0, kFull = 1, kStress = 2 };

inline const char* TierName(Tier t) {
  switch (t) {
    case Tier::kSmall:
      return "small";
    case Tier::kFull:
      return "full";
    case Tier::kStress:
      return "stress";
  }
  return "full";
}

// AddressSanitizer, as GCC (__SANITIZE_ADDRESS__) and clang (__has_feature) say it.
#if defined(__SANITIZE_ADDRESS__)
#define XTFQ_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XTFQ_TEST_SANITIZED 1
#endif
#endif

// The tier a build runs when the environment does not choose one.
inline Tier BuildTier() {
#if defined(XTFQ_TEST_SANITIZED)
  return Tier::kSmall;
#else
  return Tier::kFull;
#endif
}

inline Tier CurrentTier() {
  const char* t = std::getenv("XTFQ_TIER");
  const std::string_view v = t == nullptr ? "" : t;
  if (v == "small") return Tier::kSmall;
  if (v == "full") return Tier::kFull;
  if (v == "stress") return Tier::kStress;
  const char* stress = std::getenv("XTFQ_STRESS");
  if (stress != nullptr && std::string_view(stress) == "1") return Tier::kStress;
  return BuildTier();
}

// The value for the current tier.
template <class T>
T ByTier(T small, T full, T stress) {
  switch (CurrentTier()) {
    case Tier::kSmall:
      return small;
    case Tier::kFull:
      return full;
    case Tier::kStress:
      return stress;
  }
  return full;
}

// True, after counting the case as skipped with WHAT and the tier that runs it, when the current
// tier is below `least`; the caller then returns.
inline bool SkipBelow(Tier least, std::string_view what, std::source_location where = std::source_location::current()) {
  if (CurrentTier() >= least) return false;
  Skip(std::string(what) + " runs in the " + TierName(least) + " tier" + " (XTFQ_TIER=" + TierName(least) +
           (least == Tier::kStress ? ", or XTFQ_STRESS=1 ./scripts/test.sh)" : ")") + "; this run is the " +
           TierName(CurrentTier()) + " tier",
       where);
  return true;
}

}  // namespace xtfq::test
