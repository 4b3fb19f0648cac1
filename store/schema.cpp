#include "store/schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "store/endian.h"
#include "store/format.h"

namespace xtfq {

Result<Schema> Schema::Make(const std::vector<std::pair<std::string, FieldType>>& fields,
                            const std::vector<std::string>& aggregates, std::string_view time,
                            std::string_view process) {
  auto index_of = [&](std::string_view name, std::string_view role) -> Result<uint16_t> {
    if (name.empty()) return format::kNoField;
    auto it = std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == name; });
    if (it == fields.end()) {
      return Error(ErrorCode::kInvalidArgument, fmt::format("{} field '{}' is not a field", role, name));
    }
    return static_cast<uint16_t>(it - fields.begin());
  };
  XTFQ_ASSIGN_OR_RETURN(uint16_t t, index_of(time, "time"));
  XTFQ_ASSIGN_OR_RETURN(uint16_t p, index_of(process, "process"));
  std::vector<uint16_t> idx;
  for (const std::string& a : aggregates) {
    auto it = std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == a; });
    if (it == fields.end()) {
      return Error(ErrorCode::kInvalidArgument, fmt::format("aggregate field '{}' is not a field", a));
    }
    idx.push_back(static_cast<uint16_t>(it - fields.begin()));
  }
  return FromIndexes(fields, idx, t, p);
}

Result<Schema> Schema::FromIndexes(const std::vector<std::pair<std::string, FieldType>>& fields,
                                   const std::vector<uint16_t>& aggregates, uint16_t time, uint16_t process) {
  auto bad = [](const std::string& m) { return Error(ErrorCode::kInvalidArgument, m); };
  if (fields.empty() || fields.size() > format::kMaxFields) {
    return bad(fmt::format("a schema needs 1 to {} fields, not {}", format::kMaxFields, fields.size()));
  }
  Schema s;
  std::set<std::string_view> names;
  for (const auto& [name, type] : fields) {
    if (name.empty() || name.size() > format::kMaxNameLength) {
      return bad(fmt::format("field name '{}' must have 1 to {} bytes", name, format::kMaxNameLength));
    }
    if (!names.insert(name).second) return bad(fmt::format("field '{}' declared twice", name));
    if (!ValidFieldType(static_cast<uint8_t>(type))) {
      return bad(fmt::format("field '{}' has unknown type {}", name, static_cast<int>(type)));
    }
    s.fields_.push_back(Field{name, type, s.width_});
    s.width_ += FieldWidth(type);
  }
  std::set<uint16_t> seen;
  for (uint16_t a : aggregates) {
    if (a >= fields.size()) return bad(fmt::format("aggregate field index {} out of range", a));
    if (!seen.insert(a).second) return bad(fmt::format("field '{}' aggregated twice", fields[a].first));
    s.aggregates_.push_back(a);
    s.aggregate_fields_.push_back(AggregateField{s.fields_[a].offset, s.fields_[a].type});
  }
  for (auto [index, slot, role] : {std::tuple{time, &s.time_, "time"}, std::tuple{process, &s.process_, "process"}}) {
    if (index == format::kNoField) continue;
    if (index >= fields.size()) return bad(fmt::format("{} field index {} out of range", role, index));
    if (fields[index].second == FieldType::kF64 || fields[index].second == FieldType::kU64) {
      return bad(
          fmt::format("{} field '{}' must be a signed integer or a narrower unsigned one", role, fields[index].first));
    }
    *slot = index;
  }
  if (s.time_) s.time_at_ = AggregateField{s.fields_[*s.time_].offset, s.fields_[*s.time_].type};
  if (s.process_) s.process_at_ = AggregateField{s.fields_[*s.process_].offset, s.fields_[*s.process_].type};
  return s;
}

int64_t Schema::TimeSlow(const std::byte* r) const { return LoadInteger(r + time_at_.offset, time_at_.type); }

int64_t Schema::Process(const std::byte* r) const { return LoadInteger(r + process_at_.offset, process_at_.type); }

std::optional<size_t> Schema::Find(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<size_t> Schema::FindAggregate(std::string_view name) const {
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    if (fields_[aggregates_[a]].name == name) return a;
  }
  return std::nullopt;
}

Value Schema::Get(const std::byte* r, size_t i) const {
  const std::byte* p = r + fields_[i].offset;
  switch (fields_[i].type) {
    case FieldType::kI8:
      return int64_t{LoadLe<int8_t>(p)};
    case FieldType::kI16:
      return int64_t{LoadLe<int16_t>(p)};
    case FieldType::kI32:
      return int64_t{LoadLe<int32_t>(p)};
    case FieldType::kI64:
      return LoadLe<int64_t>(p);
    case FieldType::kU8:
      return uint64_t{LoadLe<uint8_t>(p)};
    case FieldType::kU16:
      return uint64_t{LoadLe<uint16_t>(p)};
    case FieldType::kU32:
      return uint64_t{LoadLe<uint32_t>(p)};
    case FieldType::kU64:
      return LoadLe<uint64_t>(p);
    case FieldType::kF64:
      return LoadLe<double>(p);
  }
  return int64_t{0};
}

double Schema::GetDouble(const std::byte* r, size_t i) const {
  return std::visit([](auto v) { return static_cast<double>(v); }, Get(r, i));
}

void Schema::Set(std::byte* r, size_t i, Value v) const {
  std::byte* p = r + fields_[i].offset;
  auto as = [&](auto tag) { return std::visit([](auto x) { return static_cast<decltype(tag)>(x); }, v); };
  switch (fields_[i].type) {
    case FieldType::kI8:
      StoreLe<int8_t>(p, as(int8_t{}));
      break;
    case FieldType::kI16:
      StoreLe<int16_t>(p, as(int16_t{}));
      break;
    case FieldType::kI32:
      StoreLe<int32_t>(p, as(int32_t{}));
      break;
    case FieldType::kI64:
      StoreLe<int64_t>(p, as(int64_t{}));
      break;
    case FieldType::kU8:
      StoreLe<uint8_t>(p, as(uint8_t{}));
      break;
    case FieldType::kU16:
      StoreLe<uint16_t>(p, as(uint16_t{}));
      break;
    case FieldType::kU32:
      StoreLe<uint32_t>(p, as(uint32_t{}));
      break;
    case FieldType::kU64:
      StoreLe<uint64_t>(p, as(uint64_t{}));
      break;
    case FieldType::kF64:
      StoreLe<double>(p, as(double{}));
      break;
  }
}

std::string Schema::Describe() const {
  std::string out;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) out += ' ';
    out += fields_[i].name;
    out += ':';
    out += FieldTypeName(fields_[i].type);
    if (std::find(aggregates_.begin(), aggregates_.end(), i) != aggregates_.end()) out += '*';
    if (time_ == i) out += "@time";
    if (process_ == i) out += "@process";
  }
  return out;
}

bool Schema::operator==(const Schema& o) const {
  if (fields_.size() != o.fields_.size() || aggregates_ != o.aggregates_ || time_ != o.time_ ||
      process_ != o.process_) {
    return false;
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name != o.fields_[i].name || fields_[i].type != o.fields_[i].type) return false;
  }
  return true;
}

}  // namespace xtfq
