#include "layouts/grid_layout.h"

#include <fmt/format.h>

#include "store/log_histogram.h"

namespace xtfq {

namespace {
std::string_view Suffix(GridLayout::Family f) { return f == GridLayout::Family::kCells ? "#grid" : "#grid-dist"; }
}  // namespace

std::string GridLayout::LevelsName(std::string_view array, Family family) {
  return fmt::format("{}{}", array, Suffix(family));
}

std::string GridLayout::CellsName(std::string_view array, int level, Family family) {
  return fmt::format("{}{}/{}", array, Suffix(family), level);
}

bool GridLayout::IsGridArray(std::string_view name) { return name.find("#grid") != std::string_view::npos; }

const Schema& GridLayout::LevelSchema() {
  static const Schema s = Schema::Fixed({{"level", FieldType::kI64},
                                         {"block_shift", FieldType::kI64},
                                         {"bin_shift", FieldType::kI64},
                                         {"source_records", FieldType::kU64},
                                         {"cells", FieldType::kU64},
                                         {"p_min", FieldType::kI64},
                                         {"p_max", FieldType::kI64},
                                         {"t_min", FieldType::kI64},
                                         {"t_max", FieldType::kI64}},
                                        {});
  return s;
}

std::vector<size_t> GridLayout::DistributionFields(const Schema& source) {
  std::vector<size_t> out;
  for (size_t a = 0; a < source.aggregates().size(); ++a) {
    const FieldType t = source.fields()[source.aggregates()[a]].type;
    if (t == FieldType::kI64 || t == FieldType::kF64) out.push_back(a);
  }
  if (out.size() > kMaxDistributions) out.clear();
  return out;
}

std::vector<GridLayout::Distribution> GridLayout::Distributions(const Schema& source, const Schema& cells) {
  std::vector<Distribution> out;
  for (size_t a = 0; a < source.aggregates().size(); ++a) {
    const std::string name = source.fields()[source.aggregates()[a]].name + ".h0";
    for (const Field& f : cells.fields()) {
      // (a schema too short to hold the 64 counts has none: its cells never read past a record)
      if (f.name == name && (f.type == FieldType::kU32 || f.type == FieldType::kU64) &&
          f.offset + LogHistogram::kBins * FieldWidth(f.type) <= cells.record_width()) {
        out.push_back({a, f.offset, f.type});
        break;
      }
    }
  }
  return out;
}

Result<Schema> GridLayout::CellSchema(const Schema& source, uint64_t records, bool distributions) {
  std::vector<std::pair<std::string, FieldType>> fields = {
      {"t", FieldType::kI64}, {"block", FieldType::kI64}, {"count", FieldType::kU64}};
  for (uint16_t a : source.aggregates()) {
    const Field& f = source.fields()[a];
    const FieldType wide = f.type == FieldType::kF64 ? FieldType::kF64 : FieldType::kI64;
    fields.emplace_back(f.name + ".sum", wide);
    fields.emplace_back(f.name + ".min", wide);
    fields.emplace_back(f.name + ".max", wide);
    fields.emplace_back(f.name + ".sumsq", FieldType::kF64);
  }
  const FieldType counts = records < (uint64_t{1} << 32) ? FieldType::kU32 : FieldType::kU64;
  for (size_t a : distributions ? DistributionFields(source) : std::vector<size_t>{}) {
    const std::string& name = source.fields()[source.aggregates()[a]].name;
    for (int b = 0; b < LogHistogram::kBins; ++b) fields.emplace_back(fmt::format("{}.h{}", name, b), counts);
  }
  return Schema::Make(fields, {}, "t");
}

}  // namespace xtfq
