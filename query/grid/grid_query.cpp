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
  Cells(GridCells& r, const Schema& schema) : r_(r), nf_(r.fields.size()), nd_(r.distributions.size()) {
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
  GridCells& r_;
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

uint64_t GridCells::TotalCount() const {
  uint64_t n = 0;
  for (uint64_t c : count) n += c;
  return n;
}

FieldStats GridCells::TotalStat(size_t field) const {
  FieldStats t = stats.empty() ? FieldStats{} : stats[field];
  for (size_t c = 1; c < count.size(); ++c) t.Merge(stats[c * fields.size() + field]);
  return t;
}

LogHistogram GridCells::TotalDist(size_t d) const {
  LogHistogram t;
  for (size_t c = 0; c < count.size(); ++c) t.Merge(dists[c * distributions.size() + d]);
  return t;
}

void GridCells::Merge(const GridCells& r) {
  for (size_t c = 0; c < count.size(); ++c) count[c] += r.count[c];
  for (size_t i = 0; i < stats.size(); ++i) stats[i].Merge(r.stats[i]);
  for (size_t i = 0; i < dists.size(); ++i) dists[i].Merge(r.dists[i]);
  plan.Merge(r.plan);
  notes.insert(notes.end(), r.notes.begin(), r.notes.end());
}

void GridCells::Add(size_t c, const Schema& schema, const std::byte* rec) {
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

namespace {

// What the phases of GridQuery::Run share: the request and its array, the result they fill, and
// what each phase decides for the next ones.
struct GridRun {
  StoreReader& reader;
  const ArrayDesc& array;
  const GridRequest& req;
  const Schema& schema;
  GridCells out;
  bool need_dists = false;              // the cells hold distributions
  bool list = false;                    // rows listed (processes or ranges), not cut from a range
  uint64_t fields = 1;                  // field cells a cell takes (see CheckSize)
  bool has_index = false;               // the array has a P index
  bool indexed = false;                 // and the answer uses it (no scan)
  std::vector<const ArrayDesc*> procs;  // the range's processes with records
  std::optional<GridIndex> grid;        // the grid, when it can serve
  std::vector<int64_t> q;               // range mode: H + 1 edges
  uint32_t rows = 0;                    // H: the rows asked, fewer with fit_rows
  int64_t lo = 0, hi = 0;               // range mode: the range the rows cut
  int64_t e0 = 0, e1 = 0;               // the window, snapped or as asked
  uint32_t cols = 0;                    // W, snapped or as asked
};

// At most kMaxCells field cells (checked before anything of that size is made).
std::optional<Error> CheckSize(const GridRun& g, uint64_t cols, uint64_t rows) {
  const uint64_t fields = g.fields;
  if (rows * cols * fields <= GridQuery::kMaxCells) return std::nullopt;
  return Invalid(
      fmt::format("a grid of {} x {} cells of {} field{} is more than {} field cells: ask fewer columns "
                  "or rows",
                  cols, rows, fields, fields == 1 ? "" : "s", GridQuery::kMaxCells));
}

// Checks the window, the columns and rows asked, and that the array has a time.
Status CheckRequest(const GridRun& g) {
  const GridRequest& req = g.req;
  if (req.t1 >= req.t2)
    return Invalid(fmt::format("empty or reversed window {}:{} (T1 must be below T2)", req.t1, req.t2));
  if (req.cols == 0 || (req.processes.empty() && req.rows == 0))
    return Invalid("a grid needs at least one column and one row");
  if (!g.schema.time_field()) return Invalid(fmt::format("array '{}' has no time field for a grid", g.array.name));
  return Ok();
}

// Sets the fields and the distributions the cells keep (every aggregate field unless asked).
Status KeepFields(GridRun& g) {
  const Schema& schema = g.schema;
  GridCells& out = g.out;
  out.fields = g.req.fields;
  if (out.fields.empty()) {
    for (size_t f = 0; f < schema.aggregates().size(); ++f) out.fields.push_back(f);
  }
  for (size_t f : out.fields) {
    if (f >= schema.aggregates().size())
      return Invalid(fmt::format("aggregate field {} of '{}' does not exist", f, g.array.name));
    out.field_names.push_back(schema.fields()[schema.aggregates()[f]].name);
  }
  out.distributions = g.req.distributions;
  for (size_t d : out.distributions) {
    if (d >= schema.aggregates().size())
      return Invalid(fmt::format("aggregate field {} of '{}' does not exist", d, g.array.name));
  }
  g.need_dists = !out.distributions.empty();
  g.fields = std::max<uint64_t>(out.fields.size() + GridQuery::kDistributionFields * out.distributions.size(), 1);
  return Ok();
}

// Checks how the rows are asked: listed or over a range, and over processes only where the array
// has them; a list's size.
Status CheckRowsAsked(GridRun& g) {
  const GridRequest& req = g.req;
  g.list = !req.processes.empty() || !req.row_ranges.empty();
  if (!req.processes.empty() && !req.row_ranges.empty())
    return Invalid("give rows as processes or as ranges, not both");
  if (!g.schema.process_field() && (g.list || req.rows > 1 || req.p1 != INT64_MIN || req.p2 != INT64_MAX)) {
    return Invalid(
        fmt::format("array '{}' has no process field: a grid of it has one row over every record", g.array.name));
  }
  if (g.list) {
    if (auto e = CheckSize(g, req.cols, !req.row_ranges.empty() ? req.row_ranges.size() : req.processes.size()))
      return *e;
  }
  return Ok();
}

// The processes of the range that have records (from the P index, also when scanning: the rows
// are the same).
void FindProcesses(GridRun& g) {
  g.has_index = g.schema.process_field() && g.array.process_index;
  g.indexed = g.has_index && !g.req.scan;
  if (g.has_index) {
    g.procs = GridQuery::ProcessArrays(g.reader.catalogue(), g.array, g.list ? INT64_MIN : g.req.p1,
                                       g.list ? INT64_MAX : g.req.p2);
  }
}

// The grid, when it can serve.
Status LoadGrid(GridRun& g) {
  if (!g.indexed) return Ok();
  // A grid of distributions reads the distributions family (wider cells, coarser bins).
  XTFQ_ASSIGN_OR_RETURN(
      g.grid, GridIndex::Load(g.reader, g.array,
                              g.need_dists ? GridLayout::Family::kDistributions : GridLayout::Family::kCells));
  if (g.grid && g.grid->stale) {
    g.out.notes.push_back(fmt::format("the grid of '{}' covers its first {} of {} records: answered per process",
                                      g.array.name, g.grid->source_records, g.array.record_count()));
    g.grid.reset();
  }
  return Ok();
}

// Listed rows: one a process, or the ranges given.
Status ListRows(GridRun& g) {
  for (int64_t p : g.req.processes) {
    if (p == INT64_MAX) return Invalid("process 9223372036854775807 cannot be a row");
    g.out.rows.emplace_back(p, p + 1);
  }
  for (const auto& [a, b] : g.req.row_ranges) {
    if (a >= b) return Invalid(fmt::format("row {}:{} is empty or reversed", a, b));
    g.out.rows.emplace_back(a, b);
  }
  return Ok();
}

// Without the P index the range's bounds come from the window's records.
Status BoundRangeByRecords(GridRun& g) {
  const GridRequest& req = g.req;
  const Schema& schema = g.schema;
  TnTree tree(g.reader.cache(), g.array);
  XTFQ_ASSIGN_OR_RETURN(uint64_t a, tree.LowerBound(req.t1));
  XTFQ_ASSIGN_OR_RETURN(uint64_t b, tree.LowerBound(req.t2));
  int64_t mn = INT64_MAX, mx = INT64_MIN;
  XTFQ_TRY(tree.ForEach(a, b, [&](const std::byte* r) -> Result<bool> {
    const int64_t p = schema.Process(r);
    if (p >= req.p1 && p < req.p2) mn = std::min(mn, p), mx = std::max(mx, p);
    return true;
  }));
  g.out.plan.records_read += b - a;
  if (mn <= mx) {
    if (req.p1 == INT64_MIN) g.lo = mn;
    if (req.p2 == INT64_MAX) g.hi = mx == INT64_MAX ? INT64_MAX : mx + 1;
  }
  return Ok();
}

// The range the rows cut: exactly the one asked, or narrowed to the processes with records.
Status NarrowRange(GridRun& g) {
  const GridRequest& req = g.req;
  if (req.exact_range) {
    if (req.p1 == INT64_MIN || req.p2 == INT64_MAX) return Invalid("rows over an exact range need a bounded range");
  } else if (g.has_index) {
    if (!g.procs.empty()) {
      g.lo = std::max(g.lo, g.procs.front()->process);
      g.hi = std::min(g.hi, g.procs.back()->process == INT64_MAX ? INT64_MAX : g.procs.back()->process + 1);
    }
  } else if (req.p1 == INT64_MIN || req.p2 == INT64_MAX) {
    XTFQ_TRY(BoundRangeByRecords(g));
  }
  return Ok();
}

// Cuts the range into H rows (one when it holds no records; with fit_rows at most one a process):
// their H + 1 edges.
Status CutRange(GridRun& g) {
  const GridRequest& req = g.req;
  if (g.lo == INT64_MIN || g.hi == INT64_MAX || g.lo >= g.hi) {
    if (req.rows > 1 && !req.fit_rows)
      return Invalid("the process range holds no records: give --ranks R1:R2 to draw it empty");
    g.out.notes.push_back("no records in the process range");
    g.rows = 1;
  }
  const __int128 span = static_cast<__int128>(g.hi) - g.lo;
  if (span > 0 && span < g.rows) {
    if (!req.fit_rows) {
      return Invalid(fmt::format("{} rows over processes {}:{}: at most {} (a row holds at least one process)", g.rows,
                                 g.lo, g.hi, static_cast<int64_t>(span)));
    }
    g.out.notes.push_back(fmt::format("{} rows asked: the {} processes {} to {} with records get a row each", g.rows,
                                      static_cast<int64_t>(span), g.lo, g.hi - 1));
    g.rows = static_cast<uint32_t>(span);
  }
  if (auto e = CheckSize(g, req.cols, g.rows)) return *e;
  if (span <= 0) {
    g.q = {g.lo, g.hi};
  } else {
    for (const auto& row : GridQuery::Rows(g.lo, g.hi, g.rows)) g.q.push_back(row.first);
    g.q.push_back(g.hi);
  }
  return Ok();
}

// Rows: listed, or cut from the process range, or one over every record (an array without
// processes).
Status ChooseRows(GridRun& g) {
  g.rows = g.req.rows;  // fewer with fit_rows
  g.lo = g.req.p1, g.hi = g.req.p2;
  if (g.list) return ListRows(g);
  if (!g.schema.process_field()) {
    g.q = {INT64_MIN, INT64_MAX};
    return Ok();
  }
  XTFQ_TRY(NarrowRange(g));
  return CutRange(g);
}

// Whether columns finer than half a bin are drawn on whole bins all the same (saying so): when the
// window holds over `snap_record_limit` records, or over a quarter of it when single bins still
// give a quarter of the columns asked.
Result<bool> DrawsOnWholeBins(GridRun& g, const GridLevel& level, __int128 w, int64_t row_size) {
  const GridRequest& req = g.req;
  TnTree tree(g.reader.cache(), g.array);
  XTFQ_ASSIGN_OR_RETURN(uint64_t a, tree.LowerBound(req.t1));
  XTFQ_ASSIGN_OR_RETURN(uint64_t b, tree.LowerBound(req.t2));
  const __int128 bins = (static_cast<__int128>(req.t2) - req.t1) / level.bin() + 1;
  const bool coarse = b - a > req.snap_record_limit || (b - a > req.snap_record_limit / 4 && 4 * bins >= req.cols);
  if (coarse) {
    g.out.notes.push_back(fmt::format(
        "columns of {} are finer than half the bins ({}) of the grid level for rows of {} processes, and the "
        "window holds {} records: drawn on whole bins, fewer columns than asked",
        static_cast<int64_t>(w), level.bin(), row_size, b - a));
  }
  return coarse;
}

// Moves the window outward onto columns of a whole number of the level's bins (at least w wide),
// and the inner row edges onto its blocks; nothing when such a window leaves the int64 range.
void SnapWindow(GridRun& g, const GridLevel& level, __int128 w) {
  const __int128 bin = level.bin();
  const __int128 width = (w + bin - 1) / bin * bin;
  __int128 start = static_cast<__int128>(g.req.t1) / width * width;
  if (start > g.req.t1) start -= width;
  const __int128 n = (static_cast<__int128>(g.req.t2) - start + width - 1) / width;
  const __int128 end = start + n * width;
  if (start < INT64_MIN || end > INT64_MAX) return;
  g.e0 = static_cast<int64_t>(start), g.e1 = static_cast<int64_t>(end), g.cols = static_cast<uint32_t>(n);
  const int64_t s = level.block();
  for (size_t j = 1; j + 1 < g.q.size(); ++j) g.q[j] = FloorDiv(g.q[j] + s / 2, s) * s;
  g.out.snapped = true;
}

// Snaps the window and the rows onto the bins and blocks of the grid level that fits the rows (the
// largest whose blocks a row holds).
Status SnapColumns(GridRun& g) {
  const GridRequest& req = g.req;
  const int64_t row_size = static_cast<int64_t>((static_cast<__int128>(g.hi) - g.lo) / g.rows);
  const GridLevel* level = nullptr;
  for (const GridLevel& l : g.grid->levels) {
    if (l.block() <= row_size) level = &l;
  }
  if (level == nullptr) return Ok();
  const __int128 w = (static_cast<__int128>(req.t2) - req.t1 + req.cols - 1) / req.cols;
  // Columns of at least half a bin snap to whole bins (down to half as many columns as asked).
  // Finer columns snap to single bins too, fewer columns than asked, when their records would
  // cost more than the picture is worth: over `snap_record_limit` records, or over a quarter of
  // it when the single bins still give a quarter of the columns asked.
  if (2 * w < level->bin()) {
    XTFQ_ASSIGN_OR_RETURN(const bool coarse, DrawsOnWholeBins(g, *level, w, row_size));
    if (!coarse) {
      g.out.notes.push_back(fmt::format(
          "columns of {} are finer than half the bins ({}) of the grid level for rows of {} processes: answered per "
          "process",
          static_cast<int64_t>(w), level->bin(), row_size));
      return Ok();
    }
  }
  SnapWindow(g, *level, w);
  return Ok();
}

// Columns; with `snap`, the window and rows move onto the bins and blocks of the level that fits.
Status ChooseColumns(GridRun& g) {
  const GridRequest& req = g.req;
  g.e0 = req.t1, g.e1 = req.t2;
  g.cols = req.cols;
  if (req.snap && !g.grid && !req.scan) {
    g.out.notes.push_back(fmt::format("--snap: '{}' has no grid summaries{} to snap to: the columns are as asked",
                                      g.array.name, g.need_dists ? " with distributions" : ""));
  }
  if (req.snap && g.grid && !g.list && g.q.size() > 1) return SnapColumns(g);
  return Ok();
}

// One row of every process: the array's own tree. False when it does not serve.
// (a bounded range covers every process when its totals are every record: two descents)
Result<bool> ReadOwnTree(GridRun& g, Cells& cells) {
  const GridRequest& req = g.req;
  bool whole = !req.scan && !g.list && g.q.size() == 2 && !g.need_dists;
  if (whole && g.schema.process_field() && !(req.p1 == INT64_MIN && req.p2 == INT64_MAX)) {
    whole = false;
    if (g.indexed && !g.procs.empty()) {
      XTFQ_ASSIGN_OR_RETURN(
          Summary in_range,
          ProcessTree(g.reader.cache(), g.reader.catalogue(), g.array).Totals(g.q.front(), g.q.back()));
      whole = in_range.count == g.array.record_count();
    }
  }
  if (!whole) return false;
  XTFQ_ASSIGN_OR_RETURN(std::vector<Summary> h, TnTree(g.reader.cache(), g.array).Histogram(g.e0, g.e1, g.cols));
  for (uint32_t c = 0; c < g.cols; ++c) cells.Merge(c, h[c]);
  g.out.plan.own_tree = true;
  return true;
}

// The naive answer, and the answer without a P index: the window's records.
Status ScanWindow(GridRun& g, Cells& cells) {
  const Schema& schema = g.schema;
  GridCells& out = g.out;
  const int64_t e0 = g.e0, e1 = g.e1;
  const uint32_t W = g.cols;
  if (!g.req.scan)
    out.notes.push_back(fmt::format("'{}' has no process index: the window's records were read", g.array.name));
  // Rows sorted and disjoint are found by a binary search, others one by one.
  const bool sorted = std::is_sorted(out.rows.begin(), out.rows.end()) &&
                      std::adjacent_find(out.rows.begin(), out.rows.end(), [](const auto& x, const auto& y) {
                        return x.second > y.first;
                      }) == out.rows.end();
  TnTree tree(g.reader.cache(), g.array);
  XTFQ_ASSIGN_OR_RETURN(uint64_t a, tree.LowerBound(e0));
  XTFQ_ASSIGN_OR_RETURN(uint64_t b, tree.LowerBound(e1));
  XTFQ_TRY(tree.ForEach(a, b, [&](const std::byte* r) -> Result<bool> {
    const uint32_t col = TnTree::Bucket(schema.Time(r), e0, e1, W);
    if (!schema.process_field()) {
      cells.Add(col, schema, r);
    } else if (g.list && !sorted) {
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
  return Ok();
}

// Which grid levels serve: their bins must not straddle a column edge.
std::vector<LevelPieces> ChooseLevels(const GridRun& g) {
  std::vector<LevelPieces> pieces;
  if (g.grid) {
    for (const GridLevel& l : g.grid->levels) {
      const bool aligned =
          std::all_of(g.out.edges.begin(), g.out.edges.end(), [&](int64_t e) { return (e & (l.bin() - 1)) == 0; });
      const bool holds = std::all_of(g.out.distributions.begin(), g.out.distributions.end(),
                                     [&](size_t d) { return l.DistributionOf(d) != nullptr; });
      if (aligned && holds) pieces.push_back({&l, {}});
    }
  }
  return pieces;
}

// Cut each row into whole blocks of the largest level that fits, and runs of single processes.
std::vector<Singles> CutRows(const GridRun& g, std::vector<LevelPieces>& pieces) {
  const std::vector<const ArrayDesc*>& procs = g.procs;
  std::vector<Singles> singles;
  // Only ids from the first to the last process with records can hold any.
  const int64_t have_lo = procs.empty() ? 0 : procs.front()->process;
  const int64_t have_hi =
      procs.empty() ? 0 : (procs.back()->process == INT64_MAX ? INT64_MAX : procs.back()->process + 1);
  for (size_t j = 0; j < g.out.rows.size(); ++j) {
    const int64_t a = std::max(g.out.rows[j].first, have_lo), b = std::min(g.out.rows[j].second, have_hi);
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
  return singles;
}

// A level is read only when its cells in the window are fewer than what the per-process
// histograms of its blocks would merge (an estimate: W + 1 per process, at most its records), and
// fill fewer pages than the window's records (cells are wider than records). The blocks of a level
// not read go to `singles`.
Status ReadLevels(GridRun& g, Cells& cells, std::vector<LevelPieces>& pieces, std::vector<Singles>& singles) {
  const ArrayDesc& array = g.array;
  const std::string& store = g.reader.store().name();
  const int64_t e0 = g.e0, e1 = g.e1;
  const uint32_t W = g.cols;
  const double per_process = g.procs.empty() ? 0.0 : static_cast<double>(array.record_count()) / g.procs.size();
  const uint32_t payload = g.reader.store().page_size() - format::kPageHeaderSize;
  TnTree own(g.reader.cache(), array);
  std::optional<double> records_pages;
  uint64_t window_records = 0;
  for (LevelPieces& lp : pieces) {
    if (lp.blocks.empty()) continue;
    TnTree cells_tree(g.reader.cache(), *lp.level->array);
    XTFQ_ASSIGN_OR_RETURN(uint64_t c0, cells_tree.LowerBound(e0));
    XTFQ_ASSIGN_OR_RETURN(uint64_t c1, cells_tree.LowerBound(e1));
    if (!records_pages) {
      XTFQ_ASSIGN_OR_RETURN(uint64_t w0, own.LowerBound(e0));
      XTFQ_ASSIGN_OR_RETURN(uint64_t w1, own.LowerBound(e1));
      records_pages = std::ceil(static_cast<double>(w1 - w0) / (payload / g.schema.record_width()));
      window_records = w1 - w0;
    }
    // (with distributions the per-process path reads the blocks' records in the window: their share of them)
    const double processes = static_cast<double>(lp.blocks.size()) * lp.level->block();
    const double estimate = g.need_dists ? static_cast<double>(window_records) *
                                               std::min(1.0, processes / std::max<size_t>(g.procs.size(), 1))
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
          cells.MergeCell(g.out.cell(it->second, col), r, *lp.level);
        }
      }
      return true;
    }));
    g.out.plan.levels.push_back(lp.level->level);
    g.out.plan.cells_read += c1 - c0;
  }
  return Ok();
}

// The pages a read of the single processes' own arrays would take: each tree's levels, and the
// leaves a histogram of W columns visits.
// With distributions a process's records are read (its window's share of them, estimated).
double EstimateProcessPages(const GridRun& g, const std::vector<Singles>& singles, uint32_t per_page,
                            uint64_t window_records) {
  const std::vector<const ArrayDesc*>& procs = g.procs;
  const double share = g.array.record_count() == 0 ? 0.0 : static_cast<double>(window_records) / g.array.record_count();
  double per_process_pages = 0;
  for (const Singles& s : singles) {
    auto it = std::lower_bound(procs.begin(), procs.end(), s.lo,
                               [](const ArrayDesc* d, int64_t p) { return d->process < p; });
    for (; it != procs.end() && (*it)->process < s.hi; ++it) {
      const double leaves = std::ceil(static_cast<double>((*it)->record_count()) / per_page);
      const double read = g.need_dists ? std::ceil(leaves * share) + 1.0 : std::min<double>(g.cols + 1.0, leaves);
      per_process_pages += read + static_cast<double>((*it)->levels.size());
    }
  }
  return per_process_pages;
}

// A one-pass histogram over each single process's own array (with distributions, its records in
// the window).
Status ReadProcessArrays(GridRun& g, Cells& cells, const std::vector<Singles>& singles) {
  const Schema& schema = g.schema;
  const int64_t e0 = g.e0, e1 = g.e1;
  const uint32_t W = g.cols;
  for (const Singles& s : singles) {
    auto it = std::lower_bound(g.procs.begin(), g.procs.end(), s.lo,
                               [](const ArrayDesc* d, int64_t p) { return d->process < p; });
    for (; it != g.procs.end() && (*it)->process < s.hi; ++it) {
      TnTree own_tree(g.reader.cache(), **it);
      if (g.need_dists) {
        XTFQ_ASSIGN_OR_RETURN(uint64_t a, own_tree.LowerBound(e0));
        XTFQ_ASSIGN_OR_RETURN(uint64_t b, own_tree.LowerBound(e1));
        XTFQ_TRY(own_tree.ForEach(a, b, [&](const std::byte* r) -> Result<bool> {
          cells.Add(g.out.cell(s.row, TnTree::Bucket(schema.Time(r), e0, e1, W)), schema, r);
          return true;
        }));
        g.out.plan.records_read += b - a;
      } else {
        XTFQ_ASSIGN_OR_RETURN(std::vector<Summary> h, own_tree.Histogram(e0, e1, W));
        for (uint32_t c = 0; c < W; ++c) cells.Merge(g.out.cell(s.row, c), h[c]);
      }
      ++g.out.plan.process_arrays;
    }
  }
  return Ok();
}

// Single processes: a one-pass histogram over each per-process array, or, when that would read
// more pages than the window holds (many processes of few records each), one read of the
// window's records, each binned into the run of single processes that holds it.
Status ReadSingles(GridRun& g, Cells& cells, std::vector<Singles>& singles) {
  if (singles.empty()) return Ok();
  const Schema& schema = g.schema;
  const int64_t e0 = g.e0, e1 = g.e1;
  const uint32_t W = g.cols;
  std::sort(singles.begin(), singles.end(), [](const Singles& x, const Singles& y) { return x.lo < y.lo; });
  bool disjoint = true;
  for (size_t k = 1; k < singles.size(); ++k) disjoint = disjoint && singles[k - 1].hi <= singles[k].lo;
  const uint32_t per_page = (g.reader.store().page_size() - format::kPageHeaderSize) / schema.record_width();
  TnTree tree(g.reader.cache(), g.array);
  XTFQ_ASSIGN_OR_RETURN(uint64_t w0, tree.LowerBound(e0));
  XTFQ_ASSIGN_OR_RETURN(uint64_t w1, tree.LowerBound(e1));
  const double per_process_pages = EstimateProcessPages(g, singles, per_page, w1 - w0);
  const double window_pages = std::ceil(static_cast<double>(w1 - w0) / per_page) + 1.0;
  if (disjoint && window_pages < per_process_pages) {
    XTFQ_TRY(tree.ForEach(w0, w1, [&](const std::byte* r) -> Result<bool> {
      const int64_t p = schema.Process(r);
      auto it =
          std::upper_bound(singles.begin(), singles.end(), p, [](int64_t v, const Singles& x) { return v < x.lo; });
      if (it == singles.begin() || p >= (it - 1)->hi) return true;
      cells.Add(g.out.cell((it - 1)->row, TnTree::Bucket(schema.Time(r), e0, e1, W)), schema, r);
      return true;
    }));
    g.out.plan.records_read += w1 - w0;
    return Ok();
  }
  return ReadProcessArrays(g, cells, singles);
}

}  // namespace

Result<GridCells> GridQuery::Run(StoreReader& reader, const ArrayDesc& array, const GridRequest& req) {
  GridRun g{reader, array, req, array.schema};
  XTFQ_TRY(CheckRequest(g));
  XTFQ_TRY(KeepFields(g));
  XTFQ_TRY(CheckRowsAsked(g));
  FindProcesses(g);
  XTFQ_TRY(LoadGrid(g));
  XTFQ_TRY(ChooseRows(g));
  XTFQ_TRY(ChooseColumns(g));
  GridCells& out = g.out;
  out.edges = Edges(g.e0, g.e1, g.cols);
  if (!g.list) {
    for (size_t j = 0; j + 1 < g.q.size(); ++j) out.rows.emplace_back(g.q[j], g.q[j + 1]);
  }
  if (auto e = CheckSize(g, out.cols(), out.rows.size())) return *e;
  if (req.shape_only) return std::move(out);
  Cells cells(out, array.schema);
  XTFQ_ASSIGN_OR_RETURN(const bool whole, ReadOwnTree(g, cells));
  if (whole) return std::move(out);
  if (!g.indexed) {
    XTFQ_TRY(ScanWindow(g, cells));
    return std::move(out);
  }
  std::vector<LevelPieces> pieces = ChooseLevels(g);
  std::vector<Singles> singles = CutRows(g, pieces);
  XTFQ_TRY(ReadLevels(g, cells, pieces, singles));
  XTFQ_TRY(ReadSingles(g, cells, singles));
  return std::move(out);
}

}  // namespace xtfq
