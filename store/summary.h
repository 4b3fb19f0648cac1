// Summary: count, and sum, min, max and sum of squares of each aggregate field, over a set of
// records. It is what an index entry stores for its subtree (docs/format.md, "Index entry") and
// what the aggregate primitives return.
//
// Integer fields (signed or unsigned, read as int64) keep an int64 sum, min and max; the sum wraps
// modulo 2^64 on overflow. f64 fields keep double sum, min and max. Every field keeps a double sum
// of squares. Merging is associative; sums of doubles depend on the order of merging, so the
// builder and the checker merge in the same order (records in order, then entries in order).
//
// Values that are not finite (imported data may hold NaN or infinities): an f64 NaN is left out of
// the sum, the sum of squares, min and max; an infinity is left out of the sum and the sum of
// squares but counts in min and max. `count` counts records, so a mean over records that hold
// them takes them as 0. A NaN therefore never reaches a summary from a record; sums of finite
// values may still overflow to an infinity (and two overflows of opposite signs merge to NaN), which
// SameUpToRounding allows for.
//
// Thread-safety: value type.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "store/endian.h"
#include "store/format.h"
#include "store/schema.h"

namespace xtfq {

struct FieldStats {
  bool is_float = false;
  int64_t i_sum = 0;
  int64_t i_min = std::numeric_limits<int64_t>::max();
  int64_t i_max = std::numeric_limits<int64_t>::min();
  double f_sum = 0;
  double f_min = std::numeric_limits<double>::infinity();
  double f_max = -std::numeric_limits<double>::infinity();
  double sumsq = 0;

  double Sum() const { return is_float ? f_sum : static_cast<double>(i_sum); }
  double Min() const { return is_float ? f_min : static_cast<double>(i_min); }
  double Max() const { return is_float ? f_max : static_cast<double>(i_max); }
  bool operator==(const FieldStats& o) const;
  // Adds one value of a field of `type` stored at p (the rules above for values that are not finite).
  void Add(const std::byte* p, FieldType type) {
    if (type == FieldType::kF64) {
      const double d = LoadLe<double>(p);
      const double finite = std::isfinite(d) ? d : 0.0;
      f_sum += finite;
      sumsq += finite * finite;
      f_min = std::min(f_min, d);  // std::min and std::max keep their first argument against a NaN
      f_max = std::max(f_max, d);
      return;
    }
    const int64_t v = type == FieldType::kI64 ? LoadLe<int64_t>(p) : LoadInteger(p, type);
    i_sum = static_cast<int64_t>(static_cast<uint64_t>(i_sum) + static_cast<uint64_t>(v));
    i_min = std::min(i_min, v);
    i_max = std::max(i_max, v);
    const double d = static_cast<double>(v);
    sumsq += d * d;
  }
  // Merges another field's statistics (Summary::Merge, one field).
  void Merge(const FieldStats& o);
  // Merges statistics encoded as in docs/format.md ("Field statistics").
  void MergeEncoded(const std::byte* p);
};

class Summary {
 public:
  Summary() = default;
  // An empty summary of `schema`'s aggregate fields.
  explicit Summary(const Schema& schema);

  uint64_t count = 0;
  std::vector<FieldStats> fields;  // one per aggregate field, in schema order

  void Add(const Schema& schema, const std::byte* record);
  // Adds `n` consecutive records of schema.record_width() bytes; the same result as Add() on each
  // in order (field by field, so each field's loop is tight).
  void AddRange(const Schema& schema, const std::byte* records, uint32_t n);
  void Merge(const Summary& other);
  // Merges the encoded field statistics of an index entry (EncodeFields' layout) and `n` records,
  // without decoding them into a Summary first.
  void MergeEncoded(uint64_t n, const std::byte* fields);
  bool operator==(const Summary& o) const { return count == o.count && fields == o.fields; }
  // Equal, except that f64 sums and sums of squares may differ by rounding (a relative 1e-9):
  // the same records merged in a different order. Where either sum of squares of an f64 field is
  // not finite, its sums may have overflowed in an order-dependent way, and only its min and max
  // are compared.
  bool SameUpToRounding(const Summary& o) const;

  // Bytes of one field's statistics on disk: sum, min, max, sum of squares.
  static constexpr uint32_t kFieldBytes = format::kFieldStatsSize;
  void EncodeFields(std::byte* out) const;
  // REQUIRES: `fields` has the schema's aggregate count (use Summary(schema)).
  void DecodeFields(const std::byte* in);
};

}  // namespace xtfq
