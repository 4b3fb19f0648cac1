#include "query/grid/grid_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "index/process_tree.h"
#include "index/tn_tree.h"
#include "layouts/grid_layout.h"
#include "layouts/jobstats_layout.h"
#include "query/grid/grid_index.h"
#include "store/endian.h"
#include "store/log_histogram.h"
#include "store/summary.h"

namespace xtfq {

namespace {

using G = GridLayout;
using U128 = unsigned __int128;

// Blocks of one level above this many get a hash map instead of a table.
constexpr int64_t kDenseBlocks = int64_t{1} << 20;
// Levels of more blocks than this are not counted (Plan's tables: 8 bytes a block and bin size).
constexpr int64_t kCountedBlocks = int64_t{1} << 18;

// The cells of one level's current bin: a Summary and, per distribution, LogHistogram::kBins counts
// for each block that has records in the bin.
class LevelCells {
 public:
  LevelCells(const GridLevelSpec& spec, const Schema& schema, uint32_t width, std::vector<G::Distribution> dists,
             int64_t p_min, int64_t p_max)
      : spec_(spec), schema_(schema), width_(width), dists_(std::move(dists)), block_min_(p_min >> spec.block_shift) {
    const int64_t blocks = (p_max >> spec.block_shift) - block_min_ + 1;
    if (blocks <= kDenseBlocks) dense_.assign(static_cast<size_t>(blocks), -1);
  }

