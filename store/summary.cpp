#include "store/summary.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "store/endian.h"

namespace xtfq {

bool FieldStats::operator==(const FieldStats& o) const {
  if (is_float != o.is_float || std::bit_cast<uint64_t>(sumsq) != std::bit_cast<uint64_t>(o.sumsq)) return false;
  if (is_float) {
    return std::bit_cast<uint64_t>(f_sum) == std::bit_cast<uint64_t>(o.f_sum) &&
           std::bit_cast<uint64_t>(f_min) == std::bit_cast<uint64_t>(o.f_min) &&
           std::bit_cast<uint64_t>(f_max) == std::bit_cast<uint64_t>(o.f_max);
  }
  return i_sum == o.i_sum && i_min == o.i_min && i_max == o.i_max;
}

Summary::Summary(const Schema& schema) {
  for (uint16_t g : schema.aggregates()) {
    FieldStats f;
    f.is_float = schema.fields()[g].type == FieldType::kF64;
    fields.push_back(f);
  }
}

void Summary::Add(const Schema& schema, const std::byte* record) {
  // One record: each field's statistics updated in place (the same operations, in the same order,
  // as AddRange; the grid builder and the TN-tree builder call this once a record).
  ++count;
  const auto& plan = schema.aggregate_fields();
  FieldStats* f = fields.data();
  for (size_t k = 0; k < plan.size(); ++k) f[k].Add(record + plan[k].offset, plan[k].type);
}

bool Summary::SameUpToRounding(const Summary& o) const {
  if (count != o.count || fields.size() != o.fields.size()) return false;
  auto close = [](double a, double b) {
    return a == b || std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
  };
  for (size_t k = 0; k < fields.size(); ++k) {
    const FieldStats& f = fields[k];
    const FieldStats& g = o.fields[k];
    if (f.is_float != g.is_float) return false;
    if (!f.is_float) {
      if (!close(f.sumsq, g.sumsq) || !(f.i_sum == g.i_sum && f.i_min == g.i_min && f.i_max == g.i_max)) return false;
      continue;
    }
    if (f.f_min != g.f_min || f.f_max != g.f_max) return false;
    // Once a sum of squares overflows, the sums of values may overflow too, and where they do
    // depends on the order of adding: only min and max are compared then.
    if (!std::isfinite(f.sumsq) || !std::isfinite(g.sumsq)) continue;
    if (!close(f.sumsq, g.sumsq) || !close(f.f_sum, g.f_sum)) return false;
  }
  return true;
}

void Summary::AddRange(const Schema& schema, const std::byte* records, uint32_t n) {
  if (n == 0) return;
  count += n;
  const size_t w = schema.record_width();
  const auto& plan = schema.aggregate_fields();
  for (size_t k = 0; k < plan.size(); ++k) {
    // Field by field, so that each loop is tight and its statistics stay in registers.
    FieldStats f = fields[k];
    const std::byte* p = records + plan[k].offset;
    const FieldType type = plan[k].type;
    for (uint32_t i = 0; i < n; ++i, p += w) f.Add(p, type);
    fields[k] = f;
  }
}

void FieldStats::MergeEncoded(const std::byte* p) {
  if (is_float) {
    f_sum += LoadLe<double>(p + format::kFsSum);
    f_min = std::min(f_min, LoadLe<double>(p + format::kFsMin));
    f_max = std::max(f_max, LoadLe<double>(p + format::kFsMax));
  } else {
    i_sum = static_cast<int64_t>(static_cast<uint64_t>(i_sum) + LoadLe<uint64_t>(p + format::kFsSum));
    i_min = std::min(i_min, LoadLe<int64_t>(p + format::kFsMin));
    i_max = std::max(i_max, LoadLe<int64_t>(p + format::kFsMax));
  }
  sumsq += LoadLe<double>(p + format::kFsSumSq);
}

void FieldStats::Merge(const FieldStats& g) {
  i_sum = static_cast<int64_t>(static_cast<uint64_t>(i_sum) + static_cast<uint64_t>(g.i_sum));
  i_min = std::min(i_min, g.i_min);
  i_max = std::max(i_max, g.i_max);
  f_sum += g.f_sum;
  f_min = std::min(f_min, g.f_min);
  f_max = std::max(f_max, g.f_max);
  sumsq += g.sumsq;
}

void Summary::MergeEncoded(uint64_t n, const std::byte* p) {
  count += n;
  for (FieldStats& f : fields) {
    f.MergeEncoded(p);
    p += kFieldBytes;
  }
}

void Summary::Merge(const Summary& o) {
  count += o.count;
  for (size_t k = 0; k < fields.size(); ++k) fields[k].Merge(o.fields[k]);
}

void Summary::EncodeFields(std::byte* p) const {
  for (const FieldStats& f : fields) {
    if (f.is_float) {
      StoreLe<double>(p + format::kFsSum, f.f_sum);
      StoreLe<double>(p + format::kFsMin, f.f_min);
      StoreLe<double>(p + format::kFsMax, f.f_max);
    } else {
      StoreLe<int64_t>(p + format::kFsSum, f.i_sum);
      StoreLe<int64_t>(p + format::kFsMin, f.i_min);
      StoreLe<int64_t>(p + format::kFsMax, f.i_max);
    }
    StoreLe<double>(p + format::kFsSumSq, f.sumsq);
    p += kFieldBytes;
  }
}

void Summary::DecodeFields(const std::byte* p) {
  for (FieldStats& f : fields) {
    if (f.is_float) {
      f.f_sum = LoadLe<double>(p + format::kFsSum);
      f.f_min = LoadLe<double>(p + format::kFsMin);
      f.f_max = LoadLe<double>(p + format::kFsMax);
    } else {
      f.i_sum = LoadLe<int64_t>(p + format::kFsSum);
      f.i_min = LoadLe<int64_t>(p + format::kFsMin);
      f.i_max = LoadLe<int64_t>(p + format::kFsMax);
    }
    f.sumsq = LoadLe<double>(p + format::kFsSumSq);
    p += kFieldBytes;
  }
}

}  // namespace xtfq
