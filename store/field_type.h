// FieldType: the fixed-width types a record field can have (docs/format.md, "Field descriptor").
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace xtfq {

enum class FieldType : uint8_t {
  kI8 = 1,
  kI16 = 2,
  kI32 = 3,
  kI64 = 4,
  kU8 = 5,
  kU16 = 6,
  kU32 = 7,
  kU64 = 8,
  kF64 = 9,
};

bool ValidFieldType(uint8_t v);
uint32_t FieldWidth(FieldType t);
std::string_view FieldTypeName(FieldType t);  // "i8" ... "u64", "f64"
std::optional<FieldType> ParseFieldType(std::string_view name);
bool IsSigned(FieldType t);

}  // namespace xtfq
