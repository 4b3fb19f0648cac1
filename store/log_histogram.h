// LogHistogram: a distribution of one field's values in 64 fixed log2 bins (docs/format.md, "Log
// histograms"), mergeable by adding counts, so a grid cell, a window or a merge of either reports
// counts per bin and any percentile to within one bin.
//
// Bins of a field whose lowest exponent is e (0 for integer fields, -30 for f64 fields, whose
// values are seconds or bytes: 2^-30 s is under a nanosecond):
//   bin 0:       values below 2^e (zero, negatives, -infinity);
//   bin i:       [2^(e+i-1), 2^(e+i)) for 1 <= i <= 62;
//   bin 63:      2^(e+62) and above (+infinity).
// An integer field reads as int64 (as its statistics do): bin i holds [2^(i-1), 2^i). A NaN is in
// no bin: percentiles are over the values that have one.
//
// A percentile is nearest rank: the q-quantile of n values is the ceil(q n)-th smallest (the
// first for q n < 1). Its bin is the first whose cumulative count reaches that rank; the value
// lies in the bin's [lower, upper) and in the values' [min, max], so Bound() gives an interval no
// wider than one bin that holds it.
//
// Thread-safety: value type.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>

#include "store/field_type.h"
#include "store/schema.h"

namespace xtfq {

class LogHistogram {
 public:
  static constexpr int kBins = 64;
  static constexpr int kFloatLowExponent = -30;

  static int LowExponent(FieldType t) { return t == FieldType::kF64 ? kFloatLowExponent : 0; }
  // The bin of an integer value (lowest exponent 0).
  static int IntegerBin(int64_t v) {
    if (v < 1) return 0;
    return std::min(kBins - 1, 64 - std::countl_zero(static_cast<uint64_t>(v)));
  }
  // The bin of a double value with lowest exponent e; -1 for a NaN.
  static int FloatBin(double v, int e) {
    if (std::isnan(v)) return -1;
    if (!(v >= std::ldexp(1.0, e))) return 0;
    if (std::isinf(v)) return kBins - 1;
    int exp = 0;
    std::frexp(v, &exp);  // v in [2^(exp-1), 2^exp)
    return std::min(kBins - 1, exp - e);
  }
  // The bin of a field of `type` stored at p; -1 for a NaN.
  static int BinOf(const std::byte* p, FieldType type);
  // [lower, upper) of bin b for lowest exponent e (bin 0 starts at -infinity, bin 63 ends at +infinity).
  static double Lower(int b, int e);
  static double Upper(int b, int e);

  std::array<uint64_t, kBins> counts{};

  void Add(int bin, uint64_t n = 1) {
    if (bin >= 0) counts[static_cast<size_t>(bin)] += n;
  }
  void Merge(const LogHistogram& o) {
    for (int b = 0; b < kBins; ++b) counts[b] += o.counts[b];
  }
  uint64_t Total() const;
  bool operator==(const LogHistogram& o) const { return counts == o.counts; }
  // The bin that holds the q-quantile (0 < q <= 1) of the values, nullopt when there is none.
  std::optional<int> QuantileBin(double q) const;
  // [lo, hi] holding the q-quantile: its bin's [lower, upper) narrowed to [min, max] of the values.
  std::optional<std::pair<double, double>> Bound(double q, int e, double min, double max) const;
};

}  // namespace xtfq
