#include "store/field_type.h"

#include <array>

namespace xtfq {
namespace {

struct Info {
  FieldType type;
  std::string_view name;
  uint32_t width;
  bool is_signed;
};

constexpr std::array<Info, 9> kInfo = {{
    {FieldType::kI8, "i8", 1, true},
    {FieldType::kI16, "i16", 2, true},
    {FieldType::kI32, "i32", 4, true},
    {FieldType::kI64, "i64", 8, true},
    {FieldType::kU8, "u8", 1, false},
    {FieldType::kU16, "u16", 2, false},
    {FieldType::kU32, "u32", 4, false},
    {FieldType::kU64, "u64", 8, false},
    {FieldType::kF64, "f64", 8, true},
}};

const Info& Get(FieldType t) { return kInfo[static_cast<uint8_t>(t) - 1]; }

}  // namespace

bool ValidFieldType(uint8_t v) { return v >= 1 && v <= kInfo.size(); }
uint32_t FieldWidth(FieldType t) { return Get(t).width; }
std::string_view FieldTypeName(FieldType t) { return Get(t).name; }
bool IsSigned(FieldType t) { return Get(t).is_signed; }

std::optional<FieldType> ParseFieldType(std::string_view name) {
  for (const Info& i : kInfo) {
    if (i.name == name) return i.type;
  }
  return std::nullopt;
}

}  // namespace xtfq
