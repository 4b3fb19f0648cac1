#include "tests/store_model.h"

#include <fmt/format.h>

#include <cstring>
#include <map>

namespace xtfq::test {

std::vector<std::pair<std::string, Schema>> TestSchemas() {
  std::vector<std::pair<std::string, FieldType>> wide;
  for (int i = 0; i < 100; ++i) wide.emplace_back(fmt::format("c{}", i), FieldType::kU64);
  return {
      {"events", *Schema::Make({{"t", FieldType::kI64},
                                {"bytes", FieldType::kI64},
                                {"dur", FieldType::kF64},
                                {"rank", FieldType::kI32},
                                {"op", FieldType::kI32}},
                               {"bytes", "dur"}, "t", "rank")},
      {"tiny", *Schema::Make({{"b", FieldType::kU8}}, {"b"})},
      {"wide", *Schema::Make(wide, {"c0", "c99"})},
      {"mixed", *Schema::Make({{"a", FieldType::kI8},
                               {"b", FieldType::kI16},
                               {"c", FieldType::kU16},
                               {"d", FieldType::kU32},
                               {"e", FieldType::kF64},
                               {"f", FieldType::kI32}},
                              {"e"})},
  };
}

std::vector<std::byte> StoreModel::MakeRecord(const Schema& schema, uint64_t seed, size_t array, uint64_t index) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull ^ (array << 48) ^ index);
  std::vector<std::byte> r(schema.record_width());
  // Odd arrays hold low-entropy values (small, often repeated), which lz4 compresses, so that
  // stores hold both lz4 and raw pages; even arrays hold full random words, which it cannot.
  const bool low_entropy = array % 2 == 1;
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    const uint64_t v = low_entropy ? rng() % 4 * (index % 3) : rng();
    switch (schema.fields()[i].type) {
      case FieldType::kF64:
        schema.Set(r.data(), i, static_cast<double>(v % 1000000) / 7.0);
        break;
      case FieldType::kI8:
      case FieldType::kI16:
      case FieldType::kI32:
      case FieldType::kI64:
        schema.Set(r.data(), i, static_cast<int64_t>(v));
        break;
      default:
        schema.Set(r.data(), i, v);
        break;
    }
  }
  // Nine processes, some negative and some beyond the writer's dense range.
  if (schema.process_field()) {
    const uint64_t v = rng();
    schema.Set(r.data(), *schema.process_field(), static_cast<int64_t>(v % 50 == 0 ? 100000 + v % 2 : v % 7) - 2);
  }
  // Time keys do not decrease: runs of three equal times, then a step.
  if (schema.time_field()) schema.Set(r.data(), *schema.time_field(), static_cast<int64_t>(index / 3 * 7));
  return r;
}

namespace {
// Compares the records of `d` with `want`, in order.
std::string SameRecords(StoreReader& reader, const ArrayDesc& d, const std::vector<std::vector<std::byte>>& want) {
  if (d.record_count() != want.size()) {
    return fmt::format("array '{}' has {} records, {} expected", d.name, d.record_count(), want.size());
  }
  ChainCursor c = reader.Records(d);
  Result<bool> more = c.First();
  for (size_t i = 0; i < want.size(); ++i) {
    if (!more.ok()) return fmt::format("array '{}' record {}: {}", d.name, i, more.error().message());
    if (!*more) return fmt::format("array '{}' ends after {} records", d.name, i);
    if (std::memcmp(c.entry(), want[i].data(), want[i].size()) != 0)
      return fmt::format("array '{}' record {} differs", d.name, i);
    more = c.Next();
  }
  if (!more.ok()) return fmt::format("array '{}' after the last record: {}", d.name, more.error().message());
  if (*more) return fmt::format("array '{}' has more records than expected", d.name);
  return {};
}
}  // namespace

std::string StoreModel::Verify(StoreReader& reader) const {
  const Catalogue& cat = reader.store().catalogue();
  std::vector<const ArrayDesc*> own;
  for (const ArrayDesc& d : cat.arrays) {
    if (!d.per_process()) own.push_back(&d);
  }
  if (own.size() != arrays.size()) return fmt::format("{} arrays stored, {} expected", own.size(), arrays.size());
  for (size_t a = 0; a < arrays.size(); ++a) {
    const ModelArray& m = arrays[a];
    const ArrayDesc& d = *own[a];
    if (d.name != m.name || !(d.schema == m.schema))
      return fmt::format("array {} is '{}', '{}' expected", a, d.name, m.name);
    if (std::string e = SameRecords(reader, d, m.records); !e.empty()) return e;
    if (d.process_index != m.schema.process_field().has_value())
      return fmt::format("array '{}': process index flag", m.name);
    if (!d.process_index) continue;
    // The P index: one per-process array per process, holding that process's records in order;
    // none while every record is of one process (a sole-process array).
    std::map<int64_t, std::vector<std::vector<std::byte>>> by_process;
    for (const auto& r : m.records) by_process[m.schema.Process(r.data())].push_back(r);
    const bool sole = by_process.size() == 1;
    if (d.sole_process != sole || (sole && d.process != by_process.begin()->first)) {
      return fmt::format("array '{}': records of {} processes, sole process flag {} (process {})", m.name,
                         by_process.size(), d.sole_process, d.process);
    }
    if (sole) by_process.clear();
    size_t children = 0;
    for (const ArrayDesc& c : cat.arrays) {
      if (c.parent != d.id) continue;
      ++children;
      auto it = by_process.find(c.process);
      if (it == by_process.end()) return fmt::format("array '{}' has no record of process {}", m.name, c.process);
      if (std::string e = SameRecords(reader, c, it->second); !e.empty()) return e;
    }
    if (children != by_process.size())
      return fmt::format("array '{}': {} per-process arrays for {} processes", m.name, children, by_process.size());
  }
  for (const auto& [ref, s] : strings) {
    Result<std::string> got = reader.String(ref);
    if (!got.ok()) return got.error().message();
    if (*got != s) return fmt::format("string at page {} offset {} differs", ref.page.value, ref.offset);
  }
  return {};
}

}  // namespace xtfq::test
