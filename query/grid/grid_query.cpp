#include "query/grid/grid_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "index/process_tree.h"
#include "index/tn_tree.h"
#include "layouts/grid_layout.h"
#include "query/grid/grid_index.h"
#include "store/endian.h"
#include "store/format.h"

namespace xtfq {

namespace {

using G = GridLayout;

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// A run of processes [lo, hi) of one row, answered per process.
struct Singles {
  int64_t lo, hi;
  size_t row;
};

// The blocks of one grid level that rows take whole.
struct LevelPieces {
  const GridLevel* level = nullptr;
  std::vector<std::pair<int64_t, size_t>> blocks;  // block, row
};

class Cells {
 public:
  Cells(GridResult& r, const Schema& schema) : r_(r), nf_(r.fields.size()), nd_(r.distributions.size()) {
    const size_t n = r.rows.size() * r.cols();
    r.count.assign(n, 0);
    r.stats.resize(n * nf_);
    r.dists.assign(n * nd_, LogHistogram{});
    const Summary empty(schema);
    for (size_t c = 0; c < n; ++c) {
      for (size_t f = 0; f < nf_; ++f) r.stats[c * nf_ + f] = empty.fields[r.fields[f]];
    }
  }
  // REQUIRES: no distributions (an index entry's summary has none).
  void Merge(size_t cell, const Summary& s) {
    r_.count[cell] += s.count;
    for (size_t f = 0; f < nf_; ++f) r_.stats[cell * nf_ + f].Merge(s.fields[r_.fields[f]]);
  }
  // One record of `schema`.
  void Add(size_t cell, const Schema& schema, const std::byte* rec) { r_.Add(cell, schema, rec); }
  // A grid cell record (GridLayout) of `level`. REQUIRES: the level holds every distribution kept.
  void MergeCell(size_t cell, const std::byte* rec, const GridLevel& level) {
    r_.count[cell] += LoadLe<uint64_t>(rec + G::kCellCount);
    for (size_t f = 0; f < nf_; ++f) {
      r_.stats[cell * nf_ + f].MergeEncoded(rec + G::kCellStats + r_.fields[f] * Summary::kFieldBytes);
    }
    for (size_t d = 0; d < nd_; ++d) {
      const GridLayout::Distribution& at = *level.DistributionOf(r_.distributions[d]);
      LogHistogram& h = r_.dists[cell * nd_ + d];
      const std::byte* p = rec + at.offset;
      for (int b = 0; b < LogHistogram::kBins; ++b) {
        h.counts[b] += at.type == FieldType::kU32 ? LoadLe<uint32_t>(p + 4 * b) : LoadLe<uint64_t>(p + 8 * b);
      }
    }
  }

