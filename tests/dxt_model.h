// A naive model of DXT segments for tests: every DXT_POSIX segment of a store's log 0, read
// record by record, and the part of one inside a time range, by its overlap, as the spread
// answers (DxtWindowSpread, DxtCarry) must give it.
//
// Thread-safety: one test's thread.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "layouts/darshan_layout.h"
#include "query/core/store_reader.h"
#include "store/endian.h"

namespace xtfq::test {

struct ModelSegment {
  int64_t t = 0, rank = 0, bytes = 0;
  double duration = 0;  // seconds
};

// Reads, then writes.
inline std::array<std::vector<ModelSegment>, 2> DxtModelSegments(StoreReader& r) {
  using L = DarshanLayout;
  std::array<std::vector<ModelSegment>, 2> out;
  for (int op = 0; op < 2; ++op) {
    const ArrayDesc* a = r.catalogue().Find(L::ArrayName(0, op == 0 ? "DXT_POSIX.read" : "DXT_POSIX.write"));
    if (a == nullptr) continue;
    REQUIRE(r.ForEach(*a, [&](const std::byte* p) {
               out[static_cast<size_t>(op)].push_back(
                   {LoadLe<int64_t>(p + L::kDxtOffsetT), LoadLe<int64_t>(p + L::kDxtOffsetRank),
                    LoadLe<int64_t>(p + L::kDxtOffsetLength), LoadLe<double>(p + L::kDxtOffsetDuration)});
               return Ok();
             }).ok());
  }
  return out;
}

// The bytes and seconds of `s` inside [lo, hi) (ns from the job's start); a segment of no duration
// counts whole where it starts.
inline std::pair<double, double> Overlap(const ModelSegment& s, double lo, double hi) {
  const double start = static_cast<double>(s.t);
  if (s.duration <= 0) return {start >= lo && start < hi ? static_cast<double>(s.bytes) : 0.0, 0.0};
  const double ns = std::max(0.0, std::min(start + s.duration * 1e9, hi) - std::max(start, lo));
  return {static_cast<double>(s.bytes) * ns / (s.duration * 1e9), ns / 1e9};
}

// Equal but for rounding: the answers and the model split a segment at other points, in doubles of
// ns from the job's start.
inline bool NearBytes(double a, double b) { return std::abs(a - b) <= 1e-3 + 1e-9 * std::abs(b); }

}  // namespace xtfq::test
