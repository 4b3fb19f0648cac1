#include "query/arrays/array_window_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "layouts/grid_layout.h"
#include "query/core/primitives.h"
#include "query/core/process_window.h"
#include "query/core/time_window.h"

namespace xtfq {

Result<const ArrayDesc*> ArrayWindowQuery::Choose(StoreReader& reader, const std::string& name) {
  if (!name.empty()) return reader.Array(name);
  const Catalogue& cat = reader.store().catalogue();
  // Grid summaries are not arrays of their own (layouts/grid_layout.h).
  const auto own = std::count_if(cat.arrays.begin(), cat.arrays.end(), [](const ArrayDesc& a) {
    return !a.per_process() && !GridLayout::IsGridArray(a.name);
  });
  return reader.Array(own == 1 ? cat.arrays[0].name : "events");
}

ArrayWindowStats ArrayWindowQuery::Stats(const Schema& schema, const Summary& s) {
  ArrayWindowStats out;
  out.count = s.count;
  for (size_t k = 0; k < s.fields.size(); ++k) {
    ArrayFieldAnswer f;
    f.name = schema.fields()[schema.aggregates()[k]].name;
    f.stats = s.fields[k];
    f.mean = f.stddev = NAN;
    if (s.count > 0) {
      const double n = static_cast<double>(s.count);
      f.mean = f.stats.Sum() / n;
      // Squares past the range of a double (values beyond 1.3e154): the spread cannot be computed.
      if (std::isfinite(f.stats.sumsq)) f.stddev = std::sqrt(std::max(0.0, f.stats.sumsq / n - f.mean * f.mean));
    }
    out.fields.push_back(std::move(f));
  }
  return out;
}

Result<ArrayWindowAnswer> ArrayWindowQuery::Run(StoreReader& reader, const ArrayWindowRequest& request) {
  XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* array, Choose(reader, request.array));
  Primitives p(reader.cache(), *array, &reader.store().catalogue());
  const Schema& schema = array->schema;
  XTFQ_ASSIGN_OR_RETURN(TimeFrame frame, reader.Frame(*array));
  XTFQ_ASSIGN_OR_RETURN(TimeWindow w, TimeWindow::Parse(request.time, frame));
  ProcessWindow r;
  if (!request.ranks.empty()) {
    XTFQ_ASSIGN_OR_RETURN(r, ProcessWindow::Parse(request.ranks));
    if (!schema.process_field()) {
      return Error(ErrorCode::kUsage, fmt::format("array '{}' has no process field for --ranks", array->name));
    }
  }
  ArrayWindowAnswer a;
  a.array = array->name, a.t1 = w.lo, a.t2 = w.hi;
  if (request.buckets == 0) {
    XTFQ_ASSIGN_OR_RETURN(Summary s,
                          request.scan ? p.ScanAggregate(w.lo, w.hi, r.lo, r.hi) : p.Aggregate(w.lo, w.hi, r.lo, r.hi));
    a.whole = Stats(schema, s);
    // Percentiles of the fields with distributions (grid summaries where they serve).
    if (!GridLayout::DistributionFields(schema).empty() && s.count > 0) {
      DistributionRequest d;
      d.t1 = w.lo, d.t2 = w.hi, d.p1 = r.lo, d.p2 = r.hi, d.scan = request.scan;
      d.distributions = GridLayout::DistributionFields(schema);
      XTFQ_ASSIGN_OR_RETURN(GridCells g, DistributionQuery::Run(reader, *array, d));
      for (auto& [k, pct] : DistributionQuery::Percentiles(g, schema)) {
        a.whole.fields[k].percentiles = std::move(pct);
        a.has_percentiles = true;
      }
    }
    return a;
  }
  if (w.open_lo() || w.open_hi()) return Error(ErrorCode::kUsage, "--buckets needs a bounded --time T1:T2");
  XTFQ_ASSIGN_OR_RETURN(std::vector<Summary> h, request.scan ? p.ScanHistogram(w.lo, w.hi, request.buckets, r.lo, r.hi)
                                                             : p.Histogram(w.lo, w.hi, request.buckets, r.lo, r.hi));
  a.histogram = true;
  for (uint32_t b = 0; b < request.buckets; ++b) {
    a.buckets.push_back({Primitives::BucketStart(b, w.lo, w.hi, request.buckets),
                         Primitives::BucketStart(b + 1, w.lo, w.hi, request.buckets), Stats(schema, h[b])});
  }
  return a;
}

}  // namespace xtfq
