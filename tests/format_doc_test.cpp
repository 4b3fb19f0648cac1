// Keeps docs/format.md and store/format.h in step: every OFFSET/SIZE table row of the document
// must equal a row of format::kLayout under the same heading and the other way round, every
// "Size: N bytes." must equal the fixed size in the header, and the magic, page sizes and latest
// version must be the header's.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "importers/registry/importer_registry.h"
#include "layouts/darshan_layout.h"
#include "layouts/grid_layout.h"
#include "layouts/jobstats_layout.h"
#include "layouts/slurm_layout.h"
#include "store/format.h"
#include "store/log_histogram.h"
#include "store/summary.h"

namespace xtfq {
namespace {

struct Doc {
  std::map<std::string, std::set<std::tuple<std::string, uint32_t, uint32_t>>> rows;  // heading -> (name, off, size)
  std::map<std::string, uint32_t> sizes;
  std::string text;
  std::string last_version_row;
};

Doc ParseDoc() {
  std::ifstream in(std::string(XTFQ_SOURCE_DIR) + "/docs/format.md");
  REQUIRE_MESSAGE(in.good(), "docs/format.md is missing");
  Doc d;
  std::string line, heading;
  const std::regex head(R"(^#{2,4} (.+)$)");
  const std::regex row(R"(^\| (\d+) \| (\d+) \| `([A-Za-z0-9_.]+)` \|)");
  const std::regex size(R"(^Size: (\d+) bytes\.$)");
  const std::regex version(R"(^\| (\d+) \| .*\|$)");
  std::smatch m;
  bool in_versions = false;
  while (std::getline(in, line)) {
    d.text += line + "\n";
    if (std::regex_match(line, m, head)) {
      heading = m[1];
      in_versions = heading == "Version history";
    } else if (std::regex_search(line, m, row)) {
      d.rows[heading].emplace(m[3], std::stoul(m[1]), std::stoul(m[2]));
    } else if (std::regex_match(line, m, size)) {
      d.sizes[heading] = static_cast<uint32_t>(std::stoul(m[1]));
    } else if (in_versions && std::regex_match(line, m, version)) {
      d.last_version_row = m[1];
    }
  }
  return d;
}

TEST_CASE("format doc: every table row of docs/format.md equals store/format.h") {
  const Doc d = ParseDoc();
  std::map<std::string, std::set<std::tuple<std::string, uint32_t, uint32_t>>> header;
  for (const format::LayoutRow& r : format::kLayout) {
    header[std::string(r.table)].emplace(std::string(r.name), r.offset, r.size);
  }
  size_t darshan_tables = 0;
  for (const auto& [table, rows] : d.rows)
    darshan_tables += table.starts_with("Darshan ") || table.starts_with("Job stats ") || table.starts_with("Grid ") ||
                      table.starts_with("Slurm ");
  CHECK(d.rows.size() - darshan_tables == header.size());
  for (const auto& [table, rows] : header) {
    CAPTURE(table);
    REQUIRE(d.rows.count(table) == 1);
    CHECK(d.rows.at(table) == rows);
    // Fields tile the fixed part: each starts where the previous one ends.
    uint32_t end = 0;
    for (const auto& r : rows) end = std::max(end, std::get<1>(r) + std::get<2>(r));
    uint32_t sum = 0;
    for (const auto& r : rows) sum += std::get<2>(r);
    CHECK(sum == end);
  }
  for (const auto& [table, size] : format::kFixedSizes) {
    CAPTURE(table);
    REQUIRE(d.sizes.count(std::string(table)) == 1);
    CHECK(d.sizes.at(std::string(table)) == size);
    uint32_t end = 0;
    for (const auto& r : header.at(std::string(table))) end = std::max(end, std::get<1>(r) + std::get<2>(r));
    CHECK(end == size);
  }
}

// Each named table of the document lists exactly the schema's fields, offsets and widths, and its size.
template <size_t N>
void CheckTables(const Doc& d, const std::pair<const char*, const Schema*> (&tables)[N]) {
  for (const auto& [table, schema] : tables) {
    CAPTURE(table);
    std::set<std::tuple<std::string, uint32_t, uint32_t>> want;
    for (const Field& f : schema->fields()) want.emplace(f.name, f.offset, FieldWidth(f.type));
    REQUIRE(d.rows.count(table) == 1);
    CHECK(d.rows.at(table) == want);
    REQUIRE(d.sizes.count(table) == 1);
    CHECK(d.sizes.at(table) == schema->record_width());
  }
}

TEST_CASE("format doc: the Darshan layout tables equal DarshanLayout's schemas") {
  const Doc d = ParseDoc();
  const std::pair<const char*, const Schema*> tables[] = {{"Darshan log record", &DarshanLayout::LogSchema()},
                                                          {"Darshan source chunk", &DarshanLayout::SourceSchema()},
                                                          {"Darshan name record", &DarshanLayout::NamesSchema()},
                                                          {"Darshan DXT segment", &DarshanLayout::DxtSchema()},
                                                          {"Darshan DXT file record", &DarshanLayout::DxtFileSchema()},
                                                          {"Darshan heatmap bin", &DarshanLayout::HeatmapSchema()},
                                                          {"Darshan perf record", &DarshanLayout::PerfSchema()}};
  CheckTables(d, tables);
  CHECK(DarshanLayout::DxtSchema().record_width() == DarshanLayout::kDxtWidth);
  using L = DarshanLayout;
  const std::pair<const char*, uint32_t> offsets[] = {
      {"t", L::kDxtOffsetT},           {"rank", L::kDxtOffsetRank},     {"file", L::kDxtOffsetFile},
      {"offset", L::kDxtOffsetOffset}, {"length", L::kDxtOffsetLength}, {"duration", L::kDxtOffsetDuration},
      {"seq", L::kDxtOffsetSeq},       {"consec", L::kDxtOffsetConsec}, {"size_0_100", L::kDxtOffsetSizeClasses},
      {"thread", L::kDxtOffsetThread}};
  for (const auto& [name, offset] : offsets) {
    CAPTURE(name);
    CHECK(L::DxtSchema().fields()[*L::DxtSchema().Find(name)].offset == offset);
  }
  const std::pair<const char*, uint32_t> heat[] = {
      {"t", L::kHeatOffsetT},         {"rank", L::kHeatOffsetRank},       {"bin", L::kHeatOffsetBin},
      {"width", L::kHeatOffsetWidth}, {"read_bytes", L::kHeatOffsetRead}, {"write_bytes", L::kHeatOffsetWrite}};
  for (const auto& [name, offset] : heat) {
    CAPTURE(name);
    CHECK(L::HeatmapSchema().fields()[*L::HeatmapSchema().Find(name)].offset == offset);
  }
  CHECK(L::HeatmapSchema().record_width() == L::kHeatWidth);
}

TEST_CASE("format doc: the grid tables equal GridLayout's schemas") {
  const Doc d = ParseDoc();
  using G = GridLayout;
  const Schema events = Schema::Fixed({{"t", FieldType::kI64},
                                       {"bytes", FieldType::kI64},
                                       {"dur", FieldType::kF64},
                                       {"rank", FieldType::kI32},
                                       {"op", FieldType::kI32}},
                                      {"bytes", "dur"}, "t", "rank");
  const Schema cells = G::CellSchema(events, 0, false).value();
  const std::pair<const char*, const Schema*> tables[] = {{"Grid level record", &G::LevelSchema()},
                                                          {"Grid cell of an events array", &cells}};
  CheckTables(d, tables);
  auto at = [](const Schema& s, const char* name) { return s.fields()[*s.Find(name)].offset; };
  CHECK(G::LevelSchema().record_width() == G::kLevWidth);
  CHECK(at(G::LevelSchema(), "bin_shift") == G::kLevBinShift);
  CHECK(at(G::LevelSchema(), "source_records") == G::kLevSourceRecords);
  CHECK(at(G::LevelSchema(), "t_max") == G::kLevTMax);
  CHECK(at(cells, "count") == G::kCellCount);
  CHECK(at(cells, "bytes.sum") == G::kCellStats);
  CHECK(at(cells, "dur.sum") == G::kCellStats + Summary::kFieldBytes);
  // The distributions after the statistics, where the text puts them.
  const Schema with = G::CellSchema(events, 0).value();
  CHECK(at(with, "bytes.h0") == 88);
  CHECK(at(with, "dur.h0") == 344);
  CHECK(with.record_width() == 600);
  CHECK(with.fields()[*with.Find("dur.h63")].type == FieldType::kU32);
  CHECK(G::CellSchema(events, uint64_t{1} << 32).value().fields()[*with.Find("dur.h63")].type == FieldType::kU64);
  CHECK(d.text.find("`bytes.h0` at offset 88, `dur.h0` at 344; 600 bytes") != std::string::npos);
  CHECK(G::DistributionFields(events) == std::vector<size_t>{0, 1});
  CHECK(LogHistogram::kBins == 64);
  CHECK(LogHistogram::kFloatLowExponent == -30);
  CHECK(d.text.find("and -30 for an f64 field") != std::string::npos);
}

TEST_CASE("format doc: the Slurm layout tables equal SlurmLayout's schemas, and its offsets the schemas'") {
  const Doc d = ParseDoc();
  using S = SlurmLayout;
  const std::pair<const char*, const Schema*> tables[] = {{"Slurm series record", &S::SeriesSchema()},
                                                          {"Slurm tasks record", &S::TasksSchema()},
                                                          {"Slurm filesystem record", &S::FilesystemSchema()},
                                                          {"Slurm network record", &S::NetworkSchema()},
                                                          {"Slurm other record", &S::OtherSchema()}};
  CheckTables(d, tables);
  auto at = [](const Schema& s, const char* name) { return s.fields()[*s.Find(name)].offset; };
  const std::pair<const Schema*, std::vector<std::pair<const char*, uint32_t>>> offsets[] = {
      {&S::SeriesSchema(),
       {{"job", S::kSerJob},
        {"step", S::kSerStep},
        {"task", S::kSerTask},
        {"start", S::kSerStart},
        {"node_index", S::kSerNodeIndex},
        {"ntasks", S::kSerNtasks},
        {"cpus_per_task", S::kSerCpusPerTask},
        {"kind", S::kSerKind},
        {"source", S::kSerSource},
        {"flags", S::kSerFlags},
        {"rows", S::kSerRows},
        {"step_nodes", S::kSerStepNodes},
        {"node", S::kSerNode},
        {"path", S::kSerPath},
        {"file", S::kSerFile},
        {"start_text", S::kSerStartText}}},
      {&S::TasksSchema(),
       {{"t", S::kT},
        {"series", S::kSeriesId},
        {"row", S::kRow},
        {"elapsed", S::kElapsed},
        {"flags", S::kFlags},
        {"cpu_freq", S::kTaCpuFreq},
        {"cpu_time", S::kTaCpuTime},
        {"cpu_util", S::kTaCpuUtil},
        {"rss", S::kTaRss},
        {"vmsize", S::kTaVmSize},
        {"pages", S::kTaPages},
        {"read_mb", S::kTaReadMb},
        {"write_mb", S::kTaWriteMb},
        {"read_bytes", S::kTaReadBytes},
        {"write_bytes", S::kTaWriteBytes},
        {"gpu_mem_mb", S::kTaGpuMemMb},
        {"gpu_util", S::kTaGpuUtil}}},
      {&S::FilesystemSchema(),
       {{"reads", S::kFsReads},
        {"read_mb", S::kFsReadMb},
        {"writes", S::kFsWrites},
        {"write_mb", S::kFsWriteMb},
        {"d_reads", S::kFsDReads},
        {"d_read_bytes", S::kFsDReadBytes},
        {"d_writes", S::kFsDWrites},
        {"d_write_bytes", S::kFsDWriteBytes}}},
      {&S::NetworkSchema(),
       {{"packets_in", S::kNetPacketsIn},
        {"packets_out", S::kNetPacketsOut},
        {"in_mb", S::kNetInMb},
        {"out_mb", S::kNetOutMb},
        {"in_bytes", S::kNetInBytes},
        {"out_bytes", S::kNetOutBytes},
        {"in_packets", S::kNetInPackets},
        {"out_packets", S::kNetOutPackets}}},
      {&S::OtherSchema(), {{"field", S::kOtField}, {"type", S::kOtType}, {"value", S::kOtValue}}}};
  for (const auto& [schema, fields] : offsets) {
    for (const auto& [name, offset] : fields) {
      CAPTURE(name);
      CHECK(at(*schema, name) == offset);
    }
  }
  CHECK(S::SeriesSchema().record_width() == S::kSerWidth);
  CHECK(S::TasksSchema().record_width() == S::kTaWidth);
  CHECK(S::FilesystemSchema().record_width() == S::kFsWidth);
  CHECK(S::NetworkSchema().record_width() == S::kNetWidth);
  CHECK(S::OtherSchema().record_width() == S::kOtWidth);
}

TEST_CASE("format doc: the job stats layout tables equal JobStatsLayout's schemas") {
  const Doc d = ParseDoc();
  using J = JobStatsLayout;
  const std::pair<const char*, const Schema*> tables[] = {{"Job stats target record", &J::TargetSchema()},
                                                          {"Job stats op record", &J::OpSchema()},
                                                          {"Job stats series record", &J::SeriesSchema()},
                                                          {"Job stats collection record", &J::CollectionSchema()},
                                                          {"Job stats entry record", &J::EntrySchema()},
                                                          {"Job stats counter record", &J::CounterSchema()},
                                                          {"Job stats rate step", &J::StepSchema()},
                                                          {"Job stats block record", &J::BlockSchema()},
                                                          {"Job stats summary seal record", &J::SummarySealSchema()},
                                                          {"Job stats summary cell", &J::SummaryCellSchema()}};
  CheckTables(d, tables);
  // The offsets the importer and the queries use are the schemas'.
  auto at = [](const Schema& s, const char* name) { return s.fields()[*s.Find(name)].offset; };
  CHECK(J::SeriesSchema().record_width() == J::kSerWidth);
  CHECK(at(J::SeriesSchema(), "raw") == J::kSerRaw);
  CHECK(at(J::SeriesSchema(), "exe") == J::kSerExe);
  CHECK(at(J::SeriesSchema(), "uid") == J::kSerUid);
  CHECK(J::CollectionSchema().record_width() == J::kColWidth);
  CHECK(at(J::CollectionSchema(), "file") == J::kColFile);
  CHECK(at(J::CollectionSchema(), "duplicates") == J::kColDuplicates);
  CHECK(J::EntrySchema().record_width() == J::kEntWidth);
  CHECK(at(J::EntrySchema(), "first_counter") == J::kEntFirstCounter);
  CHECK(at(J::EntrySchema(), "line") == J::kEntLine);
  CHECK(J::CounterSchema().record_width() == J::kCntWidth);
  CHECK(at(J::CounterSchema(), "samples") == J::kCntSamples);
  CHECK(at(J::CounterSchema(), "hist") == J::kCntHist);
  CHECK(J::StepSchema().record_width() == J::kStepWidth);
  CHECK(at(J::StepSchema(), "t0") == J::kStepT0);
  CHECK(at(J::StepSchema(), "delta") == J::kStepDelta);
  CHECK(at(J::LegacyStepSchema(), "rate") == J::kStepRate);
  CHECK(J::LegacyStepSchema().record_width() == J::kLegacyStepWidth);
  // A block has a step's fields at a step's offsets.
  CHECK(J::BlockSchema().record_width() == J::kBlockWidth);
  for (const char* f : {"t1", "target", "t0", "flags", "delta", "samples", "sum", "rate"}) {
    CAPTURE(f);
    CHECK(at(J::BlockSchema(), f) == at(J::LegacyStepSchema(), f));
    if (J::StepSchema().Find(f)) CHECK(at(J::BlockSchema(), f) == at(J::StepSchema(), f));
  }
  CHECK(at(J::BlockSchema(), "steps") == J::kBlockSteps);
  CHECK(at(J::BlockSchema(), "first") == J::kBlockFirst);
  CHECK(*J::BlockSchema().FindAggregate("steps") == J::kBlockStepsAggregate);
  CHECK(*J::BlockSchema().FindAggregate("delta") == *J::LegacyStepSchema().FindAggregate("delta"));
  CHECK(*J::BlockSchema().FindAggregate("rate") == *J::LegacyStepSchema().FindAggregate("rate"));
  CHECK(!J::StepSchema().Find("rate"));
  CHECK(!J::StepSchema().process_field());
  CHECK(*J::LegacyStepSchema().process_field() == *J::LegacyStepSchema().Find("target"));
  CHECK(J::SummarySealSchema().record_width() == J::kSealWidth);
  CHECK(at(J::SummarySealSchema(), "bins") == J::kSealBins);
  CHECK(at(J::SummarySealSchema(), "steps") == J::kSealSteps);
  CHECK(J::SummaryCellSchema().record_width() == J::kSumWidth);
  CHECK(at(J::SummaryCellSchema(), "op") == J::kSumOp);
  CHECK(at(J::SummaryCellSchema(), "series_max") == J::kSumSeriesMax);
  CHECK(at(J::SummaryCellSchema(), "started") == J::kSumStarted);
  CHECK(at(J::SummaryCellSchema(), "carry") == J::kSumCarry);
  CHECK(at(J::SummaryCellSchema(), "alive") == J::kSumAlive);
  CHECK(J::CarrySummaryCellSchema().record_width() == J::kCarrySumWidth);
  CHECK(J::CarrySummaryCellSchema().record_width() == J::kSumAlive);  // a prefix: the same fields before alive
  CHECK(at(J::CarrySummaryCellSchema(), "carry") == J::kSumCarry);
  CHECK(J::LegacySummaryCellSchema().record_width() == J::kLegacySumWidth);
  CHECK(J::LegacySummaryCellSchema().record_width() == J::kSumCarry);  // a prefix: the same fields before carry
  CHECK(J::ZCellSchema().record_width() == J::kZWidth);
  CHECK(J::kZWidth == 272);
  CHECK(at(J::ZCellSchema(), "h0") == J::kZCounts);
  CHECK(at(J::ZCellSchema(), "h63") == J::kZCounts + 4 * 63);
  CHECK(J::kZRateExponent == -20);
  CHECK(d.text.find("log histogram bin i with lowest exponent -20") != std::string::npos);
  CHECK(d.text.find("then 64 counts `h0` .. `h63` (u32) at 16 + 4i") != std::string::npos);
}

TEST_CASE("format doc: magic and page sizes and version are the header's") {
  const Doc d = ParseDoc();
  CHECK(d.text.find(fmt::format("`{}`", format::kMagic)) != std::string::npos);
  CHECK(d.text.find(fmt::format("from {} to {}", format::kMinPageSize, format::kMaxPageSize)) != std::string::npos);
  // (the sentence as read, whatever the lines it is wrapped in)
  std::string prose;
  {
    std::istringstream in(d.text);
    for (std::string w; in >> w;) prose += (prose.empty() ? "" : " ") + w;
  }
  CHECK(prose.find(fmt::format("({} when every input of its first import is a Darshan log or job_stats, {} otherwise)",
                               ImporterRegistry::PageSizeFor({"darshan"}),
                               ImporterRegistry::PageSizeFor({"events"}))) != std::string::npos);
  CHECK(ImporterRegistry::PageSizeFor({"jobstats"}) == ImporterRegistry::PageSizeFor({"darshan"}));
  CHECK(ImporterRegistry::PageSizeFor({"slurm-hdf5"}) == ImporterRegistry::PageSizeFor({"events"}));
  CHECK(d.last_version_row == std::to_string(format::kFormatVersion));
}

}  // namespace
}  // namespace xtfq
