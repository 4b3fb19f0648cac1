#include "layouts/darshan_layout.h"

#include <fmt/format.h>

#include <array>

namespace xtfq {

namespace {
using Fields = std::vector<std::pair<std::string, FieldType>>;

constexpr std::array<std::string_view, DarshanLayout::kSizeClasses> kSizeClassNames = {
    "0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G", "1G_PLUS"};

bool Aggregated(std::string_view name) {
  for (std::string_view suffix : {"_OPENS", "_READS", "_WRITES", "_BYTES_READ", "_BYTES_WRITTEN", "_F_READ_TIME",
                                  "_F_WRITE_TIME", "_F_META_TIME"}) {
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) return true;
  }
  return false;
}
}  // namespace

int64_t DarshanLayout::SourceKey(int64_t log, uint64_t chunk) { return (log << 32) | static_cast<int64_t>(chunk); }

std::string DarshanLayout::ArrayName(int64_t log, std::string_view part) {
  return fmt::format("darshan/{}/{}", log, part);
}

const Schema& DarshanLayout::LogSchema() {
  static const Schema s = Schema::Fixed({{"log", FieldType::kI64},
                                         {"job", FieldType::kI64},
                                         {"uid", FieldType::kI64},
                                         {"start_sec", FieldType::kI64},
                                         {"start_nsec", FieldType::kI64},
                                         {"end_sec", FieldType::kI64},
                                         {"end_nsec", FieldType::kI64},
                                         {"nprocs", FieldType::kI64},
                                         {"format_minor", FieldType::kI64},
                                         {"partial", FieldType::kU64},
                                         {"source_kind", FieldType::kU8},
                                         {"source_bytes", FieldType::kU64},
                                         {"exe", FieldType::kU64},
                                         {"metadata", FieldType::kU64},
                                         {"mounts", FieldType::kU64},
                                         {"file", FieldType::kU64}},
                                        {});
  return s;
}

const Schema& DarshanLayout::SourceSchema() {
  static const Schema s = Schema::Fixed({{"key", FieldType::kI64},
                                         {"log", FieldType::kI64},
                                         {"chunk", FieldType::kU64},
                                         {"bytes", FieldType::kU32},
                                         {"data", FieldType::kU64}},
                                        {"bytes"}, "key");
  return s;
}

const Schema& DarshanLayout::NamesSchema() {
  static const Schema s = Schema::Fixed({{"id", FieldType::kU64}, {"name", FieldType::kU64}}, {});
  return s;
}

Result<Schema> DarshanLayout::CounterSchema(const std::vector<std::string_view>& names, size_t ints, bool file_rec,
                                            bool tail) {
  Fields f = {{"id", FieldType::kU64}, {"rank", FieldType::kI64}, {"t", FieldType::kI64}};
  std::vector<std::string> aggregates;
  for (size_t i = 0; i < names.size(); ++i) {
    f.emplace_back(std::string(names[i]), i < ints ? FieldType::kI64 : FieldType::kF64);
    if (Aggregated(names[i])) aggregates.emplace_back(names[i]);
  }
  if (file_rec) f.emplace_back("file_rec_id", FieldType::kU64);
  if (tail) f.emplace_back("tail", FieldType::kU64);
  return Schema::Make(f, aggregates, "t", "rank");
}

Result<Schema> DarshanLayout::TotalSchema(const std::vector<std::string_view>& names, size_t ints) {
  Fields f = {{"id", FieldType::kU64}, {"rank", FieldType::kI64}, {"t", FieldType::kI64}};
  for (size_t i = 0; i < names.size(); ++i) {
    f.emplace_back(std::string(names[i]), i < ints ? FieldType::kI64 : FieldType::kF64);
  }
  return Schema::Make(f, {}, "t");
}

const Schema& DarshanLayout::DxtSchema() {
  static const Schema s = [] {
    Fields f = {{"t", FieldType::kI64},      {"rank", FieldType::kI64},   {"file", FieldType::kU64},
                {"offset", FieldType::kI64}, {"length", FieldType::kI64}, {"duration", FieldType::kF64},
                {"seq", FieldType::kU8},     {"consec", FieldType::kU8}};
    std::vector<std::string> aggregates = {"length", "duration", "seq", "consec"};
    for (std::string_view b : kSizeClassNames) {
      f.emplace_back(fmt::format("size_{}", b), FieldType::kU8);
      aggregates.push_back(f.back().first);
    }
    f.emplace_back("thread", FieldType::kU64);
    return Schema::Fixed(f, aggregates, "t", "rank");
  }();
  return s;
}

const Schema& DarshanLayout::DxtFileSchema() {
  static const Schema s = Schema::Fixed({{"id", FieldType::kU64},
                                         {"rank", FieldType::kI64},
                                         {"hostname", FieldType::kU64},
                                         {"writes", FieldType::kI64},
                                         {"reads", FieldType::kI64}},
                                        {});
  return s;
}

const Schema& DarshanLayout::HeatmapSchema() {
  static const Schema s = Schema::Fixed({{"t", FieldType::kI64},
                                         {"rank", FieldType::kI64},
                                         {"bin", FieldType::kU32},
                                         {"width", FieldType::kF64},
                                         {"read_bytes", FieldType::kI64},
                                         {"write_bytes", FieldType::kI64}},
                                        {"read_bytes", "write_bytes"}, "t", "rank");
  return s;
}

const Schema& DarshanLayout::PerfSchema() {
  static const Schema s = [] {
    Fields f = {{"slot", FieldType::kI64},
                {"records", FieldType::kI64},
                {"total_bytes", FieldType::kI64},
                {"slowest_rank", FieldType::kI64}};
    for (const char* name : {"slowest_rank_io_time", "slowest_rank_meta_only_time", "slowest_rank_rw_only_time",
                             "time_by_slowest", "agg_time_by_slowest", "agg_perf_by_slowest"}) {
      f.emplace_back(name, FieldType::kF64);
    }
    for (std::string_view line : kFileLines) {
      for (const char* what : {"_file_count", "_total_bytes", "_max_byte_offset"}) {
        f.emplace_back(fmt::format("{}{}", line, what), FieldType::kI64);
      }
    }
    return Schema::Fixed(f, {}, "slot");
  }();
  return s;
}

int DarshanLayout::SizeClass(int64_t bytes) {
  static constexpr std::array<int64_t, kSizeClasses - 1> kUpper = {100,     1024,     10240,     102400,    1048576,
                                                                   4194304, 10485760, 104857600, 1073741824};
  for (int b = 0; b < kSizeClasses - 1; ++b) {
    if (bytes <= kUpper[static_cast<size_t>(b)]) return b;
  }
  return kSizeClasses - 1;
}

std::string_view DarshanLayout::SizeClassName(int size_class) {
  return kSizeClassNames[static_cast<size_t>(size_class)];
}

std::string_view DarshanLayout::ModuleName(int slot) {
  static constexpr std::array<std::string_view, 18> kModuleNames = {
      "NULL",  "POSIX",     "MPI-IO",    "H5F",   "H5D",  "PNETCDF_FILE", "PNETCDF_VAR", "BG/Q", "LUSTRE",
      "STDIO", "DXT_POSIX", "DXT_MPIIO", "MDHIM", "APXC", "APMPI",        "HEATMAP",     "DFS",  "DAOS"};
  return slot >= 0 && slot < static_cast<int>(kModuleNames.size()) ? kModuleNames[static_cast<size_t>(slot)]
                                                                   : std::string_view();
}

}  // namespace xtfq
