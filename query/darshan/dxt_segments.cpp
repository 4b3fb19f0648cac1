#include "query/darshan/dxt_segments.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <queue>
#include <tuple>

#include "index/process_tree.h"
#include "index/tn_tree.h"
#include "layouts/darshan_layout.h"
#include "store/endian.h"

namespace xtfq {

namespace {
using L = DarshanLayout;

int64_t TimeOf(const std::byte* r) { return LoadLe<int64_t>(r + L::kDxtOffsetT); }
int64_t RankOf(const std::byte* r) { return LoadLe<int64_t>(r + L::kDxtOffsetRank); }

// One rank's records in the window: [pos, end) of its own array.
struct RankRun {
  const ArrayDesc* array;
  uint64_t pos, end;
};

// How to read a window: the ranks' runs (through the P index), or [pos, end) of the array itself.
struct Plan {
  bool per_rank = false;
  std::vector<RankRun> runs;
  uint64_t pos = 0, end = 0;
};

Result<Plan> PlanOf(StoreReader& reader, const ArrayDesc& array, const DxtSegmentWindow& w) {
  if (!(array.schema == L::DxtSchema())) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: {} does not have the DXT segment schema", reader.store().name(), array.name));
  }
  Plan plan;
  TnTree tree(reader.cache(), array);
  XTFQ_ASSIGN_OR_RETURN(plan.pos, tree.LowerBound(w.t1));
  XTFQ_ASSIGN_OR_RETURN(plan.end, tree.LowerBound(w.t2));
  const bool all_ranks = w.p1 == INT64_MIN && w.p2 == INT64_MAX;
  if (!array.process_index || all_ranks || plan.pos == plan.end) return plan;
  XTFQ_ASSIGN_OR_RETURN(std::vector<const ArrayDesc*> procs,
                        ProcessTree(reader.cache(), reader.store().catalogue(), array).Range(w.p1, w.p2));
  // Two descents a rank: not worth it past a few thousand ranks against one pass of the window.
  if (procs.size() > 4096) return plan;
  uint64_t in_ranks = 0;
  std::vector<RankRun> runs;
  for (const ArrayDesc* p : procs) {
    TnTree t(reader.cache(), *p);
    XTFQ_ASSIGN_OR_RETURN(uint64_t a, t.LowerBound(w.t1));
    XTFQ_ASSIGN_OR_RETURN(uint64_t b, t.LowerBound(w.t2));
    if (a < b) runs.push_back({p, a, b}), in_ranks += b - a;
  }
  if (8 * in_ranks < plan.end - plan.pos) plan.per_rank = true, plan.runs = std::move(runs);
  return plan;
}

}  // namespace

bool DxtSegments::Before(const std::byte* a, const std::byte* b) {
  auto key = [](const std::byte* r) {
    return std::make_tuple(TimeOf(r), RankOf(r), LoadLe<uint64_t>(r + L::kDxtOffsetFile),
                           LoadLe<int64_t>(r + L::kDxtOffsetOffset), LoadLe<int64_t>(r + L::kDxtOffsetLength));
  };
  return key(a) < key(b);
}

Status DxtSegments::ForEach(StoreReader& reader, const ArrayDesc& array, const DxtSegmentWindow& w,
                            const std::function<void(const std::byte*)>& visit, uint64_t* records_read) {
  XTFQ_ASSIGN_OR_RETURN(Plan plan, PlanOf(reader, array, w));
  uint64_t read = 0;
  if (plan.per_rank) {
    for (const RankRun& run : plan.runs) {
      XTFQ_TRY(TnTree(reader.cache(), *run.array).ForEach(run.pos, run.end, [&](const std::byte* r) -> Result<bool> {
        visit(r);
        return true;
      }));
      read += run.end - run.pos;
    }
  } else {
    XTFQ_TRY(TnTree(reader.cache(), array).ForEach(plan.pos, plan.end, [&](const std::byte* r) -> Result<bool> {
      const int64_t rank = RankOf(r);
      if (rank >= w.p1 && rank < w.p2) visit(r);
      return true;
    }));
    read += plan.end - plan.pos;
  }
  if (records_read != nullptr) *records_read += read;
  return Ok();
}

Result<std::vector<std::byte>> DxtSegments::First(StoreReader& reader, const ArrayDesc& array,
                                                  const DxtSegmentWindow& w, uint64_t n, uint64_t* records_read) {
  constexpr size_t kW = L::kDxtWidth;
  XTFQ_ASSIGN_OR_RETURN(Plan plan, PlanOf(reader, array, w));
  std::vector<std::byte> out;
  uint64_t read = 0, taken = 0;
  int64_t last_t = INT64_MIN;
  // Takes r while fewer than n are taken or r ties the n-th's start (ties are ordered below).
  auto take = [&](const std::byte* r) {
    if (taken >= n && TimeOf(r) != last_t) return false;
    out.insert(out.end(), r, r + kW);
    ++taken, last_t = TimeOf(r);
    return true;
  };
  if (n > 0 && plan.per_rank) {
    // A merge of the ranks' runs by start time, a chunk of records a rank at a time.
    constexpr uint64_t kChunk = 64;
    struct Cursor {
      RankRun run;
      std::vector<std::byte> buf;
      size_t at = 0;
    };
    std::vector<Cursor> cursors;
    for (const RankRun& r : plan.runs) cursors.push_back({r, {}, 0});
    auto fill = [&](Cursor& c) -> Status {
      c.buf.clear(), c.at = 0;
      const uint64_t hi = std::min(c.run.end, c.run.pos + kChunk);
      XTFQ_TRY(TnTree(reader.cache(), *c.run.array).ForEach(c.run.pos, hi, [&](const std::byte* r) -> Result<bool> {
        c.buf.insert(c.buf.end(), r, r + kW);
        return true;
      }));
      read += hi - c.run.pos;
      c.run.pos = hi;
      return Ok();
    };
    auto later = [&](size_t a, size_t b) {
      return Before(cursors[b].buf.data() + cursors[b].at, cursors[a].buf.data() + cursors[a].at);
    };
    std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
    for (size_t i = 0; i < cursors.size(); ++i) {
      XTFQ_TRY(fill(cursors[i]));
      if (!cursors[i].buf.empty()) heap.push(i);
    }
    while (!heap.empty()) {
      const size_t i = heap.top();
      heap.pop();
      Cursor& c = cursors[i];
      if (!take(c.buf.data() + c.at)) break;
      c.at += kW;
      if (c.at == c.buf.size()) XTFQ_TRY(fill(c));
      if (c.at < c.buf.size()) heap.push(i);
    }
  } else if (n > 0) {
    XTFQ_TRY(TnTree(reader.cache(), array).ForEach(plan.pos, plan.end, [&](const std::byte* r) -> Result<bool> {
      ++read;
      const int64_t rank = RankOf(r);
      if (rank < w.p1 || rank >= w.p2) return true;
      return take(r);
    }));
  }
  // The order of ties, then the first n.
  std::vector<size_t> order(out.size() / kW);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return Before(out.data() + a * kW, out.data() + b * kW); });
  order.resize(std::min<uint64_t>(order.size(), n));
  std::vector<std::byte> sorted(order.size() * kW);
  for (size_t i = 0; i < order.size(); ++i) {
    std::copy_n(out.data() + order[i] * kW, kW, sorted.data() + i * kW);
  }
  if (records_read != nullptr) *records_read += read;
  return sorted;
}

}  // namespace xtfq