 private:
  GridResult& r_;
  size_t nf_, nd_;
};

Error Invalid(std::string message) { return Error(ErrorCode::kInvalidArgument, std::move(message)); }

}  // namespace

std::string GridPlan::Describe() const {
  std::vector<std::string> parts;
  if (own_tree) parts.push_back("the array's own tree");
  if (!levels.empty()) {
    parts.push_back(
        fmt::format("grid level{} {} ({} cells)", levels.size() == 1 ? "" : "s", fmt::join(levels, ", "), cells_read));
  } else if (cells_read > 0) {
    parts.push_back(fmt::format("{} summary cells", cells_read));
  }
  if (process_arrays > 0) parts.push_back(fmt::format("{} per-process arrays", process_arrays));
  if (records_read > 0) parts.push_back(fmt::format("{} records scanned", records_read));
  if (parts.empty()) parts.push_back("nothing to read");
  return fmt::format("{}", fmt::join(parts, "; "));
}

uint64_t GridResult::TotalCount() const {
  uint64_t n = 0;
  for (uint64_t c : count) n += c;
  return n;
}

FieldStats GridResult::TotalStat(size_t field) const {
  FieldStats t = stats.empty() ? FieldStats{} : stats[field];
  for (size_t c = 1; c < count.size(); ++c) t.Merge(stats[c * fields.size() + field]);
  return t;
}

LogHistogram GridResult::TotalDist(size_t d) const {
  LogHistogram t;
  for (size_t c = 0; c < count.size(); ++c) t.Merge(dists[c * distributions.size() + d]);
  return t;
}

void GridResult::Merge(const GridResult& r) {
  for (size_t c = 0; c < count.size(); ++c) count[c] += r.count[c];
  for (size_t i = 0; i < stats.size(); ++i) stats[i].Merge(r.stats[i]);
  for (size_t i = 0; i < dists.size(); ++i) dists[i].Merge(r.dists[i]);
  plan.Merge(r.plan);
  notes.insert(notes.end(), r.notes.begin(), r.notes.end());
}

void GridResult::Add(size_t c, const Schema& schema, const std::byte* rec) {
  ++count[c];
  const auto& at = schema.aggregate_fields();
  for (size_t f = 0; f < fields.size(); ++f)
    stats[c * fields.size() + f].Add(rec + at[fields[f]].offset, at[fields[f]].type);
  for (size_t d = 0; d < distributions.size(); ++d) {
    const Schema::AggregateField& a = at[distributions[d]];
    dists[c * distributions.size() + d].Add(LogHistogram::BinOf(rec + a.offset, a.type));
  }
}

void GridPlan::Merge(const GridPlan& r) {
  for (int l : r.levels) {
    if (std::find(levels.begin(), levels.end(), l) == levels.end()) levels.push_back(l);
  }
  cells_read += r.cells_read, process_arrays += r.process_arrays;
  records_read += r.records_read, own_tree |= r.own_tree;
}

std::vector<const ArrayDesc*> GridQuery::ProcessArrays(const Catalogue& catalogue, const ArrayDesc& array, int64_t p1,
                                                       int64_t p2) {
  // p2 == INT64_MAX is the open end (process INT64_MAX is in), as every window writes it.
  return catalogue.Children(array.id, p1, p2);
}

std::vector<int64_t> GridQuery::Edges(int64_t t1, int64_t t2, uint32_t cols) {
  std::vector<int64_t> e;
  for (uint32_t i = 0; i <= cols; ++i) e.push_back(TnTree::BucketStart(i, t1, t2, cols));
  return e;
}

std::vector<std::pair<int64_t, int64_t>> GridQuery::Rows(int64_t lo, int64_t hi, uint32_t rows) {
  const __int128 span = static_cast<__int128>(hi) - lo;
  std::vector<std::pair<int64_t, int64_t>> out;
  for (uint32_t j = 0; j < rows; ++j) {
    out.emplace_back(static_cast<int64_t>(lo + span * j / rows), static_cast<int64_t>(lo + span * (j + 1) / rows));
  }
  return out;
}

Result<GridResult> GridQuery::Run(StoreReader& reader, const ArrayDesc& array, const GridRequest& req) {
  const Schema& schema = array.schema;
  const std::string& store = reader.store().name();
  if (req.t1 >= req.t2)
    return Invalid(fmt::format("empty or reversed window {}:{} (T1 must be below T2)", req.t1, req.t2));
  if (req.cols == 0 || (req.processes.empty() && req.rows == 0))
    return Invalid("a grid needs at least one column and one row");
  if (!schema.time_field()) return Invalid(fmt::format("array '{}' has no time field for a grid", array.name));
  GridResult out;
  out.fields = req.fields;
  if (out.fields.empty()) {
    for (size_t f = 0; f < schema.aggregates().size(); ++f) out.fields.push_back(f);
  }
  for (size_t f : out.fields) {
    if (f >= schema.aggregates().size())
      return Invalid(fmt::format("aggregate field {} of '{}' does not exist", f, array.name));
    out.field_names.push_back(schema.fields()[schema.aggregates()[f]].name);
  }
  out.distributions = req.distributions;
  for (size_t d : out.distributions) {
    if (d >= schema.aggregates().size())
      return Invalid(fmt::format("aggregate field {} of '{}' does not exist", d, array.name));
  }
  const bool need_dists = !out.distributions.empty();
  const bool list = !req.processes.empty() || !req.row_ranges.empty();
  if (!req.processes.empty() && !req.row_ranges.empty())
    return Invalid("give rows as processes or as ranges, not both");
  if (!schema.process_field() && (list || req.rows > 1 || req.p1 != INT64_MIN || req.p2 != INT64_MAX)) {
    return Invalid(
        fmt::format("array '{}' has no process field: a grid of it has one row over every record", array.name));
  }
  // At most kMaxCells field cells (checked before anything of that size is made).
  const uint64_t fields = std::max<uint64_t>(out.fields.size() + kDistributionFields * out.distributions.size(), 1);
  const auto too_big = [&](uint64_t cols, uint64_t rows) -> std::optional<Error> {
    if (rows * cols * fields <= kMaxCells) return std::nullopt;
    return Invalid(
        fmt::format("a grid of {} x {} cells of {} field{} is more than {} field cells: ask fewer columns "
                    "or rows",
                    cols, rows, fields, fields == 1 ? "" : "s", kMaxCells));
  };
  if (list) {
    if (auto e = too_big(req.cols, !req.row_ranges.empty() ? req.row_ranges.size() : req.processes.size())) return *e;
  }
  const Catalogue& cat = reader.catalogue();
  const bool has_index = schema.process_field() && array.process_index;
  const bool indexed = has_index && !req.scan;

  // The processes of the range that have records (from the P index, also when scanning: the rows
  // are the same).
  std::vector<const ArrayDesc*> procs;
  if (has_index) procs = ProcessArrays(cat, array, list ? INT64_MIN : req.p1, list ? INT64_MAX : req.p2);
  // The grid, when it can serve.
  std::optional<GridIndex> grid;
  if (indexed) {
    // A grid of distributions reads the distributions family (wider cells, coarser bins).
    XTFQ_ASSIGN_OR_RETURN(
        grid,
        GridIndex::Load(reader, array, need_dists ? GridLayout::Family::kDistributions : GridLayout::Family::kCells));
    if (grid && grid->stale) {
      out.notes.push_back(fmt::format("the grid of '{}' covers its first {} of {} records: answered per process",
                                      array.name, grid->source_records, array.record_count()));
      grid.reset();
    }
  }

  // Rows.
  std::vector<int64_t> q;    // range mode: H + 1 edges
  uint32_t rows = req.rows;  // fewer with fit_rows
  int64_t lo = req.p1, hi = req.p2;
  if (list) {
    for (int64_t p : req.processes) {
      if (p == INT64_MAX) return Invalid("process 9223372036854775807 cannot be a row");
      out.rows.emplace_back(p, p + 1);
    }
    for (const auto& [a, b] : req.row_ranges) {
      if (a >= b) return Invalid(fmt::format("row {}:{} is empty or reversed", a, b));
      out.rows.emplace_back(a, b);
    }
  } else if (schema.process_field()) {
    if (req.exact_range) {
      if (req.p1 == INT64_MIN || req.p2 == INT64_MAX) return Invalid("rows over an exact range need a bounded range");
    } else if (has_index) {
      if (!procs.empty()) {
        lo = std::max(lo, procs.front()->process);
        hi = std::min(hi, procs.back()->process == INT64_MAX ? INT64_MAX : procs.back()->process + 1);
      }
    } else if (req.p1 == INT64_MIN || req.p2 == INT64_MAX) {
      // Without the P index the range's bounds come from the window's records.
      TnTree tree(reader.cache(), array);
      XTFQ_ASSIGN_OR_RETURN(uint64_t a, tree.LowerBound(req.t1));
      XTFQ_ASSIGN_OR_RETURN(uint64_t b, tree.LowerBound(req.t2));
      int64_t mn = INT64_MAX, mx = INT64_MIN;
      XTFQ_TRY(tree.ForEach(a, b, [&](const std::byte* r) -> Result<bool> {
        const int64_t p = schema.Process(r);
        if (p >= req.p1 && p < req.p2) mn = std::min(mn, p), mx = std::max(mx, p);
        return true;
      }));
      out.plan.records_read += b - a;
      if (mn <= mx) {
        if (req.p1 == INT64_MIN) lo = mn;
        if (req.p2 == INT64_MAX) hi = mx == INT64_MAX ? INT64_MAX : mx + 1;
      }
    }
    if (lo == INT64_MIN || hi == INT64_MAX || lo >= hi) {
      if (req.rows > 1 && !req.fit_rows)
        return Invalid("the process range holds no records: give --ranks R1:R2 to draw it empty");
      out.notes.push_back("no records in the process range");
      rows = 1;
    }
    const __int128 span = static_cast<__int128>(hi) - lo;
    if (span > 0 && span < rows) {
      if (!req.fit_rows) {
        return Invalid(fmt::format("{} rows over processes {}:{}: at most {} (a row holds at least one process)", rows,
                                   lo, hi, static_cast<int64_t>(span)));
      }
      out.notes.push_back(fmt::format("{} rows asked: the {} processes {} to {} with records get a row each", rows,
                                      static_cast<int64_t>(span), lo, hi - 1));
      rows = static_cast<uint32_t>(span);
    }
    if (auto e = too_big(req.cols, rows)) return *e;
    if (span <= 0) {
      q = {lo, hi};
    } else {
      for (const auto& row : Rows(lo, hi, rows)) q.push_back(row.first);
      q.push_back(hi);
    }
  } else {
    q = {INT64_MIN, INT64_MAX};
  }

  // Columns; with `snap`, the window and rows move onto the bins and blocks of the level that fits.
  int64_t e0 = req.t1, e1 = req.t2;
  uint32_t cols = req.cols;
  const GridLevel* snap_level = nullptr;
  if (req.snap && !grid && !req.scan) {
    out.notes.push_back(fmt::format("--snap: '{}' has no grid summaries{} to snap to: the columns are as asked",
                                    array.name, need_dists ? " with distributions" : ""));
  }
  if (req.snap && grid && !list && q.size() > 1) {
    const int64_t row_size = static_cast<int64_t>((static_cast<__int128>(hi) - lo) / rows);
    for (const GridLevel& l : grid->levels) {
      if (l.block() <= row_size) snap_level = &l;
    }
    const __int128 w = (static_cast<__int128>(req.t2) - req.t1 + req.cols - 1) / req.cols;
    // Columns of at least half a bin snap to whole bins (down to half as many columns as asked).
    // Finer columns snap to single bins too, fewer columns than asked, when their records would
    // cost more than the picture is worth: over `snap_record_limit` records, or over a quarter of
    // it when the single bins still give a quarter of the columns asked.
    bool coarse = false;
    if (snap_level != nullptr && 2 * w < snap_level->bin()) {
      TnTree tree(reader.cache(), array);
      XTFQ_ASSIGN_OR_RETURN(uint64_t a, tree.LowerBound(req.t1));
      XTFQ_ASSIGN_OR_RETURN(uint64_t b, tree.LowerBound(req.t2));
      const __int128 bins = (static_cast<__int128>(req.t2) - req.t1) / snap_level->bin() + 1;
      coarse = b - a > req.snap_record_limit || (b - a > req.snap_record_limit / 4 && 4 * bins >= req.cols);
      if (coarse) {
        out.notes.push_back(fmt::format(
            "columns of {} are finer than half the bins ({}) of the grid level for rows of {} processes, and the "
            "window holds {} records: drawn on whole bins, fewer columns than asked",
            static_cast<int64_t>(w), snap_level->bin(), row_size, b - a));
      }
    }
    if (snap_level != nullptr && (2 * w >= snap_level->bin() || coarse)) {
      const __int128 bin = snap_level->bin();
      const __int128 width = (w + bin - 1) / bin * bin;
      __int128 start = static_cast<__int128>(req.t1) / width * width;
      if (start > req.t1) start -= width;
      const __int128 n = (static_cast<__int128>(req.t2) - start + width - 1) / width;
      const __int128 end = start + n * width;
      if (start >= INT64_MIN && end <= INT64_MAX) {
        e0 = static_cast<int64_t>(start), e1 = static_cast<int64_t>(end), cols = static_cast<uint32_t>(n);
        const int64_t s = snap_level->block();
        for (size_t j = 1; j + 1 < q.size(); ++j) q[j] = FloorDiv(q[j] + s / 2, s) * s;
        out.snapped = true;
      } else {
        snap_level = nullptr;
      }
    } else if (snap_level != nullptr) {
      out.notes.push_back(fmt::format(
          "columns of {} are finer than half the bins ({}) of the grid level for rows of {} processes: answered per "
          "process",
          static_cast<int64_t>(w), snap_level->bin(), row_size));
      snap_level = nullptr;
    }
  }
  out.edges = Edges(e0, e1, cols);
  if (!list) {
    for (size_t j = 0; j + 1 < q.size(); ++j) out.rows.emplace_back(q[j], q[j + 1]);
  }
  if (auto e = too_big(out.cols(), out.rows.size())) return *e;
  if (req.shape_only) return out;
  Cells cells(out, schema);
  const uint32_t W = cols;

  // One row of every process: the array's own tree.
  // (a bounded range covers every process when its totals are every record: two descents)
  bool whole = !req.scan && !list && q.size() == 2 && !need_dists;
  if (whole && schema.process_field() && !(req.p1 == INT64_MIN && req.p2 == INT64_MAX)) {
    whole = false;
    if (indexed && !procs.empty()) {
      XTFQ_ASSIGN_OR_RETURN(Summary in_range, ProcessTree(reader.cache(), cat, array).Totals(q.front(), q.back()));
      whole = in_range.count == array.record_count();
    }
  }
  if (whole) {
    XTFQ_ASSIGN_OR_RETURN(std::vector<Summary> h, TnTree(reader.cache(), array).Histogram(e0, e1, W));
    for (uint32_t c = 0; c < W; ++c) cells.Merge(c, h[c]);
    out.plan.own_tree = true;
    return out;
  }
  // The naive answer, and the answer without a P index: the window's records.
  if (!indexed) {
    if (!req.scan)
      out.notes.push_back(fmt::format("'{}' has no process index: the window's records were read", array.name));
    // Rows sorted and disjoint are found by a binary search, others one by one.
    const bool sorted = std::is_sorted(out.rows.begin(), out.rows.end()) &&
                        std::adjacent_find(out.rows.begin(), out.rows.end(), [](const auto& x, const auto& y) {
                          return x.second > y.first;
                        }) == out.rows.end();
    TnTree tree(reader.cache(), array);
    XTFQ_ASSIGN_OR_RETURN(uint64_t a, tree.LowerBound(e0));
    XTFQ_ASSIGN_OR_RETURN(uint64_t b, tree.LowerBound(e1));
    XTFQ_TRY(tree.ForEach(a, b, [&](const std::byte* r) -> Result<bool> {
      const uint32_t col = TnTree::Bucket(schema.Time(r), e0, e1, W);
      if (!schema.process_field()) {
        cells.Add(col, schema, r);
      } else if (list && !sorted) {
        const int64_t p = schema.Process(r);
        for (size_t j = 0; j < out.rows.size(); ++j) {
          if (p >= out.rows[j].first && p < out.rows[j].second) cells.Add(out.cell(j, col), schema, r);
        }
      } else {
        const int64_t p = schema.Process(r);
        auto it = std::upper_bound(out.rows.begin(), out.rows.end(), p,
                                   [](int64_t v, const auto& row) { return v < row.first; });
        if (it != out.rows.begin() && p < (it - 1)->second) {
          cells.Add(out.cell(static_cast<size_t>(it - out.rows.begin() - 1), col), schema, r);
        }
      }
      return true;
    }));
    out.plan.records_read += b - a;
    return out;
  }

  // Which grid levels serve: their bins must not straddle a column edge.
  std::vector<LevelPieces> pieces;
  if (grid) {
    for (const GridLevel& l : grid->levels) {
      const bool aligned =
          std::all_of(out.edges.begin(), out.edges.end(), [&](int64_t e) { return (e & (l.bin() - 1)) == 0; });
      const bool holds = std::all_of(out.distributions.begin(), out.distributions.end(),
                                     [&](size_t d) { return l.DistributionOf(d) != nullptr; });
      if (aligned && holds) pieces.push_back({&l, {}});
    }
  }
  // Cut each row into whole blocks of the largest level that fits, and runs of single processes.
  std::vector<Singles> singles;
  // Only ids from the first to the last process with records can hold any.
  const int64_t have_lo = procs.empty() ? 0 : procs.front()->process;
  const int64_t have_hi =
      procs.empty() ? 0 : (procs.back()->process == INT64_MAX ? INT64_MAX : procs.back()->process + 1);
  for (size_t j = 0; j < out.rows.size(); ++j) {
    const int64_t a = std::max(out.rows[j].first, have_lo), b = std::min(out.rows[j].second, have_hi);
    if (a >= b) continue;
    if (pieces.empty()) {
      singles.push_back({a, b, j});
      continue;
    }
    int64_t pos = a;
    while (pos < b) {
      LevelPieces* best = nullptr;
      for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) {
        const int64_t blk = it->level->block();
        if ((pos & (blk - 1)) == 0 && static_cast<__int128>(b) - pos >= blk) {
          best = &*it;
          break;
        }
      }
      if (best != nullptr) {
        best->blocks.emplace_back(pos >> best->level->block_shift, j);
        pos += best->level->block();
        continue;
      }
      // Single processes up to the next edge of the smallest block (or the row's end).
      const int64_t blk = pieces.front().level->block();
      const int64_t next = std::min<__int128>(b, (static_cast<__int128>(FloorDiv(pos, blk)) + 1) * blk);
      if (!singles.empty() && singles.back().row == j && singles.back().hi == pos) {
        singles.back().hi = next;
      } else {
        singles.push_back({pos, next, j});
      }
      pos = next;
    }
  }
  // A level is read only when its cells in the window are fewer than what the per-process
  // histograms of its blocks would merge (an estimate: W + 1 per process, at most its records), and
  // fill fewer pages than the window's records (cells are wider than records).
  const double per_process = procs.empty() ? 0.0 : static_cast<double>(array.record_count()) / procs.size();
  const uint32_t payload = reader.store().page_size() - format::kPageHeaderSize;
  TnTree own(reader.cache(), array);
  std::optional<double> records_pages;
  uint64_t window_records = 0;
  for (LevelPieces& lp : pieces) {
    if (lp.blocks.empty()) continue;
    TnTree cells_tree(reader.cache(), *lp.level->array);
    XTFQ_ASSIGN_OR_RETURN(uint64_t c0, cells_tree.LowerBound(e0));
    XTFQ_ASSIGN_OR_RETURN(uint64_t c1, cells_tree.LowerBound(e1));
    if (!records_pages) {
      XTFQ_ASSIGN_OR_RETURN(uint64_t w0, own.LowerBound(e0));
      XTFQ_ASSIGN_OR_RETURN(uint64_t w1, own.LowerBound(e1));
      records_pages = std::ceil(static_cast<double>(w1 - w0) / (payload / schema.record_width()));
      window_records = w1 - w0;
    }
    // (with distributions the per-process path reads the blocks' records in the window: their share of them)
    const double processes = static_cast<double>(lp.blocks.size()) * lp.level->block();
    const double estimate =
        need_dists ? static_cast<double>(window_records) * std::min(1.0, processes / std::max<size_t>(procs.size(), 1))
                   : processes * std::min<double>(W + 1.0, per_process);
    const double cell_pages =
        std::ceil(static_cast<double>(c1 - c0) / (payload / lp.level->array->schema.record_width()));
    if (static_cast<double>(c1 - c0) > estimate || cell_pages > *records_pages) {
      for (const auto& [block, row] : lp.blocks) {
        singles.push_back({block << lp.level->block_shift, (block + 1) << lp.level->block_shift, row});
      }
      lp.blocks.clear();
      continue;
    }
    std::sort(lp.blocks.begin(), lp.blocks.end());
    const ArrayDesc& ca = *lp.level->array;
    XTFQ_TRY(cells_tree.ForEach(c0, c1, [&](const std::byte* r) -> Result<bool> {
      const int64_t block = LoadLe<int64_t>(r + G::kCellBlock);
      auto it = std::lower_bound(lp.blocks.begin(), lp.blocks.end(), std::make_pair(block, size_t{0}));
      if (it != lp.blocks.end() && it->first == block) {
        // Every row that takes the block (rows given as ranges may overlap).
        const int64_t t = LoadLe<int64_t>(r + G::kCellT);
        if (t < e0 || t >= e1) {
          return Error(ErrorCode::kCorrupt,
                       fmt::format("{}: {} holds a cell at {} outside [{}, {}) where its tree put it", store, ca.name,
                                   t, e0, e1));
        }
        const uint32_t col = TnTree::Bucket(t, e0, e1, W);
        for (; it != lp.blocks.end() && it->first == block; ++it) {
          cells.MergeCell(out.cell(it->second, col), r, *lp.level);
        }
      }
      return true;
    }));
    out.plan.levels.push_back(lp.level->level);
    out.plan.cells_read += c1 - c0;
  }
  // Single processes: a one-pass histogram over each per-process array, or, when that would read
  // more pages than the window holds (many processes of few records each), one read of the
  // window's records, each binned into the run of single processes that holds it.
  if (singles.empty()) return out;
  std::sort(singles.begin(), singles.end(), [](const Singles& x, const Singles& y) { return x.lo < y.lo; });
  bool disjoint = true;
  for (size_t k = 1; k < singles.size(); ++k) disjoint = disjoint && singles[k - 1].hi <= singles[k].lo;
  const uint32_t per_page = (reader.store().page_size() - format::kPageHeaderSize) / schema.record_width();
  TnTree tree(reader.cache(), array);
  XTFQ_ASSIGN_OR_RETURN(uint64_t w0, tree.LowerBound(e0));
  XTFQ_ASSIGN_OR_RETURN(uint64_t w1, tree.LowerBound(e1));
  // With distributions a process's records are read (its window's share of them, estimated).
  const double share = array.record_count() == 0 ? 0.0 : static_cast<double>(w1 - w0) / array.record_count();
  double per_process_pages = 0;
  for (const Singles& s : singles) {
    auto it = std::lower_bound(procs.begin(), procs.end(), s.lo,
                               [](const ArrayDesc* d, int64_t p) { return d->process < p; });
    for (; it != procs.end() && (*it)->process < s.hi; ++it) {
      const double leaves = std::ceil(static_cast<double>((*it)->record_count()) / per_page);
      const double read = need_dists ? std::ceil(leaves * share) + 1.0 : std::min<double>(W + 1.0, leaves);
      per_process_pages += read + static_cast<double>((*it)->levels.size());
    }
  }
  const double window_pages = std::ceil(static_cast<double>(w1 - w0) / per_page) + 1.0;
  if (disjoint && window_pages < per_process_pages) {
    XTFQ_TRY(tree.ForEach(w0, w1, [&](const std::byte* r) -> Result<bool> {
      const int64_t p = schema.Process(r);
      auto it =
          std::upper_bound(singles.begin(), singles.end(), p, [](int64_t v, const Singles& x) { return v < x.lo; });
      if (it == singles.begin() || p >= (it - 1)->hi) return true;
      cells.Add(out.cell((it - 1)->row, TnTree::Bucket(schema.Time(r), e0, e1, W)), schema, r);
      return true;
    }));
    out.plan.records_read += w1 - w0;
    return out;
  }
  for (const Singles& s : singles) {
    auto it = std::lower_bound(procs.begin(), procs.end(), s.lo,
                               [](const ArrayDesc* d, int64_t p) { return d->process < p; });
    for (; it != procs.end() && (*it)->process < s.hi; ++it) {
      TnTree own_tree(reader.cache(), **it);
      if (need_dists) {
        XTFQ_ASSIGN_OR_RETURN(uint64_t a, own_tree.LowerBound(e0));
        XTFQ_ASSIGN_OR_RETURN(uint64_t b, own_tree.LowerBound(e1));
        XTFQ_TRY(own_tree.ForEach(a, b, [&](const std::byte* r) -> Result<bool> {
          cells.Add(out.cell(s.row, TnTree::Bucket(schema.Time(r), e0, e1, W)), schema, r);
          return true;
        }));
        out.plan.records_read += b - a;
      } else {
        XTFQ_ASSIGN_OR_RETURN(std::vector<Summary> h, own_tree.Histogram(e0, e1, W));
        for (uint32_t c = 0; c < W; ++c) cells.Merge(out.cell(s.row, c), h[c]);
      }
      ++out.plan.process_arrays;
    }
  }
  return out;
}

}  // namespace xtfq
