#include "query/jobstats/rate_peak.h"

#include <algorithm>

namespace xtfq {

double RatePeak::Max(int64_t w1, int64_t w2) const {
  if (steps_.size() == 1) {  // most cells: one step, its rate where it overlaps (the same as below)
    const Step& s = steps_[0];
    return std::max(s.t0, w1) < std::min(s.t1, w2) ? std::max(0.0, s.rate) : 0.0;
  }
  // (time, change); ends sort before starts at one time. One buffer a thread, not one a call.
  thread_local std::vector<std::pair<int64_t, double>> edges;
  edges.clear();
  for (const Step& s : steps_) {
    const int64_t a = std::max(s.t0, w1), b = std::min(s.t1, w2);
    if (a >= b) continue;
    edges.emplace_back(a, s.rate);
    edges.emplace_back(b, -s.rate);
  }
  std::sort(edges.begin(), edges.end(),
            [](const auto& x, const auto& y) { return x.first != y.first ? x.first < y.first : x.second < y.second; });
  double sum = 0, peak = 0;
  for (size_t i = 0; i < edges.size();) {
    const int64_t t = edges[i].first;
    for (; i < edges.size() && edges[i].first == t; ++i)
      sum += edges[i].second;  // every change at t, then the level after t
    peak = std::max(peak, sum);
  }
  return peak;
}

}  // namespace xtfq
