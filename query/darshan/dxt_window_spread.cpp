#include "query/darshan/dxt_window_spread.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "layouts/darshan_layout.h"
#include "query/darshan/dxt_edge_finder.h"
#include "store/endian.h"

namespace xtfq {

namespace {
using L = DarshanLayout;

// The latest end of any segment of the array, and no earlier than `from`.
Result<double> LatestEnd(DxtEdgeFinder& f, int64_t first, int64_t from) {
  double end = static_cast<double>(from);
  auto later = [&](const DxtSegment& g) { end = std::max(end, g.End()); };
  XTFQ_TRY(f.Crossing({from}, first, from, later));
  XTFQ_TRY(f.Read(from, INT64_MAX, later));
  return end;
}
}  // namespace

std::optional<double> DxtWindowSpreadResult::MiBps(int op) const {
  if (t2 <= t1) return std::nullopt;
  return total[static_cast<size_t>(op)].bytes / 1048576.0 / Seconds();
}

Result<DxtWindowSpreadResult> DxtWindowSpread::Compute(StoreReader& reader, const DarshanLogInfo& info,
                                                       const DarshanWindowSpec& spec, const DarshanWindowStats& started,
                                                       int64_t frame_last) {
  const std::string dxt = spec.module == "MPI-IO" ? "DXT_MPIIO" : "DXT_POSIX";
  DxtWindowSpreadResult out;
  out.t1 = spec.t1 == INT64_MIN ? 0 : spec.t1;
  out.t2 = spec.t2;
  for (int op = 0; op < 2; ++op) {
    const auto o = static_cast<size_t>(op);
    const DarshanOpStats& s = op == 0 ? started.read : started.write;
    out.total[o] = {static_cast<double>(s.bytes), s.busy};
    for (const auto& [rank, ops] : started.ranks) {
      out.ranks[rank][o] = {static_cast<double>(ops[o].bytes), ops[o].busy};
    }
  }
  std::array<std::unique_ptr<DxtEdgeFinder>, 2> finders;
  std::array<int64_t, 2> firsts{};
  double last_end = static_cast<double>(frame_last);
  for (int op = 0; op < 2; ++op) {
    const ArrayDesc* a =
        reader.catalogue().Find(L::ArrayName(info.log, fmt::format("{}.{}", dxt, op == 0 ? "read" : "write")));
    if (a == nullptr) continue;
    finders[static_cast<size_t>(op)] = std::make_unique<DxtEdgeFinder>(reader, *a);
    XTFQ_ASSIGN_OR_RETURN(firsts[static_cast<size_t>(op)], finders[static_cast<size_t>(op)]->FirstStart());
    if (spec.t2 == INT64_MAX) {
      XTFQ_ASSIGN_OR_RETURN(double end,
                            LatestEnd(*finders[static_cast<size_t>(op)], firsts[static_cast<size_t>(op)], frame_last));
      last_end = std::max(last_end, end);
    }
  }
  if (spec.t2 == INT64_MAX) out.t2 = static_cast<int64_t>(std::ceil(last_end));
  auto kept = [&](const DxtSegment& g) {
    return g.rank >= spec.p1 && g.rank < spec.p2 && (!spec.files || spec.files->count(g.file));
  };
  for (int op = 0; op < 2; ++op) {
    const auto o = static_cast<size_t>(op);
    if (!finders[o]) continue;
    DxtEdgeFinder& f = *finders[o];
    std::vector<DxtSegment> out_at_t2, in_at_t1;
    auto into = [](std::vector<DxtSegment>& v) { return [&v](const DxtSegment& g) { v.push_back(g); }; };
    if (spec.t2 != INT64_MAX) XTFQ_TRY(f.Crossing({spec.t2}, std::max(out.t1, firsts[o]), spec.t2, into(out_at_t2)));
    if (spec.t1 != INT64_MIN) XTFQ_TRY(f.Crossing({spec.t1}, firsts[o], spec.t1, into(in_at_t1)));
    // A segment's part of [lo, hi), in ns, and its bytes there.
    auto part = [&](const DxtSegment& g, double lo, double hi, double sign) {
      const double ns = std::max(0.0, std::min(g.End(), hi) - std::max(static_cast<double>(g.t), lo));
      const double bytes = g.duration > 0 ? static_cast<double>(g.bytes) * ns / (g.duration * 1e9) : 0.0;
      for (DxtSpread* d : {&out.total[o], spec.per_rank ? &out.ranks[g.rank][o] : nullptr}) {
        if (d == nullptr) continue;
        d->bytes += sign * bytes;
        d->busy += sign * ns / 1e9;
      }
      ++out.crossing;
    };
    for (const DxtSegment& g : out_at_t2) {
      if (kept(g)) part(g, static_cast<double>(spec.t2), g.End(), -1.0);
    }
    for (const DxtSegment& g : in_at_t1) {
      if (kept(g)) part(g, static_cast<double>(spec.t1), static_cast<double>(out.t2), 1.0);
    }
    out.records_read += f.records_read();
  }
  return out;
}

}  // namespace xtfq