  const GridLevelSpec& spec() const { return spec_; }
  const std::vector<G::Distribution>& dists() const { return dists_; }
  int64_t bin() const { return bin_; }
  bool empty() const { return touched_.empty(); }
  // Makes `bin` the current bin; flushes the one before when it differs and has cells.
  Status Enter(int64_t bin, const std::function<Status(LevelCells&)>& flush) {
    if (bin != bin_ && !touched_.empty()) {
      XTFQ_TRY(flush(*this));
      Clear();
    }
    bin_ = bin;
    return Ok();
  }
  // Adds a record to the cell of `block` in the current bin.
  void AddRecord(int64_t block, const std::byte* record) {
    const size_t slot = Slot(block);
    sums_[slot].Add(schema_, record);
    const auto& at = schema_.aggregate_fields();
    for (size_t d = 0; d < dists_.size(); ++d) {
      const Schema::AggregateField& a = at[dists_[d].aggregate];
      const int b = LogHistogram::BinOf(record + a.offset, a.type);
      if (b >= 0) ++hists_[(slot * dists_.size() + d) * LogHistogram::kBins + static_cast<size_t>(b)];
    }
  }
  // Merges cell `index` of a finer level of the same family (the same distributions) into the cell
  // of `block` in the current bin.
  void MergeCell(int64_t block, const LevelCells& finer, size_t index) {
    const size_t slot = Slot(block);
    sums_[slot].Merge(finer.sums_[index]);
    for (size_t d = 0; d < dists_.size(); ++d) {
      uint64_t* h = &hists_[(slot * dists_.size() + d) * LogHistogram::kBins];
      const uint64_t* f = &finer.hists_[(index * finer.dists_.size() + d) * LogHistogram::kBins];
      for (int b = 0; b < LogHistogram::kBins; ++b) h[b] += f[b];
    }
  }
  // The cells of the bin in block order, as (block, index) pairs.
  const std::vector<std::pair<int64_t, size_t>>& Sorted() {
    std::sort(touched_.begin(), touched_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return touched_;
  }
  // The cells of the bin in block order, encoded as cell records.
  void Cells(std::vector<std::byte>& out, const std::function<void(std::span<const std::byte>)>& emit) {
    out.assign(width_, std::byte{0});
    for (const auto& [block, index] : Sorted()) {
      const Summary& s = sums_[index];
      StoreLe<int64_t>(out.data() + G::kCellT, bin_ << spec_.bin_shift);
      StoreLe<int64_t>(out.data() + G::kCellBlock, block);
      StoreLe<uint64_t>(out.data() + G::kCellCount, s.count);
      s.EncodeFields(out.data() + G::kCellStats);
      for (size_t d = 0; d < dists_.size(); ++d) {
        const uint64_t* h = &hists_[(index * dists_.size() + d) * LogHistogram::kBins];
        std::byte* p = out.data() + dists_[d].offset;
        for (int b = 0; b < LogHistogram::kBins; ++b) {
          if (dists_[d].type == FieldType::kU32) {
            StoreLe<uint32_t>(p + 4 * b, static_cast<uint32_t>(h[b]));
          } else {
            StoreLe<uint64_t>(p + 8 * b, h[b]);
          }
        }
      }
      emit(out);
    }
  }

 private:
  size_t Slot(int64_t block) {
    int32_t* slot = nullptr;
    if (!dense_.empty()) {
      slot = &dense_[static_cast<size_t>(block - block_min_)];
    } else {
      slot = &sparse_.try_emplace(block, -1).first->second;
    }
    if (*slot < 0) {
      *slot = static_cast<int32_t>(touched_.size());
      touched_.emplace_back(block, touched_.size());
      if (sums_.size() < touched_.size()) sums_.emplace_back(schema_);
      sums_[touched_.size() - 1] = Summary(schema_);
      const size_t per = dists_.size() * LogHistogram::kBins;
      if (hists_.size() < touched_.size() * per) hists_.resize(touched_.size() * per);
      std::fill_n(hists_.begin() + static_cast<std::ptrdiff_t>((touched_.size() - 1) * per), per, 0);
    }
    return static_cast<size_t>(*slot);
  }
  void Clear() {
    for (const auto& [block, index] : touched_) {
      if (!dense_.empty()) dense_[static_cast<size_t>(block - block_min_)] = -1;
    }
    sparse_.clear();
    touched_.clear();
  }

  GridLevelSpec spec_;
  const Schema& schema_;
  uint32_t width_;
  std::vector<G::Distribution> dists_;
  int64_t block_min_;
  int64_t bin_ = 0;
  std::vector<int32_t> dense_;
  std::unordered_map<int64_t, int32_t> sparse_;
  std::vector<std::pair<int64_t, size_t>> touched_;  // block, index into sums_
  std::vector<Summary> sums_;
  std::vector<uint64_t> hists_;  // per slot, per distribution: LogHistogram::kBins counts
};

int ShiftFor(U128 x) {
  int s = 0;
  while (s < 62 && (U128{1} << s) < x) ++s;
  return s;
}

}  // namespace

bool GridBuilder::Eligible(const ArrayDesc& a, const GridBuildOptions& options) {
  return !a.per_process() && a.process_index && a.schema.time_field() && a.schema.process_field() &&
         !a.schema.aggregates().empty() && !G::IsGridArray(a.name) && !JobStatsLayout::Owns(a.name) &&
         a.record_count() >= std::max<uint64_t>(options.min_records, 1);
}

Result<std::vector<std::vector<GridLevelSpec>>> GridBuilder::Plan(StoreReader& reader, const ArrayDesc& source,
                                                                  const Span& span,
                                                                  const std::vector<GridBudget>& budgets,
                                                                  const GridBuildOptions& options) {
  std::vector<std::vector<GridLevelSpec>> outs(budgets.size());
  if (span.n == 0) return outs;
  const U128 span_t = static_cast<U128>(static_cast<__int128>(span.t_max) - span.t_min) + 1;
  // The bins there can be: from a screen's width of them (bins_per_block) to two over the run.
  const int finest = ShiftFor((span_t + options.bins_per_block - 1) / std::max<uint64_t>(options.bins_per_block, 1));
  int coarsest = finest;
  while (coarsest < 62 && (U128{1} << (coarsest + 1)) < span_t) ++coarsest;
  if ((U128{1} << finest) >= span_t) return outs;
  // The levels there can be: blocks of 4^k while one block does not hold every process, each with
  // its cells counted at every bin, in one pass (records are in time order: a cell is new when
  // its block's last bin differs).
  struct Candidate {
    int k = 0;
    int64_t block_min = 0, blocks = 0;
    std::vector<int64_t> last;    // per block, per shift: the bin of the block's last record
    std::vector<uint64_t> cells;  // per shift
  };
  std::vector<Candidate> cands;
  for (int k = 1; k <= 16 && 2 * k <= 62; ++k) {
    Candidate c;
    c.k = k;
    c.block_min = span.p_min >> (2 * k);
    c.blocks = (span.p_max >> (2 * k)) - c.block_min + 1;
    // Stop once a block is as wide as the processes' span (two blocks may still straddle an edge,
    // as -1 and 0 do at every k: such levels add nothing).
    if (c.blocks < 2 || (static_cast<__int128>(1) << (2 * k)) >= static_cast<__int128>(span.p_max) - span.p_min + 1) {
      break;
    }
    if (c.blocks > kCountedBlocks) continue;  // too many blocks to count: the per-process path serves these
    c.last.assign(static_cast<size_t>(c.blocks) * static_cast<size_t>(coarsest - finest + 1), INT64_MIN);
    c.cells.assign(static_cast<size_t>(coarsest - finest + 1), 0);
    cands.push_back(std::move(c));
  }
  if (cands.empty()) return outs;
  const Schema& schema = source.schema;
  XTFQ_TRY(reader.ScanAt(source, 0, span.n, [&](const std::byte* r) -> Result<bool> {
    const int64_t t = schema.Time(r), p = schema.Process(r);
    for (Candidate& c : cands) {
      const size_t shifts = c.cells.size();
      int64_t* last = &c.last[static_cast<size_t>((p >> (2 * c.k)) - c.block_min) * shifts];
      // The block's last record was in the same bin at this shift, so at every coarser one too.
      for (size_t i = 0; i < shifts; ++i) {
        const int64_t bin = t >> (finest + static_cast<int>(i));
        if (last[i] == bin) break;
        last[i] = bin, ++c.cells[i];
      }
    }
    return true;
  }));
  // Each budget: a share of the records' bytes, twice (the array and its P index copies), in cells
  // of its width. The coarser levels go first, each taking at most half of what is left at the
  // finest bin that fits; level 1 (4 processes a block, the finest rows) takes the rest.
  for (size_t bi = 0; bi < budgets.size(); ++bi) {
    if (budgets[bi].cell_width == 0) continue;
    std::vector<GridLevelSpec>& out = outs[bi];
    double budget =
        budgets[bi].fraction * static_cast<double>(span.n) * 2.0 * schema.record_width() / budgets[bi].cell_width;
    for (auto it = cands.rbegin(); it != cands.rend(); ++it) {
      const double allowed =
          std::min(it + 1 == cands.rend() ? budget : budget / 2, static_cast<double>(options.max_cells));
      for (size_t i = 0; i < it->cells.size(); ++i) {
        if (static_cast<double>(it->cells[i]) <= allowed) {
          out.push_back({it->k, 2 * it->k, finest + static_cast<int>(i)});
          budget -= static_cast<double>(it->cells[i]);
          break;
        }
      }
    }
    std::reverse(out.begin(), out.end());
  }
  return outs;
}

Result<GridBuilder::Span> GridBuilder::SpanOf(StoreReader& reader, const ArrayDesc& source, uint64_t n) {
  Span s;
  s.n = n;
  if (n == 0) return s;
  TnTree tree(reader.cache(), source);
  std::vector<std::byte> r(source.schema.record_width());
  XTFQ_TRY(tree.Record(0, r));
  s.t_min = source.schema.Time(r.data());
  XTFQ_TRY(tree.Record(n - 1, r));
  s.t_max = source.schema.Time(r.data());
  if (n < source.record_count()) {
    // A stale grid's span is that of the records it covers.
    s.p_min = INT64_MAX, s.p_max = INT64_MIN;
    XTFQ_TRY(reader.ScanAt(source, 0, n, [&](const std::byte* rec) -> Result<bool> {
      const int64_t p = source.schema.Process(rec);
      s.p_min = std::min(s.p_min, p), s.p_max = std::max(s.p_max, p);
      return true;
    }));
    return s;
  }
  XTFQ_ASSIGN_OR_RETURN(std::vector<const ArrayDesc*> procs,
                        ProcessTree(reader.cache(), reader.catalogue(), source).Range(INT64_MIN, INT64_MAX));
  if (procs.empty())
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: '{}' has records but no process in its P index", reader.store().name(), source.name));
  s.p_min = procs.front()->process, s.p_max = procs.back()->process;
  return s;
}

Status GridBuilder::Compute(StoreReader& reader, const ArrayDesc& source, uint64_t n,
                            const std::vector<GridLevelSpec>& levels, const std::vector<const Schema*>& cell_schemas,
                            const std::function<Status(size_t, std::span<const std::byte>)>& emit, bool direct) {
  XTFQ_ASSIGN_OR_RETURN(Span span, SpanOf(reader, source, n));
  const Schema& schema = source.schema;
  std::vector<LevelCells> cells;
  cells.reserve(levels.size());
  for (size_t li = 0; li < levels.size(); ++li) {
    cells.emplace_back(levels[li], schema, cell_schemas[li]->record_width(),
                       G::Distributions(schema, *cell_schemas[li]), span.p_min, span.p_max);
  }
  std::vector<std::byte> buffer;
  Status emitted = Ok();
  auto flush_level = [&](size_t li) {
    return [&, li](LevelCells& c) -> Status {
      c.Cells(buffer, [&](std::span<const std::byte> cell) {
        if (emitted.ok()) emitted = emit(li, cell);
      });
      return emitted;
    };
  };
  std::vector<std::function<Status(LevelCells&)>> flushes;
  for (size_t li = 0; li < levels.size(); ++li) flushes.push_back(flush_level(li));

  // Each record goes once into the finest cells of its family (the levels of one cell schema: the
  // smallest block and bin shifts among them); each bin of those, when it ends, is merged into the
  // family's levels. Counts, integer sums, minima, maxima and distributions are what adding each
  // record to each level gives; f64 sums and sums of squares differ by rounding (store/summary.h),
  // the same way whenever a family's levels are computed, with the other family or without.
  // `direct` adds each record to each level instead (how grids were built before).
  struct Family {
    GridLevelSpec spec{0, INT32_MAX, INT32_MAX};
    std::vector<G::Distribution> dists;
    std::vector<size_t> levels;
    std::unique_ptr<LevelCells> fine;
    std::function<Status(LevelCells&)> merge;
  };
  auto aggregates = [](const std::vector<G::Distribution>& d) {
    std::vector<size_t> a;
    for (const G::Distribution& x : d) a.push_back(x.aggregate);
    return a;
  };
  std::vector<Family> families;
  for (size_t li = 0; li < cells.size(); ++li) {
    const auto key = aggregates(cells[li].dists());
    auto it =
        std::find_if(families.begin(), families.end(), [&](const Family& f) { return aggregates(f.dists) == key; });
    if (it == families.end()) {
      families.push_back({});
      it = families.end() - 1;
      it->dists = cells[li].dists();
    }
    it->spec.block_shift = std::min(it->spec.block_shift, cells[li].spec().block_shift);
    it->spec.bin_shift = std::min(it->spec.bin_shift, cells[li].spec().bin_shift);
    it->levels.push_back(li);
  }
  for (Family& f : families) {
    f.fine = std::make_unique<LevelCells>(f.spec, schema, 0, f.dists, span.p_min, span.p_max);
    f.merge = [&](LevelCells& fine) -> Status {
      for (const auto& [block, index] : fine.Sorted()) {
        for (size_t li : f.levels) {
          const GridLevelSpec& l = cells[li].spec();
          XTFQ_TRY(cells[li].Enter(fine.bin() >> (l.bin_shift - f.spec.bin_shift), flushes[li]));
          cells[li].MergeCell(block >> (l.block_shift - f.spec.block_shift), fine, index);
        }
      }
      return Ok();
    };
  }
  uint64_t seen = 0;
  XTFQ_TRY(reader.ScanAt(source, 0, n, [&](const std::byte* r) -> Result<bool> {
    const int64_t t = schema.Time(r), p = schema.Process(r);
    if (direct) {
      for (size_t li = 0; li < cells.size(); ++li) {
        XTFQ_TRY(cells[li].Enter(t >> cells[li].spec().bin_shift, flushes[li]));
        cells[li].AddRecord(p >> cells[li].spec().block_shift, r);
      }
    } else {
      for (Family& f : families) {
        XTFQ_TRY(f.fine->Enter(t >> f.spec.bin_shift, f.merge));
        f.fine->AddRecord(p >> f.spec.block_shift, r);
      }
    }
    ++seen;
    return true;
  }));
  if (seen != n) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: '{}' yielded {} records, not {}", reader.store().name(), source.name, seen, n));
  }
  for (Family& f : families) {
    if (!f.fine->empty()) XTFQ_TRY(f.merge(*f.fine));
  }
  for (size_t li = 0; li < cells.size(); ++li) {
    if (!cells[li].empty()) XTFQ_TRY(flushes[li](cells[li]));
  }
  return Ok();
}

Result<GridBuildReport::Built> GridBuilder::Build(StoreReader& reader, const ArrayDesc& source, RecordSink& sink,
                                                  const GridBuildOptions& options) {
  using F = G::Family;
  const uint64_t n = source.record_count();
  XTFQ_ASSIGN_OR_RETURN(Span span, SpanOf(reader, source, n));
  GridBuildReport::Built built;
  built.array = source.name;
  // The cells family, and the distributions family where the source has fields for them.
  const bool dists = options.distributions && !G::DistributionFields(source.schema).empty();
  XTFQ_ASSIGN_OR_RETURN(Schema cell_schema, G::CellSchema(source.schema, n, false));
  XTFQ_ASSIGN_OR_RETURN(Schema dist_schema, G::CellSchema(source.schema, n, true));
  std::vector<GridBudget> budgets = {{options.space_fraction, cell_schema.record_width()}};
  if (dists) budgets.push_back({options.distribution_space_fraction, dist_schema.record_width()});
  XTFQ_ASSIGN_OR_RETURN(auto planned, Plan(reader, source, span, budgets, options));
  built.levels = planned[0];
  if (dists) built.distribution_levels = planned[1];
  // One pass computes both families' cells: the cells family's levels, then the distributions'.
  std::vector<GridLevelSpec> levels = built.levels;
  levels.insert(levels.end(), built.distribution_levels.begin(), built.distribution_levels.end());
  std::vector<const Schema*> schemas(built.levels.size(), &cell_schema);
  schemas.resize(levels.size(), &dist_schema);
  std::vector<ArrayId> ids;
  std::vector<uint64_t> counts(levels.size(), 0);
  for (size_t li = 0; li < levels.size(); ++li) {
    const F family = li < built.levels.size() ? F::kCells : F::kDistributions;
    XTFQ_ASSIGN_OR_RETURN(ArrayId id,
                          sink.CreateArray(G::CellsName(source.name, levels[li].level, family), *schemas[li]));
    ids.push_back(id);
  }
  XTFQ_TRY(Compute(
      reader, source, n, levels, schemas,
      [&](size_t li, std::span<const std::byte> cell) -> Status {
        ++counts[li];
        return sink.Append(ids[li], cell);
      },
      options.direct));
  std::vector<std::byte> r(G::kLevWidth);
  for (F family : {F::kCells, F::kDistributions}) {
    if (family == F::kDistributions && !dists) continue;
    XTFQ_ASSIGN_OR_RETURN(ArrayId levels_id, sink.CreateArray(G::LevelsName(source.name, family), G::LevelSchema()));
    const size_t first = family == F::kCells ? 0 : built.levels.size();
    const size_t end = family == F::kCells ? built.levels.size() : levels.size();
    for (size_t li = first; li < end; ++li) {
      const GridLevelSpec& l = levels[li];
      StoreLe<int64_t>(r.data() + G::kLevLevel, l.level);
      StoreLe<int64_t>(r.data() + G::kLevBlockShift, l.block_shift);
      StoreLe<int64_t>(r.data() + G::kLevBinShift, l.bin_shift);
      StoreLe<uint64_t>(r.data() + G::kLevSourceRecords, n);
      StoreLe<uint64_t>(r.data() + G::kLevCells, counts[li]);
      StoreLe<int64_t>(r.data() + G::kLevPMin, span.p_min);
      StoreLe<int64_t>(r.data() + G::kLevPMax, span.p_max);
      StoreLe<int64_t>(r.data() + G::kLevTMin, span.t_min);
      StoreLe<int64_t>(r.data() + G::kLevTMax, span.t_max);
      XTFQ_TRY(sink.Append(levels_id, r));
      built.cells += counts[li];
      built.bytes += counts[li] * schemas[li]->record_width();
    }
  }
  return built;
}

Result<GridBuildReport> GridBuilder::BuildMissing(StoreReader& reader, RecordSink& sink,
                                                  const GridBuildOptions& options) {
  GridBuildReport report;
  uint64_t eligible = 0, done = 0;
  for (const ArrayDesc& a : reader.catalogue().arrays) eligible += Eligible(a, options);
  for (const ArrayDesc& a : reader.catalogue().arrays) {
    if (!Eligible(a, options)) continue;
    if (options.progress != nullptr) options.progress->Update("grid summaries", done++, eligible, "arrays");
    XTFQ_ASSIGN_OR_RETURN(std::optional<GridIndex> g, GridIndex::Load(reader, a));
    if (g) {
      if (g->stale) {
        report.notes.push_back(fmt::format(
            "the grid of '{}' covers its first {} records of {}; grids over it answer from the per-process index",
            a.name, g->source_records, a.record_count()));
      }
      continue;
    }
    XTFQ_ASSIGN_OR_RETURN(GridBuildReport::Built b, Build(reader, a, sink, options));
    report.built.push_back(std::move(b));
  }
  return report;
}

Status GridBuilder::Verify(StoreReader& reader, const ArrayDesc& source) {
  for (G::Family family : {G::Family::kCells, G::Family::kDistributions})
    XTFQ_TRY(VerifyFamily(reader, source, family));
  return Ok();
}

Status GridBuilder::VerifyFamily(StoreReader& reader, const ArrayDesc& source, GridLayout::Family family) {
  XTFQ_ASSIGN_OR_RETURN(std::optional<GridIndex> g, GridIndex::Load(reader, source, family));
  if (!g) return Ok();
  if (g->source_records > source.record_count()) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: the grid of '{}' was built over {} records; it holds {}", reader.store().name(),
                             source.name, g->source_records, source.record_count()));
  }
  XTFQ_ASSIGN_OR_RETURN(Span span, SpanOf(reader, source, g->source_records));
  if (span.p_min != g->p_min || span.p_max != g->p_max || span.t_min != g->t_min || span.t_max != g->t_max) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: the grid of '{}' records processes {}..{} and times {}..{}; its records span "
                             "{}..{} and {}..{}",
                             reader.store().name(), source.name, g->p_min, g->p_max, g->t_min, g->t_max, span.p_min,
                             span.p_max, span.t_min, span.t_max));
  }
  std::vector<GridLevelSpec> specs;
  std::vector<const Schema*> cell_schemas;
  for (const GridLevel& l : g->levels) {
    specs.push_back({l.level, l.block_shift, l.bin_shift});
    cell_schemas.push_back(&l.array->schema);
  }
  // The cells must equal, byte for byte, what Build computes; a grid built before cells were
  // merged from the finest ones (stores of format 5 until session 13) equals the direct sums.
  auto verify = [&](bool direct) -> Status {
    std::vector<ChainCursor> cursors;
    std::vector<uint64_t> seen(g->levels.size(), 0);
    for (const GridLevel& l : g->levels) cursors.push_back(reader.Records(*l.array));
    XTFQ_TRY(Compute(
        reader, source, g->source_records, specs, cell_schemas,
        [&](size_t li, std::span<const std::byte> cell) -> Status {
          const GridLevel& l = g->levels[li];
          XTFQ_ASSIGN_OR_RETURN(bool more, seen[li] == 0 ? cursors[li].First() : cursors[li].Next());
          if (!more || !std::equal(cell.begin(), cell.end(), cursors[li].entry())) {
            return Error(ErrorCode::kCorrupt,
                         fmt::format("{}: {} cell {} differs from the records of '{}' it summarises",
                                     reader.store().name(), l.array->name, seen[li], source.name));
          }
          ++seen[li];
          return Ok();
        },
        direct));
    for (size_t li = 0; li < g->levels.size(); ++li) {
      if (seen[li] != g->levels[li].cells) {
        return Error(ErrorCode::kCorrupt,
                     fmt::format("{}: {} holds {} cells; its records make {}", reader.store().name(),
                                 g->levels[li].array->name, g->levels[li].cells, seen[li]));
      }
    }
    return Ok();
  };
  Status merged = verify(false);
  if (merged.ok() || merged.error().code() != ErrorCode::kCorrupt) return merged;
  return verify(true).ok() ? Ok() : merged;
}

}  // namespace xtfq
