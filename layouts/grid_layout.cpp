#include "layouts/grid_layout.h"

#include <fmt/format.h>

namespace xtfq {

std::string GridLayout::LevelsName(std::string_view array) { return fmt::format("{}#grid", array); }

std::string GridLayout::CellsName(std::string_view array, int level) { return fmt::format("{}#grid/{}", array, level); }

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

Result<Schema> GridLayout::CellSchema(const Schema& source) {
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
  return Schema::Make(fields, {}, "t");
}

}  // namespace xtfq
