#include "query/grid/distribution_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "index/tn_tree.h"
#include "query/grid/grid_index.h"
#include "store/format.h"

namespace xtfq {

namespace {

// A 1 x 1 grid of no record over [t1, t2) x [p1, p2), every aggregate field kept.
GridCells Empty(const Schema& schema, const DistributionRequest& req, int64_t t1, int64_t t2) {
  GridCells r;
  r.edges = {t1, t2};
  r.rows = {{req.p1, req.p2}};
  const Summary empty(schema);
  for (size_t f = 0; f < schema.aggregates().size(); ++f) {
    r.fields.push_back(f);
    r.field_names.push_back(schema.fields()[schema.aggregates()[f]].name);
    r.stats.push_back(empty.fields[f]);
  }
  r.count = {0};
  r.distributions = req.distributions;
  r.dists.assign(req.distributions.size(), LogHistogram{});
  return r;
}

// Adds the records of [a, b) (record numbers of the array's own order) in the process range that
// the filter accepts.
Status ReadRecords(TnTree& tree, const Schema& schema, const DistributionRequest& req, uint64_t a, uint64_t b,
                   GridCells& r) {
  const bool ranged = schema.process_field() && (req.p1 != INT64_MIN || req.p2 != INT64_MAX);
  XTFQ_TRY(tree.ForEach(a, b, [&](const std::byte* rec) -> Result<bool> {
    if (ranged) {
      const int64_t p = schema.Process(rec);
      if (p < req.p1 || (p >= req.p2 && req.p2 != INT64_MAX)) return true;
    }
    if (req.filter && !req.filter(rec)) return true;
    r.Add(0, schema, rec);
    return true;
  }));
  r.plan.records_read += b - a;
  return Ok();
}

__int128 CeilTo(__int128 t, __int128 bin) {
  __int128 q = t / bin * bin;
  return q < t ? q + bin : q;
}

__int128 FloorTo(__int128 t, __int128 bin) {
  __int128 q = t / bin * bin;
  return q > t ? q - bin : q;
}

}  // namespace

Result<GridCells> DistributionQuery::Run(StoreReader& reader, const ArrayDesc& array, const DistributionRequest& req) {
  const Schema& schema = array.schema;
  if (!schema.time_field()) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("array '{}' has no time field", array.name));
  }
  for (size_t d : req.distributions) {
    if (d >= schema.aggregates().size()) {
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("aggregate field {} of '{}' does not exist", d, array.name));
    }
  }
  if (req.t1 >= req.t2) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("empty or reversed window {}:{}", req.t1, req.t2));
  }
  GridCells out = Empty(schema, req, req.t1, req.t2);
  TnTree tree(reader.cache(), array);
  XTFQ_ASSIGN_OR_RETURN(uint64_t w0, tree.LowerBound(req.t1));
  XTFQ_ASSIGN_OR_RETURN(uint64_t w1, tree.LowerBound(req.t2));
  if (w0 >= w1) return out;
  // The window narrowed to its records' times (open sides become finite).
  std::vector<std::byte> rec(schema.record_width());
  XTFQ_TRY(tree.Record(w0, rec));
  const int64_t t1 = schema.Time(rec.data());
  XTFQ_TRY(tree.Record(w1 - 1, rec));
  const __int128 t2 = static_cast<__int128>(schema.Time(rec.data())) + 1;

  const uint32_t payload = reader.store().page_size() - format::kPageHeaderSize;
  const double per_page = std::max<uint32_t>(1, payload / schema.record_width());
  const double window_pages = std::ceil(static_cast<double>(w1 - w0) / per_page);
  // The level whose cells and end records fill the fewest pages.
  const GridLevel* best = nullptr;
  int64_t best_a = 0, best_b = 0;
  double best_pages = window_pages;
  std::optional<GridIndex> grid;
  if (!req.filter && !req.scan && schema.process_field() && array.process_index) {
    XTFQ_ASSIGN_OR_RETURN(grid, GridIndex::Load(reader, array, GridLayout::Family::kDistributions));
    if (grid && grid->stale) {
      out.notes.push_back(fmt::format("the grid of '{}' is stale: the window's records were read", array.name));
    } else if (grid) {
      for (const GridLevel& l : grid->levels) {
        const bool holds = std::all_of(req.distributions.begin(), req.distributions.end(),
                                       [&](size_t d) { return l.DistributionOf(d) != nullptr; });
        const __int128 a = CeilTo(t1, l.bin()), b = FloorTo(t2, l.bin());
        if (!holds || a >= b) continue;
        XTFQ_ASSIGN_OR_RETURN(uint64_t ra, tree.LowerBound(static_cast<int64_t>(a)));
        XTFQ_ASSIGN_OR_RETURN(uint64_t rb, tree.LowerBound(static_cast<int64_t>(b)));
        TnTree cells(reader.cache(), *l.array);
        XTFQ_ASSIGN_OR_RETURN(uint64_t ca, cells.LowerBound(static_cast<int64_t>(a)));
        XTFQ_ASSIGN_OR_RETURN(uint64_t cb, cells.LowerBound(static_cast<int64_t>(b)));
        const double cells_per_page = std::max<uint32_t>(1, payload / l.array->schema.record_width());
        const double pages = std::ceil(static_cast<double>((ra - w0) + (w1 - rb)) / per_page) +
                             std::ceil(static_cast<double>(cb - ca) / cells_per_page);
        if (pages < best_pages) {
          best = &l, best_pages = pages, best_a = static_cast<int64_t>(a), best_b = static_cast<int64_t>(b);
        }
      }
    }
  }
  // A bounded process range with a P index: the window of each process of the range, when those
  // fill fewer pages (their share of the window, estimated, and a descent each) than the best above.
  // A range holding no process with records reads nothing.
  const bool ranged = req.p1 != INT64_MIN || req.p2 != INT64_MAX;
  if (ranged && !req.scan && schema.process_field() && array.process_index) {
    const std::vector<const ArrayDesc*> procs = GridQuery::ProcessArrays(reader.catalogue(), array, req.p1, req.p2);
    const double share = static_cast<double>(w1 - w0) / static_cast<double>(array.record_count());
    double pages = 0;
    for (const ArrayDesc* p : procs) {
      pages +=
          std::ceil(static_cast<double>(p->record_count()) * share / per_page) + static_cast<double>(p->levels.size());
    }
    if (pages < best_pages) {
      for (const ArrayDesc* p : procs) {
        TnTree own(reader.cache(), *p);
        XTFQ_ASSIGN_OR_RETURN(uint64_t a, own.LowerBound(req.t1));
        XTFQ_ASSIGN_OR_RETURN(uint64_t b, own.LowerBound(req.t2));
        XTFQ_TRY(ReadRecords(own, schema, req, a, b, out));
        ++out.plan.process_arrays;
      }
      return out;
    }
  }
  if (best == nullptr) {
    XTFQ_TRY(ReadRecords(tree, schema, req, w0, w1, out));
    return out;
  }
  GridRequest mid;
  mid.t1 = best_a, mid.t2 = best_b, mid.cols = 1;
  mid.row_ranges = {{req.p1, req.p2}};
  mid.fields = out.fields;
  mid.distributions = req.distributions;
  XTFQ_ASSIGN_OR_RETURN(GridCells m, GridQuery::Run(reader, array, mid));
  out.Merge(m);
  XTFQ_ASSIGN_OR_RETURN(uint64_t ra, tree.LowerBound(best_a));
  XTFQ_ASSIGN_OR_RETURN(uint64_t rb, tree.LowerBound(best_b));
  XTFQ_TRY(ReadRecords(tree, schema, req, w0, ra, out));
  XTFQ_TRY(ReadRecords(tree, schema, req, rb, w1, out));
  return out;
}

std::map<size_t, std::vector<WindowPercentile>> DistributionQuery::Percentiles(const GridCells& r,
                                                                               const Schema& schema) {
  std::map<size_t, std::vector<WindowPercentile>> out;
  for (size_t d = 0; d < r.distributions.size(); ++d) {
    const size_t a = r.distributions[d];
    const auto f = std::find(r.fields.begin(), r.fields.end(), a);
    if (f == r.fields.end()) continue;
    const FieldStats st = r.TotalStat(static_cast<size_t>(f - r.fields.begin()));
    const LogHistogram h = r.TotalDist(d);
    const int e = LogHistogram::LowExponent(schema.fields()[schema.aggregates()[a]].type);
    for (double q : kQuantiles) out[a].push_back({q, h.Bound(q, e, st.Min(), st.Max())});
  }
  return out;
}

}  // namespace xtfq
