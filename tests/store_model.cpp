#include "tests/store_model.h"

#include <fmt/format.h>

#include <cstring>

namespace xtfq::test {

std::vector<std::pair<std::string, Schema>> TestSchemas() {
  std::vector<std::pair<std::string, FieldType>> wide;
  for (int i = 0; i < 100; ++i) wide.emplace_back(fmt::format("c{}", i), FieldType::kU64);
  return {
      {"events", *Schema::Make({{"t", FieldType::kI64}, {"bytes", FieldType::kI64}, {"dur", FieldType::kF64},
                                {"rank", FieldType::kI32}, {"op", FieldType::kI32}},
                               {"bytes", "dur"}, "t", "rank")},
      {"tiny", *Schema::Make({{"b", FieldType::kU8}}, {"b"})},
      {"wide", *Schema::Make(wide, {"c0", "c99"})},
      {"mixed", *Schema::Make({{"a", FieldType::kI8}, {"b", FieldType::kI16}, {"c", FieldType::kU16},
                               {"d", FieldType::kU32}, {"e", FieldType::kF64}, {"f", FieldType::kI32}},
                              {"e"})},
  };
}

std::vector<std::byte> StoreModel::MakeRecord(const Schema& schema, uint64_t seed, size_t array, uint64_t index) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull ^ (array << 48) ^ index);
  std::vector<std::byte> r(schema.record_width());
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    const uint64_t v = rng();
    switch (schema.fields()[i].type) {
      case FieldType::kF64: schema.Set(r.data(), i, static_cast<double>(v % 1000000) / 7.0); break;
      case FieldType::kI8: case FieldType::kI16: case FieldType::kI32: case FieldType::kI64:
        schema.Set(r.data(), i, static_cast<int64_t>(v)); break;
      default: schema.Set(r.data(), i, v); break;
    }
  }
  // Time keys do not decrease: runs of three equal times, then a step.
  if (schema.time_field()) schema.Set(r.data(), *schema.time_field(), static_cast<int64_t>(index / 3 * 7));
  return r;
}

std::string StoreModel::Verify(StoreReader& reader) const {
  const Catalogue& cat = reader.store().catalogue();
  if (cat.arrays.size() != arrays.size()) {
    return fmt::format("{} arrays stored, {} expected", cat.arrays.size(), arrays.size());
  }
  for (size_t a = 0; a < arrays.size(); ++a) {
    const ModelArray& m = arrays[a];
    const ArrayDesc& d = cat.arrays[a];
    if (d.name != m.name || !(d.schema == m.schema)) return fmt::format("array {} is '{}', '{}' expected", a, d.name, m.name);
    if (d.record_count() != m.records.size()) {
      return fmt::format("array '{}' has {} records, {} expected", m.name, d.record_count(), m.records.size());
    }
    ChainCursor c = reader.Records(d);
    Result<bool> more = c.First();
    for (size_t i = 0; i < m.records.size(); ++i) {
      if (!more.ok()) return fmt::format("array '{}' record {}: {}", m.name, i, more.error().message());
      if (!*more) return fmt::format("array '{}' ends after {} records", m.name, i);
      if (std::memcmp(c.entry(), m.records[i].data(), m.records[i].size()) != 0) {
        return fmt::format("array '{}' record {} differs", m.name, i);
      }
      more = c.Next();
    }
    if (!more.ok()) return fmt::format("array '{}' after the last record: {}", m.name, more.error().message());
    if (*more) return fmt::format("array '{}' has more records than expected", m.name);
  }
  for (const auto& [ref, s] : strings) {
    Result<std::string> got = reader.String(ref);
    if (!got.ok()) return got.error().message();
    if (*got != s) return fmt::format("string at page {} offset {} differs", ref.page.value, ref.offset);
  }
  return {};
}

}  // namespace xtfq::test
