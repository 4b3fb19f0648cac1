#include "query/grid/grid_index.h"

#include <fmt/format.h>

#include <algorithm>

#include "index/tn_tree.h"
#include "layouts/grid_layout.h"
#include "store/endian.h"

namespace xtfq {

const GridLayout::Distribution* GridLevel::DistributionOf(size_t a) const {
  for (const auto& d : distributions) {
    if (d.aggregate == a) return &d;
  }
  return nullptr;
}

Result<std::optional<GridIndex>> GridIndex::Load(StoreReader& reader, const ArrayDesc& source,
                                                 GridLayout::Family family) {
  using G = GridLayout;
  const Catalogue& cat = reader.catalogue();
  const ArrayDesc* levels = cat.Find(G::LevelsName(source.name, family));
  if (levels == nullptr) return std::optional<GridIndex>();
  const std::string& store = reader.store().name();
  if (!(levels->schema == G::LevelSchema())) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: {} does not have the grid level schema", store, levels->name));
  }
  // The cells family's schema; the distributions family's, with u32 or u64 counts.
  std::vector<Schema> cell_schemas;
  const bool dists = family == G::Family::kDistributions;
  for (uint64_t records : {uint64_t{0}, uint64_t{1} << 32}) {
    XTFQ_ASSIGN_OR_RETURN(Schema s, G::CellSchema(source.schema, records, dists));
    cell_schemas.push_back(std::move(s));
  }
  GridIndex g;
  Status s = reader.ForEach(*levels, [&](const std::byte* r) -> Status {
    GridLevel l;
    l.level = static_cast<int>(LoadLe<int64_t>(r + G::kLevLevel));
    const int64_t bs = LoadLe<int64_t>(r + G::kLevBlockShift), ts = LoadLe<int64_t>(r + G::kLevBinShift);
    if (bs < 1 || bs > 62 || ts < 0 || ts > 62) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: {}: level {} has shifts {} and {} (block 1..62, bin 0..62)",
                                                    store, levels->name, l.level, bs, ts));
    }
    l.block_shift = static_cast<int>(bs), l.bin_shift = static_cast<int>(ts);
    l.cells = LoadLe<uint64_t>(r + G::kLevCells);
    g.source_records = LoadLe<uint64_t>(r + G::kLevSourceRecords);
    g.p_min = LoadLe<int64_t>(r + G::kLevPMin), g.p_max = LoadLe<int64_t>(r + G::kLevPMax);
    g.t_min = LoadLe<int64_t>(r + G::kLevTMin), g.t_max = LoadLe<int64_t>(r + G::kLevTMax);
    l.array = cat.Find(G::CellsName(source.name, l.level, family));
    const bool fits = l.array != nullptr && std::any_of(cell_schemas.begin(), cell_schemas.end(),
                                                        [&](const Schema& s) { return l.array->schema == s; });
    if (!fits || l.array->record_count() != l.cells) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: grid level {} of '{}' names {} cells, but its cell array {}",
                                                    store, l.level, source.name, l.cells,
                                                    l.array == nullptr ? "is missing"
                                                    : !fits            ? "does not have the cell schema of the source"
                                                            : fmt::format("holds {}", l.array->record_count())));
    }
    l.distributions = G::Distributions(source.schema, l.array->schema);
    if (!g.levels.empty() && l.block_shift <= g.levels.back().block_shift) {
      return Error(ErrorCode::kCorrupt,
                   fmt::format("{}: {}: levels are not in increasing block size", store, levels->name));
    }
    g.levels.push_back(l);
    return Ok();
  });
  XTFQ_TRY(s);
  // A grid without levels (nothing to gain at any bin) is not stale: it has nothing to cover.
  g.stale = !g.levels.empty() && g.source_records != source.record_count();
  return std::optional<GridIndex>(std::move(g));
}

}  // namespace xtfq
