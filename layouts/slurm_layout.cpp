#include "layouts/slurm_layout.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace xtfq {

namespace {

using Fields = std::vector<std::pair<std::string, FieldType>>;

// The head of every sample record, then `rest`.
Fields WithHead(const Fields& rest) {
  Fields f = {{"t", FieldType::kI64},       {"series", FieldType::kU32}, {"row", FieldType::kU32},
              {"elapsed", FieldType::kI64}, {"flags", FieldType::kU32},  {"interval", FieldType::kU32}};
  f.insert(f.end(), rest.begin(), rest.end());
  return f;
}

}  // namespace

std::string SlurmLayout::JobArrayName(int64_t job, std::string_view kind) {
  return fmt::format("{}{}/{}", kJobPrefix, job, kind);
}

std::string SlurmLayout::StepName(int64_t step) {
  if (step == kBatchStep) return "batch";
  if (step == -4) return "extern";
  if (step == -6) return "interactive";
  return std::to_string(step);
}

std::string_view SlurmLayout::KindName(uint8_t kind) {
  static constexpr std::string_view kNames[] = {"Tasks", "Network", "Filesystem", "Energy", "other"};
  return kind < std::size(kNames) ? kNames[kind] : "unknown";
}

std::string_view SlurmLayout::SourceName(uint8_t source) {
  static constexpr std::string_view kNames[] = {"node-step file", "merged file", "influxdb"};
  return source < std::size(kNames) ? kNames[source] : "unknown";
}

const Schema& SlurmLayout::SeriesSchema() {
  static const Schema s = Schema::Fixed({{"job", FieldType::kI64},
                                         {"step", FieldType::kI64},
                                         {"task", FieldType::kI64},
                                         {"start", FieldType::kI64},
                                         {"node_index", FieldType::kI32},
                                         {"ntasks", FieldType::kI32},
                                         {"cpus_per_task", FieldType::kI32},
                                         {"kind", FieldType::kU8},
                                         {"source", FieldType::kU8},
                                         {"flags", FieldType::kU16},
                                         {"rows", FieldType::kU32},
                                         {"step_nodes", FieldType::kI32},
                                         {"node", FieldType::kU64},
                                         {"path", FieldType::kU64},
                                         {"file", FieldType::kU64},
                                         {"start_text", FieldType::kU64}},
                                        {});
  return s;
}

const Schema& SlurmLayout::TasksSchema() {
  static const Schema s =
      Schema::Fixed(WithHead({{"cpu_freq", FieldType::kU64},
                              {"cpu_time", FieldType::kF64},
                              {"cpu_util", FieldType::kF64},
                              {"rss", FieldType::kU64},
                              {"vmsize", FieldType::kU64},
                              {"pages", FieldType::kU64},
                              {"read_mb", FieldType::kF64},
                              {"write_mb", FieldType::kF64},
                              {"read_bytes", FieldType::kU64},
                              {"write_bytes", FieldType::kU64},
                              {"gpu_mem_mb", FieldType::kU64},
                              {"gpu_util", FieldType::kF64}}),
                    {"interval", "cpu_time", "rss", "vmsize", "pages", "read_bytes", "write_bytes"}, "t", "series");
  return s;
}

const Schema& SlurmLayout::FilesystemSchema() {
  static const Schema s =
      Schema::Fixed(WithHead({{"reads", FieldType::kU64},
                              {"read_mb", FieldType::kF64},
                              {"writes", FieldType::kU64},
                              {"write_mb", FieldType::kF64},
                              {"d_reads", FieldType::kU64},
                              {"d_read_bytes", FieldType::kU64},
                              {"d_writes", FieldType::kU64},
                              {"d_write_bytes", FieldType::kU64}}),
                    {"interval", "d_reads", "d_read_bytes", "d_writes", "d_write_bytes"}, "t", "series");
  return s;
}

const Schema& SlurmLayout::NetworkSchema() {
  static const Schema s =
      Schema::Fixed(WithHead({{"packets_in", FieldType::kU64},
                              {"packets_out", FieldType::kU64},
                              {"in_mb", FieldType::kF64},
                              {"out_mb", FieldType::kF64},
                              {"in_bytes", FieldType::kU64},
                              {"out_bytes", FieldType::kU64},
                              {"in_packets", FieldType::kU64},
                              {"out_packets", FieldType::kU64}}),
                    {"interval", "in_bytes", "out_bytes", "in_packets", "out_packets"}, "t", "series");
  return s;
}

const Schema& SlurmLayout::OtherSchema() {
  static const Schema s = Schema::Fixed(WithHead({{"field", FieldType::kU64},
                                                  {"type", FieldType::kU8},
                                                  {"pad1", FieldType::kU8},
                                                  {"pad2", FieldType::kU16},
                                                  {"pad3", FieldType::kU32},
                                                  {"value", FieldType::kU64}}),
                                        {}, "t", "series");
  return s;
}

std::string_view SlurmLayout::FieldUnit(std::string_view f) {
  if (f.ends_with("_bytes")) return "bytes";
  if (f.ends_with("_packets") || f.starts_with("packets_")) return "packets";
  if (f.ends_with("_mb")) return "MB";
  if (f == "cpu_time" || f == "interval" || f == "elapsed") return "s";
  if (f == "rss" || f == "vmsize") return "KiB";
  if (f == "reads" || f == "writes" || f == "d_reads" || f == "d_writes") return "ops";
  if (f == "pages") return "pages";
  if (f == "cpu_freq") return "kHz";
  if (f == "cpu_util" || f == "gpu_util") return "%";
  return "";
}

}  // namespace xtfq
