#include "gen/events_generator.h"

#include <cmath>

namespace xtfq {

namespace {
uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
constexpr double kMeanGapNs = 10000.0;
}  // namespace

// xoshiro256** seeded through splitmix64, as the shared generator does.
EventsGenerator::EventsGenerator(int32_t ranks, uint64_t seed) : ranks_(ranks) {
  for (uint64_t& s : s_) {
    seed += 0x9E3779B97F4A7C15ull;
    uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    s = z ^ (z >> 31);
  }
}

uint64_t EventsGenerator::NextU64() {
  const uint64_t r = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return r;
}

double EventsGenerator::Uniform() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }

int64_t EventsGenerator::DrawBytes() {
  const double c = Uniform();
  double lo, hi;
  if (c < 0.55) {
    lo = 512;
    hi = 16384;
  } else if (c < 0.85) {
    lo = 65536;
    hi = 1048576;
  } else if (c < 0.97) {
    lo = 1048576;
    hi = 16777216;
  } else {
    lo = 16777216;
    hi = 268435456;
  }
  return static_cast<int64_t>(std::exp(std::log(lo) + Uniform() * (std::log(hi) - std::log(lo))));
}

EventRecord EventsGenerator::Next() {
  EventRecord r;
  t_ += 1 + static_cast<int64_t>(-std::log(1.0 - Uniform()) * kMeanGapNs);
  r.t = t_;
  r.rank = static_cast<int32_t>(static_cast<uint64_t>(Uniform() * ranks_));
  r.bytes = DrawBytes();
  r.op = Uniform() < 0.4 ? 1 : 0;
  const double bw = 1e9 * (0.3 + Uniform()) / (r.op ? 1.5 : 1.0);
  r.dur = 2e-5 + static_cast<double>(r.bytes) / bw;
  return r;
}

}  // namespace xtfq
