#include "store/log_histogram.h"

#include <algorithm>
#include <limits>

#include "store/endian.h"

namespace xtfq {

int LogHistogram::BinOf(const std::byte* p, FieldType type) {
  if (type == FieldType::kF64) return FloatBin(LoadLe<double>(p), kFloatLowExponent);
  return IntegerBin(type == FieldType::kI64 ? LoadLe<int64_t>(p) : LoadInteger(p, type));
}

double LogHistogram::Lower(int b, int e) {
  return b <= 0 ? -std::numeric_limits<double>::infinity() : std::ldexp(1.0, e + b - 1);
}

double LogHistogram::Upper(int b, int e) {
  return b >= kBins - 1 ? std::numeric_limits<double>::infinity() : std::ldexp(1.0, e + b);
}

uint64_t LogHistogram::Total() const {
  uint64_t n = 0;
  for (uint64_t c : counts) n += c;
  return n;
}

std::optional<int> LogHistogram::QuantileBin(double q) const {
  const uint64_t n = Total();
  if (n == 0) return std::nullopt;
  const double r = std::ceil(q * static_cast<double>(n));
  const uint64_t rank = r < 1 ? 1 : std::min<uint64_t>(n, static_cast<uint64_t>(r));
  uint64_t seen = 0;
  for (int b = 0; b < kBins; ++b) {
    seen += counts[b];
    if (seen >= rank) return b;
  }
  return kBins - 1;
}

std::optional<std::pair<double, double>> LogHistogram::Bound(double q, int e, double min, double max) const {
  const std::optional<int> b = QuantileBin(q);
  if (!b) return std::nullopt;
  const double lo = std::max(Lower(*b, e), min), hi = std::min(Upper(*b, e), max);
  return std::make_pair(std::min(lo, hi), hi);
}

}  // namespace xtfq
