// RatePeak against a naive model: the highest sum of the rates of the steps [t0, t1) that hold a
// second t, over every whole second of the window (steps have whole-second edges).
#include "query/jobstats/rate_peak.h"

#include <doctest/doctest.h>

#include <random>

namespace xtfq {
namespace {

TEST_CASE("rate peak: the highest sum of overlapping rates, as a second-by-second model gives it") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 2000; ++trial) {
    RatePeak p;
    struct S {
      int64_t t0, t1;
      double rate;
    };
    std::vector<S> steps;
    const int n = static_cast<int>(rng() % 5);  // none, one (the common cell) and a few
    for (int i = 0; i < n; ++i) {
      const int64_t t0 = static_cast<int64_t>(rng() % 40), t1 = t0 + 1 + static_cast<int64_t>(rng() % 20);
      const double rate = static_cast<double>(rng() % 1000) / 8;
      steps.push_back({t0, t1, rate});
      p.Add(t0, t1, rate);
    }
    const int64_t w1 = static_cast<int64_t>(rng() % 50), w2 = w1 + 1 + static_cast<int64_t>(rng() % 30);
    double want = 0;
    for (int64_t t = w1; t < w2; ++t) {
      double sum = 0;
      for (const S& s : steps) sum += s.t0 <= t && t < s.t1 ? s.rate : 0;
      want = std::max(want, sum);
    }
    CAPTURE(trial);
    CHECK(p.Max(w1, w2) == want);  // sums of eighths: exact
  }
}

}  // namespace
}  // namespace xtfq
