#include "query/darshan/dxt_window_spread.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "layouts/darshan_layout.h"
#include "query/core/primitives.h"
#include "store/endian.h"

namespace xtfq {

namespace {
using L = DarshanLayout;

// Runs of start times holding at most this many segments are read rather than halved.
constexpr uint64_t kReadAtMost = 256;

struct Segment {
  int64_t t = 0, rank = 0;
  uint64_t file = 0;
  int64_t bytes = 0;
  double duration = 0;  // seconds
  double End() const { return static_cast<double>(t) + duration * 1e9; }
};

Segment Decode(const std::byte* r) {
  return {LoadLe<int64_t>(r + L::kDxtOffsetT), LoadLe<int64_t>(r + L::kDxtOffsetRank),
          LoadLe<uint64_t>(r + L::kDxtOffsetFile), LoadLe<int64_t>(r + L::kDxtOffsetLength),
          LoadLe<double>(r + L::kDxtOffsetDuration)};
}

// The segments of one DXT array that cross a time (start < e < end).
class EdgeFinder {
 public:
  EdgeFinder(StoreReader& reader, const ArrayDesc& a) : reader_(reader), a_(a), p_(reader.cache(), a) {}

  // Those with lo <= start < hi (hi <= e), appended to out.
  Status Find(int64_t e, int64_t lo, int64_t hi, std::vector<Segment>& out) {
    if (lo >= hi) return Ok();
    XTFQ_ASSIGN_OR_RETURN(Summary s, p_.Aggregate(lo, hi));
    if (s.count == 0) return Ok();
    // The aggregates' order in DxtSchema: length, duration, ...
    if (static_cast<double>(hi - 1) + s.fields[1].f_max * 1e9 <= static_cast<double>(e)) return Ok();
    if (s.count > kReadAtMost && hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      XTFQ_TRY(Find(e, lo, mid, out));
      return Find(e, mid, hi, out);
    }
    return Read(lo, hi, [&](const Segment& g) {
      if (g.t < e && g.End() > static_cast<double>(e)) out.push_back(g);
    });
  }
  // Every segment with lo <= start < hi.
  template <class F>
  Status Read(int64_t lo, int64_t hi, F&& visit) {
    XTFQ_ASSIGN_OR_RETURN(Cursor first, p_.Search(lo));
    XTFQ_ASSIGN_OR_RETURN(Cursor last, p_.Search(hi));
    return reader_.ForEachAt(a_, first.position, last.position, [&](const std::byte* r) -> Result<bool> {
      ++read_;
      visit(Decode(r));
      return true;
    });
  }
  Result<int64_t> FirstStart() {
    XTFQ_ASSIGN_OR_RETURN(Cursor c, p_.Search(INT64_MIN));
    return c.at_end() ? int64_t{0} : LoadLe<int64_t>(c.record.data() + L::kDxtOffsetT);
  }
  uint64_t read() const { return read_; }

 private:
  StoreReader& reader_;
  const ArrayDesc& a_;
  Primitives p_;
  uint64_t read_ = 0;
};

// The latest end of any segment of the array, and no earlier than `from`.
Result<double> LatestEnd(EdgeFinder& f, int64_t first, int64_t from) {
  double end = static_cast<double>(from);
  std::vector<Segment> crossing;
  XTFQ_TRY(f.Find(from, first, from, crossing));
  for (const Segment& g : crossing) end = std::max(end, g.End());
  XTFQ_TRY(f.Read(from, INT64_MAX, [&](const Segment& g) { end = std::max(end, g.End()); }));
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
  std::array<std::unique_ptr<EdgeFinder>, 2> finders;
  std::array<int64_t, 2> firsts{};
  double last_end = static_cast<double>(frame_last);
  for (int op = 0; op < 2; ++op) {
    const ArrayDesc* a =
        reader.catalogue().Find(L::ArrayName(info.log, fmt::format("{}.{}", dxt, op == 0 ? "read" : "write")));
    if (a == nullptr) continue;
    finders[static_cast<size_t>(op)] = std::make_unique<EdgeFinder>(reader, *a);
    XTFQ_ASSIGN_OR_RETURN(firsts[static_cast<size_t>(op)], finders[static_cast<size_t>(op)]->FirstStart());
    if (spec.t2 == INT64_MAX) {
      XTFQ_ASSIGN_OR_RETURN(double end,
                            LatestEnd(*finders[static_cast<size_t>(op)], firsts[static_cast<size_t>(op)], frame_last));
      last_end = std::max(last_end, end);
    }
  }
  if (spec.t2 == INT64_MAX) out.t2 = static_cast<int64_t>(std::ceil(last_end));
  auto kept = [&](const Segment& g) {
    return g.rank >= spec.p1 && g.rank < spec.p2 && (!spec.files || spec.files->count(g.file));
  };
  for (int op = 0; op < 2; ++op) {
    const auto o = static_cast<size_t>(op);
    if (!finders[o]) continue;
    EdgeFinder& f = *finders[o];
    std::vector<Segment> out_at_t2, in_at_t1;
    if (spec.t2 != INT64_MAX) XTFQ_TRY(f.Find(spec.t2, std::max(out.t1, firsts[o]), spec.t2, out_at_t2));
    if (spec.t1 != INT64_MIN) XTFQ_TRY(f.Find(spec.t1, firsts[o], spec.t1, in_at_t1));
    // A segment's part of [lo, hi), in ns, and its bytes there.
    auto part = [&](const Segment& g, double lo, double hi, double sign) {
      const double ns = std::max(0.0, std::min(g.End(), hi) - std::max(static_cast<double>(g.t), lo));
      const double bytes = g.duration > 0 ? static_cast<double>(g.bytes) * ns / (g.duration * 1e9) : 0.0;
      for (DxtSpread* d : {&out.total[o], spec.per_rank ? &out.ranks[g.rank][o] : nullptr}) {
        if (d == nullptr) continue;
        d->bytes += sign * bytes;
        d->busy += sign * ns / 1e9;
      }
      ++out.crossing;
    };
    for (const Segment& g : out_at_t2) {
      if (kept(g)) part(g, static_cast<double>(spec.t2), g.End(), -1.0);
    }
    for (const Segment& g : in_at_t1) {
      if (kept(g)) part(g, static_cast<double>(spec.t1), static_cast<double>(out.t2), 1.0);
    }
    out.records_read += f.read();
  }
  return out;
}

}  // namespace xtfq
