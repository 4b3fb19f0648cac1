// RatePeak: the highest value over time of a sum of rate step functions inside a window: each
// step adds `rate` on [t0, t1) (half-open); Max() sweeps the steps' edges in time order (at one
// instant, steps that end are taken off before steps that start are added) and returns the
// highest running sum inside [w1, w2). It gives a job_stats group its own peak rate, which the
// highest rate of any one of its series does not.
//
// Thread-safety: value type.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace xtfq {

class RatePeak {
 public:
  void Add(int64_t t0, int64_t t1, double rate) { steps_.push_back({t0, t1, rate}); }
  // 0 when no step overlaps [w1, w2).
  double Max(int64_t w1, int64_t w2) const;

 private:
  struct Step {
    int64_t t0, t1;
    double rate;
  };
  std::vector<Step> steps_;
};

}  // namespace xtfq
