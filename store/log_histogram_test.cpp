// LogHistogram: bins and percentiles against values worked out by hand (docs/format.md, "Log histograms").
#include "store/log_histogram.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "store/endian.h"

namespace xtfq {
namespace {

TEST_CASE("log histogram: integer bin i holds 2^(i-1) to 2^i, everything below 1 is in bin 0") {
  CHECK(LogHistogram::IntegerBin(-5) == 0);
  CHECK(LogHistogram::IntegerBin(0) == 0);
  CHECK(LogHistogram::IntegerBin(1) == 1);
  CHECK(LogHistogram::IntegerBin(2) == 2);
  CHECK(LogHistogram::IntegerBin(3) == 2);
  CHECK(LogHistogram::IntegerBin(4) == 3);
  CHECK(LogHistogram::IntegerBin(4095) == 12);
  CHECK(LogHistogram::IntegerBin(4096) == 13);
  CHECK(LogHistogram::IntegerBin(int64_t{1} << 61) == 62);
  CHECK(LogHistogram::IntegerBin(int64_t{1} << 62) == 63);
  CHECK(LogHistogram::IntegerBin(INT64_MAX) == 63);
  CHECK(LogHistogram::Lower(13, 0) == 4096);
  CHECK(LogHistogram::Upper(13, 0) == 8192);
  CHECK(std::isinf(LogHistogram::Lower(0, 0)));
  CHECK(std::isinf(LogHistogram::Upper(63, 0)));
}

TEST_CASE("log histogram: f64 bins start at 2^-30, NaN is in none, infinities at the ends") {
  const int e = LogHistogram::kFloatLowExponent;
  CHECK(LogHistogram::FloatBin(0.0, e) == 0);
  CHECK(LogHistogram::FloatBin(-1.0, e) == 0);
  CHECK(LogHistogram::FloatBin(std::ldexp(1.0, -31), e) == 0);
  CHECK(LogHistogram::FloatBin(std::ldexp(1.0, -30), e) == 1);
  CHECK(LogHistogram::FloatBin(0.75, e) == 30);  // [0.5, 1)
  CHECK(LogHistogram::FloatBin(1.0, e) == 31);   // [1, 2)
  CHECK(LogHistogram::FloatBin(1.999, e) == 31);
  CHECK(LogHistogram::FloatBin(std::ldexp(1.0, 32), e) == 63);
  CHECK(LogHistogram::FloatBin(1e300, e) == 63);
  CHECK(LogHistogram::FloatBin(std::numeric_limits<double>::infinity(), e) == 63);
  CHECK(LogHistogram::FloatBin(-std::numeric_limits<double>::infinity(), e) == 0);
  CHECK(LogHistogram::FloatBin(std::nan(""), e) == -1);
  CHECK(LogHistogram::Lower(31, e) == 1.0);
  CHECK(LogHistogram::Upper(31, e) == 2.0);
  std::byte b[8];
  StoreLe<double>(b, 0.75);
  CHECK(LogHistogram::BinOf(b, FieldType::kF64) == 30);
  StoreLe<int64_t>(b, 4096);
  CHECK(LogHistogram::BinOf(b, FieldType::kI64) == 13);
}

TEST_CASE("log histogram: nearest-rank percentiles and their bounds") {
  // Ten values: 1, 2, 3, 4, 5, 6, 7, 8, 9, 100. Bins: 1 -> 1; 2, 3 -> 2; 4..7 -> 3; 8, 9 -> 4; 100 -> 7.
  LogHistogram h;
  for (int64_t v : {1, 2, 3, 4, 5, 6, 7, 8, 9, 100}) h.Add(LogHistogram::IntegerBin(v));
  CHECK(h.Total() == 10);
  // p50: the 5th smallest, 5, in bin 3 = [4, 8).
  CHECK(h.QuantileBin(0.5) == 3);
  auto b = h.Bound(0.5, 0, 1, 100);
  REQUIRE(b);
  CHECK(b->first == 4);
  CHECK(b->second == 8);
  // p90: the 9th, 9, in bin 4 = [8, 16).
  CHECK(h.QuantileBin(0.9) == 4);
  // p99: the 10th, 100, in bin 7 = [64, 128), narrowed to the maximum 100.
  b = h.Bound(0.99, 0, 1, 100);
  REQUIRE(b);
  CHECK(b->first == 64);
  CHECK(b->second == 100);
  // A tiny q is the first value; merging doubles every count and keeps the percentiles.
  CHECK(h.QuantileBin(0.001) == 1);
  LogHistogram m = h;
  m.Merge(h);
  CHECK(m.Total() == 20);
  CHECK(m.QuantileBin(0.5) == 3);
  CHECK(!LogHistogram{}.QuantileBin(0.5));
}

}  // namespace
}  // namespace xtfq
