// Schema: the named fixed-width fields of an array's records and which of them are aggregated.
//
// Fields are packed in declaration order without padding, little-endian, so a record is
// record_width() bytes and field i starts at offset(i). Aggregate fields are the ones whose
// count, sum, min, max and sum of squares the index keeps (docs/format.md, "Array descriptor").
// Make() validates: 1..kMaxFields fields, names of 1..255 bytes, unique; aggregates name existing
// fields, at most once each.
//
// Thread-safety: immutable after Make().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "store/endian.h"
#include "store/field_type.h"
#include "store/result.h"

namespace xtfq {

struct Field {
  std::string name;
  FieldType type = FieldType::kI64;
  uint32_t offset = 0;
};

// A field's value: signed integers as int64_t, unsigned as uint64_t, f64 as double.
using Value = std::variant<int64_t, uint64_t, double>;

// An integer field read as int64 (u64 is reinterpreted; not for f64).
inline int64_t LoadInteger(const std::byte* p, FieldType type) {
  switch (type) {
    case FieldType::kI8:
      return LoadLe<int8_t>(p);
    case FieldType::kI16:
      return LoadLe<int16_t>(p);
    case FieldType::kI32:
      return LoadLe<int32_t>(p);
    case FieldType::kU8:
      return LoadLe<uint8_t>(p);
    case FieldType::kU16:
      return LoadLe<uint16_t>(p);
    case FieldType::kU32:
      return LoadLe<uint32_t>(p);
    default:
      return LoadLe<int64_t>(p);
  }
}

class Schema {
 public:
  Schema() = default;
  // `time` names the integer field that orders records (the TN tree's key), `process` the integer
  // field that says which process a record belongs to; either may be empty (none).
  static Result<Schema> Make(const std::vector<std::pair<std::string, FieldType>>& fields,
                             const std::vector<std::string>& aggregates, std::string_view time = {},
                             std::string_view process = {});
  // Make() for a layout's constant schema (the format test builds each one); aborts if invalid.
  static Schema Fixed(const std::vector<std::pair<std::string, FieldType>>& fields,
                      const std::vector<std::string>& aggregates, std::string_view time = {},
                      std::string_view process = {}) {
    return Make(fields, aggregates, time, process).value();
  }
  // Same, with fields given as indexes (as the catalogue stores them; format::kNoField for none).
  static Result<Schema> FromIndexes(const std::vector<std::pair<std::string, FieldType>>& fields,
                                    const std::vector<uint16_t>& aggregates, uint16_t time = 0xFFFF,
                                    uint16_t process = 0xFFFF);

  const std::vector<Field>& fields() const { return fields_; }
  const std::vector<uint16_t>& aggregates() const { return aggregates_; }
  // Where and what each aggregate field is, in aggregate order (for fast summaries).
  struct AggregateField {
    uint32_t offset;
    FieldType type;
  };
  const std::vector<AggregateField>& aggregate_fields() const { return aggregate_fields_; }
  uint32_t record_width() const { return width_; }
  std::optional<size_t> time_field() const { return time_; }
  std::optional<size_t> process_field() const { return process_; }
  // The record's time key (an integer field read as int64). REQUIRES: time_field().
  int64_t Time(const std::byte* record) const {
    if (time_at_.type == FieldType::kI64) return LoadLe<int64_t>(record + time_at_.offset);  // the usual case
    return TimeSlow(record);
  }
  int64_t Process(const std::byte* record) const;
  std::optional<size_t> Find(std::string_view name) const;
  // The aggregate index (into aggregates()) of the aggregated field `name`.
  std::optional<size_t> FindAggregate(std::string_view name) const;

  Value Get(const std::byte* record, size_t field) const;
  double GetDouble(const std::byte* record, size_t field) const;
  // Stores v converted to the field's type (C++ conversion rules).
  void Set(std::byte* record, size_t field, Value v) const;

  // "t:i64 bytes:i64 ..." with "*" after aggregated fields, "@time" and "@process" after those.
  std::string Describe() const;
  bool operator==(const Schema& other) const;

 private:
  int64_t TimeSlow(const std::byte* record) const;

  std::vector<Field> fields_;
  std::vector<uint16_t> aggregates_;
  std::vector<AggregateField> aggregate_fields_;
  uint32_t width_ = 0;
  std::optional<size_t> time_;
  std::optional<size_t> process_;
  AggregateField time_at_{0, FieldType::kI64};     // offset and type of the time field
  AggregateField process_at_{0, FieldType::kI64};  // offset and type of the process field
};

}  // namespace xtfq
