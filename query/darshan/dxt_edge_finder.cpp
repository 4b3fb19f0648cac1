#include "query/darshan/dxt_edge_finder.h"

#include <algorithm>

#include "layouts/darshan_layout.h"
#include "store/endian.h"

namespace xtfq {

namespace {
using L = DarshanLayout;
}  // namespace

DxtSegment DxtSegment::Decode(const std::byte* r) {
  return {LoadLe<int64_t>(r + L::kDxtOffsetT), LoadLe<int64_t>(r + L::kDxtOffsetRank),
          LoadLe<uint64_t>(r + L::kDxtOffsetFile), LoadLe<int64_t>(r + L::kDxtOffsetLength),
          LoadLe<double>(r + L::kDxtOffsetDuration)};
}

DxtEdgeFinder::DxtEdgeFinder(StoreReader& reader, const ArrayDesc& array)
    : reader_(reader), array_(array), p_(reader.cache(), array) {}

Status DxtEdgeFinder::Crossing(const std::vector<int64_t>& times, int64_t lo, int64_t hi,
                               const std::function<void(const DxtSegment&)>& visit) {
  if (lo >= hi) return Ok();
  // Runs are cut at the times inside them first (at the middle one), so that a run lies between
  // two times and only its longest segment decides whether it can reach the next.
  const auto first_inside = std::upper_bound(times.begin(), times.end(), lo);
  const auto past_inside = std::lower_bound(first_inside, times.end(), hi);
  if (first_inside != past_inside) {
    const int64_t cut = *(first_inside + (past_inside - first_inside) / 2);
    XTFQ_TRY(Crossing(times, lo, cut, visit));
    return Crossing(times, cut, hi, visit);
  }
  if (past_inside == times.end()) return Ok();  // no time after the run
  const int64_t next = *past_inside;            // the first time at or after hi
  XTFQ_ASSIGN_OR_RETURN(Summary s, p_.Aggregate(lo, hi));
  if (s.count == 0) return Ok();
  // The aggregates' order in DxtSchema: length, duration, ...
  if (static_cast<double>(hi - 1) + s.fields[1].f_max * 1e9 <= static_cast<double>(next)) return Ok();
  if (s.count > kReadAtMost && hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    XTFQ_TRY(Crossing(times, lo, mid, visit));
    return Crossing(times, mid, hi, visit);
  }
  return Read(lo, hi, [&](const DxtSegment& g) {
    const auto e = std::upper_bound(times.begin(), times.end(), g.t);
    if (e != times.end() && g.End() > static_cast<double>(*e)) visit(g);
  });
}

Status DxtEdgeFinder::Read(int64_t lo, int64_t hi, const std::function<void(const DxtSegment&)>& visit) {
  XTFQ_ASSIGN_OR_RETURN(Cursor first, p_.Search(lo));
  XTFQ_ASSIGN_OR_RETURN(Cursor last, p_.Search(hi));
  return reader_.ForEachAt(array_, first.position, last.position, [&](const std::byte* r) -> Result<bool> {
    ++read_;
    visit(DxtSegment::Decode(r));
    return true;
  });
}

Result<int64_t> DxtEdgeFinder::FirstStart() {
  XTFQ_ASSIGN_OR_RETURN(Cursor c, p_.Search(INT64_MIN));
  return c.at_end() ? int64_t{0} : LoadLe<int64_t>(c.record.data() + L::kDxtOffsetT);
}

}  // namespace xtfq
