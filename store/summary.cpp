#include "store/summary.h"

#include <algorithm>
#include <bit>

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
  ++count;
  const auto& plan = schema.aggregate_fields();
  for (size_t k = 0; k < plan.size(); ++k) {
    FieldStats& f = fields[k];
    const std::byte* p = record + plan[k].offset;
    int64_t i;
    switch (plan[k].type) {
      case FieldType::kF64: {
        const double d = LoadLe<double>(p);
        f.f_sum += d;
        f.f_min = std::min(f.f_min, d);
        f.f_max = std::max(f.f_max, d);
        f.sumsq += d * d;
        continue;
      }
      case FieldType::kI8: i = LoadLe<int8_t>(p); break;
      case FieldType::kI16: i = LoadLe<int16_t>(p); break;
      case FieldType::kI32: i = LoadLe<int32_t>(p); break;
      case FieldType::kI64: i = LoadLe<int64_t>(p); break;
      case FieldType::kU8: i = LoadLe<uint8_t>(p); break;
      case FieldType::kU16: i = LoadLe<uint16_t>(p); break;
      case FieldType::kU32: i = LoadLe<uint32_t>(p); break;
      default: i = static_cast<int64_t>(LoadLe<uint64_t>(p)); break;
    }
    f.i_sum = static_cast<int64_t>(static_cast<uint64_t>(f.i_sum) + static_cast<uint64_t>(i));
    f.i_min = std::min(f.i_min, i);
    f.i_max = std::max(f.i_max, i);
    const double d = static_cast<double>(i);
    f.sumsq += d * d;
  }
}

void Summary::MergeEncoded(uint64_t n, const std::byte* p) {
  count += n;
  for (FieldStats& f : fields) {
    if (f.is_float) {
      f.f_sum += LoadLe<double>(p + format::kFsSum);
      f.f_min = std::min(f.f_min, LoadLe<double>(p + format::kFsMin));
      f.f_max = std::max(f.f_max, LoadLe<double>(p + format::kFsMax));
    } else {
      f.i_sum = static_cast<int64_t>(static_cast<uint64_t>(f.i_sum) + LoadLe<uint64_t>(p + format::kFsSum));
      f.i_min = std::min(f.i_min, LoadLe<int64_t>(p + format::kFsMin));
      f.i_max = std::max(f.i_max, LoadLe<int64_t>(p + format::kFsMax));
    }
    f.sumsq += LoadLe<double>(p + format::kFsSumSq);
    p += kFieldBytes;
  }
}

void Summary::Merge(const Summary& o) {
  count += o.count;
  for (size_t k = 0; k < fields.size(); ++k) {
    FieldStats& f = fields[k];
    const FieldStats& g = o.fields[k];
    f.i_sum = static_cast<int64_t>(static_cast<uint64_t>(f.i_sum) + static_cast<uint64_t>(g.i_sum));
    f.i_min = std::min(f.i_min, g.i_min);
    f.i_max = std::max(f.i_max, g.i_max);
    f.f_sum += g.f_sum;
    f.f_min = std::min(f.f_min, g.f_min);
    f.f_max = std::max(f.f_max, g.f_max);
    f.sumsq += g.sumsq;
  }
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
