#include "layouts/jobstats_layout.h"

#include <fmt/format.h>

#include "store/endian.h"

namespace xtfq {

std::string_view JobIdClassName(JobIdClass c) {
  static constexpr std::string_view kNames[kJobIdClasses] = {"ok",        "missing_job", "fqdn",
                                                             "truncated", "system_uid",  "malformed"};
  const auto i = static_cast<size_t>(c);
  return i < kJobIdClasses ? kNames[i] : "unknown";
}

std::string JobStatsLayout::StepArrayName(std::string_view op) {
  return std::string(kStepArrayPrefix) + std::string(op);
}

std::string JobStatsLayout::BlockArrayName(std::string_view op) {
  return std::string(kBlockArrayPrefix) + std::string(op);
}

bool JobStatsLayout::IsLustreOp(std::string_view op) {
  static constexpr std::string_view kOps[] = {
      // MDT
      "open", "close", "mknod", "link", "unlink", "mkdir", "rmdir", "rename", "getattr", "setattr", "getxattr",
      "setxattr", "statfs", "sync", "samedir_rename", "parallel_rename_file", "parallel_rename_dir", "crossdir_rename",
      "rename_trylocks", "read_bytes", "write_bytes", "read", "write", "punch", "migrate", "fallocate", "readpage",
      // OST (those not above)
      "destroy", "create", "get_info", "set_info", "quotactl", "prealloc"};
  for (std::string_view k : kOps) {
    if (k == op) return true;
  }
  return false;
}

const Schema& JobStatsLayout::TargetSchema() {
  static const Schema s = Schema::Fixed({{"name", FieldType::kU64}}, {});
  return s;
}

const Schema& JobStatsLayout::OpSchema() { return TargetSchema(); }  // the same: a name

const Schema& JobStatsLayout::SeriesSchema() {
  static const Schema s = Schema::Fixed({{"t", FieldType::kI64},
                                         {"target", FieldType::kU32},
                                         {"cls", FieldType::kU8},
                                         {"tmpl", FieldType::kI8},
                                         {"quoted", FieldType::kU8},
                                         {"pad", FieldType::kU8},
                                         {"uid", FieldType::kI64},
                                         {"gid", FieldType::kI64},
                                         {"pid", FieldType::kI64},
                                         {"raw", FieldType::kU64},
                                         {"job", FieldType::kU64},
                                         {"node", FieldType::kU64},
                                         {"exe", FieldType::kU64}},
                                        {}, "t");
  return s;
}

const Schema& JobStatsLayout::CollectionSchema() {
  static const Schema s = Schema::Fixed({{"t", FieldType::kI64},
                                         {"target", FieldType::kI64},
                                         {"first_entry", FieldType::kU64},
                                         {"entries", FieldType::kU32},
                                         {"flags", FieldType::kU32},
                                         {"first_counter", FieldType::kU64},
                                         {"counters", FieldType::kU32},
                                         {"duplicates", FieldType::kU32},
                                         {"file", FieldType::kU64}},
                                        {"entries"}, "t", "target");
  return s;
}

const Schema& JobStatsLayout::EntrySchema() {
  static const Schema s = Schema::Fixed({{"t", FieldType::kI64},
                                         {"series", FieldType::kU32},
                                         {"flags", FieldType::kU32},
                                         {"snapshot", FieldType::kF64},
                                         {"start", FieldType::kF64},
                                         {"elapsed", FieldType::kF64},
                                         {"first_counter", FieldType::kU64},
                                         {"counters", FieldType::kU32},
                                         {"line", FieldType::kU32}},
                                        {}, "t");
  return s;
}

const Schema& JobStatsLayout::CounterSchema() {
  static const Schema s = Schema::Fixed({{"t", FieldType::kI64},
                                         {"series", FieldType::kU32},
                                         {"op", FieldType::kU32},
                                         {"unit", FieldType::kU8},
                                         {"has", FieldType::kU8},
                                         {"pad", FieldType::kU16},
                                         {"samples", FieldType::kU64},
                                         {"min", FieldType::kU64},
                                         {"max", FieldType::kU64},
                                         {"sum", FieldType::kU64},
                                         {"sumsq", FieldType::kU64},
                                         {"hist", FieldType::kU64}},
                                        {}, "t");
  return s;
}

namespace {

std::vector<std::pair<std::string, FieldType>> StepFields() {
  return {{"t1", FieldType::kI64},    {"target", FieldType::kU32},  {"series", FieldType::kU32},
          {"t0", FieldType::kI64},    {"flags", FieldType::kU32},   {"pad", FieldType::kU32},
          {"delta", FieldType::kU64}, {"samples", FieldType::kU64}, {"sum", FieldType::kU64}};
}

}  // namespace

const Schema& JobStatsLayout::StepSchema() {
  static const Schema s = Schema::Fixed(StepFields(), {"delta", "samples", "sum"}, "t1");
  return s;
}

const Schema& JobStatsLayout::LegacyStepSchema() {
  static const Schema s = [] {
    auto f = StepFields();
    f.emplace_back("rate", FieldType::kF64);
    return Schema::Fixed(f, {"delta", "samples", "sum", "rate"}, "t1", "target");
  }();
  return s;
}

double JobStatsLayout::StepRate(const std::byte* step) {
  return static_cast<double>(LoadLe<uint64_t>(step + kStepDelta)) /
         static_cast<double>(LoadLe<int64_t>(step + kStepT1) - LoadLe<int64_t>(step + kStepT0));
}

const Schema& JobStatsLayout::BlockSchema() {
  static const Schema s = Schema::Fixed({{"t1", FieldType::kI64},
                                         {"target", FieldType::kU32},
                                         {"steps", FieldType::kU32},
                                         {"t0", FieldType::kI64},
                                         {"flags", FieldType::kU32},
                                         {"pad", FieldType::kU32},
                                         {"delta", FieldType::kU64},
                                         {"samples", FieldType::kU64},
                                         {"sum", FieldType::kU64},
                                         {"rate", FieldType::kF64},
                                         {"first", FieldType::kU64}},
                                        {"delta", "samples", "sum", "rate", "steps"}, "t1", "target");
  return s;
}

bool JobStatsLayout::CountsBytes(std::string_view op, std::string_view unit) {
  return unit == "bytes" || (op.size() > 6 && op.substr(op.size() - 6) == "_bytes");
}

uint8_t JobStatsLayout::UnitCode(std::string_view unit) {
  if (unit.empty()) return 0;
  if (unit == "reqs") return 1;
  if (unit == "bytes") return 2;
  if (unit == "usecs") return 3;
  return 4;
}

std::string_view JobStatsLayout::UnitName(uint8_t code) {
  switch (code) {
    case 0:
      return "";
    case 1:
      return "reqs";
    case 2:
      return "bytes";
    case 3:
      return "usecs";
    default:
      return "other";
  }
}

std::string JobStatsLayout::SummaryName(std::string_view key) { return fmt::format("{}{}", kSummaryPrefix, key); }

std::string JobStatsLayout::SummaryLevelName(std::string_view key, int j) {
  return fmt::format("{}{}/{}", kSummaryPrefix, key, j);
}

const Schema& JobStatsLayout::SummarySealSchema() {
  static const Schema s = Schema::Fixed(
      {{"t", FieldType::kI64}, {"bin_shift", FieldType::kI64}, {"bins", FieldType::kI64}, {"steps", FieldType::kU64}},
      {}, "t");
  return s;
}

namespace {
std::vector<std::pair<std::string, FieldType>> SummaryCellFields() {
  return {{"t", FieldType::kI64},      {"group", FieldType::kU32}, {"op", FieldType::kU32},
          {"ended", FieldType::kF64},  {"peak", FieldType::kF64},  {"series_max", FieldType::kF64},
          {"started", FieldType::kU64}};
}
}  // namespace

const Schema& JobStatsLayout::SummaryCellSchema() {
  static const Schema s = [] {
    auto f = SummaryCellFields();
    f.emplace_back("carry", FieldType::kF64);
    f.emplace_back("alive", FieldType::kU64);
    return Schema::Fixed(f, {}, "t");
  }();
  return s;
}

const Schema& JobStatsLayout::CarrySummaryCellSchema() {
  static const Schema s = [] {
    auto f = SummaryCellFields();
    f.emplace_back("carry", FieldType::kF64);
    return Schema::Fixed(f, {}, "t");
  }();
  return s;
}

const Schema& JobStatsLayout::LegacySummaryCellSchema() {
  static const Schema s = Schema::Fixed(SummaryCellFields(), {}, "t");
  return s;
}

const Schema& JobStatsLayout::ZCellSchema() {
  static const Schema s = [] {
    std::vector<std::pair<std::string, FieldType>> f = {
        {"t", FieldType::kI64}, {"target", FieldType::kU32}, {"op", FieldType::kU32}};
    for (int i = 0; i < 64; ++i) f.emplace_back(fmt::format("h{}", i), FieldType::kU32);
    return Schema::Fixed(f, {}, "t");
  }();
  return s;
}

}  // namespace xtfq
