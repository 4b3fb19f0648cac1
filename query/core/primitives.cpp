#include "query/core/primitives.h"

#include <fmt/format.h>

namespace xtfq {

namespace {
// A histogram needs a window with room in it and at least one bucket; says which is missing.
Error BadHistogram(int64_t t1, int64_t t2, uint32_t buckets) {
  if (t1 >= t2) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("empty or reversed window {}:{} (T1 must be below T2)", t1, t2));
  }
  return Error(ErrorCode::kInvalidArgument, fmt::format("a histogram of {} buckets: give at least one", buckets));
}
}  // namespace

int64_t Primitives::TimeOf(const std::byte* record, uint64_t position) const {
  const Schema& s = tree_.array().schema;
  return s.time_field() ? s.Time(record) : static_cast<int64_t>(position);
}

Result<Cursor> Primitives::SearchAt(uint64_t n) {
  Cursor c;
  c.position = std::min(n, size());
  if (c.position < size()) {
    c.record.resize(array().schema.record_width());
    XTFQ_TRY(tree_.Record(c.position, c.record));
  }
  return c;
}

Result<Cursor> Primitives::Search(int64_t t) {
  XTFQ_ASSIGN_OR_RETURN(uint64_t pos, tree_.LowerBound(t));
  return SearchAt(pos);
}

Result<std::vector<const ArrayDesc*>> Primitives::Processes(int64_t p1, int64_t p2) {
  if (catalogue_ == nullptr || !array().process_index) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("array '{}' has no process index{}; a process window needs a scan (--scan)", array().name,
                             array().schema.process_field() ? " (it was imported with --no-process-index)"
                                                            : " (no process field)"));
  }
  return ProcessTree(cache_, *catalogue_, array()).Range(p1, p2);
}

Result<bool> Primitives::CoversAll(int64_t t1, int64_t t2) {
  if (size() == 0) return true;
  if (!span_) {
    XTFQ_ASSIGN_OR_RETURN(Cursor first, SearchAt(0));
    XTFQ_ASSIGN_OR_RETURN(Cursor last, SearchAt(size() - 1));
    span_.emplace(TimeOf(first.record.data(), 0), TimeOf(last.record.data(), size() - 1));
  }
  return t1 <= span_->first && t2 > span_->second;
}

Result<const ArrayDesc*> Primitives::ProcessArray(int64_t p) {
  // [p, p + 1); for INT64_MAX, [MAX, MAX) with its open end: process INT64_MAX alone.
  XTFQ_ASSIGN_OR_RETURN(auto arrays, Processes(p, p == INT64_MAX ? p : p + 1));
  if (arrays.empty()) {
    // Named by the array's own process field (a rank for Darshan and events, a target for job_stats).
    const Schema& sc = array().schema;
    const std::string_view what =
        sc.process_field() ? std::string_view(sc.fields()[*sc.process_field()].name) : "process";
    return Error(ErrorCode::kNotFound, fmt::format("array '{}' has no record of {} {}", array().name, what, p));
  }
  return arrays.front();
}

Result<uint64_t> Primitives::ProcessCount(int64_t p1, int64_t p2) {
  XTFQ_ASSIGN_OR_RETURN(auto arrays, Processes(p1, p2));
  return uint64_t{arrays.size()};
}

Result<uint64_t> Primitives::Size(int64_t t1, int64_t t2, int64_t p1, int64_t p2) {
  if (t1 >= t2) return uint64_t{0};
  if (!AllProcesses(p1, p2)) {
    XTFQ_ASSIGN_OR_RETURN(bool all, CoversAll(t1, t2));
    if (all) {  // the process tree's totals, through Aggregate
      XTFQ_ASSIGN_OR_RETURN(Summary totals, Aggregate(t1, t2, p1, p2));
      return totals.count;
    }
    XTFQ_ASSIGN_OR_RETURN(auto arrays, Processes(p1, p2));
    uint64_t n = 0;
    for (const ArrayDesc* a : arrays) {
      TnTree t(cache_, *a);
      XTFQ_ASSIGN_OR_RETURN(uint64_t lo, t.LowerBound(t1));
      XTFQ_ASSIGN_OR_RETURN(uint64_t hi, t.LowerBound(t2));
      n += hi - lo;
    }
    return n;
  }
  XTFQ_ASSIGN_OR_RETURN(uint64_t lo, tree_.LowerBound(t1));
  XTFQ_ASSIGN_OR_RETURN(uint64_t hi, tree_.LowerBound(t2));
  return hi - lo;
}

Result<Cursor> Primitives::Next(const Cursor& from, int64_t step) {
  const __int128 target = static_cast<__int128>(from.position) + step;
  const uint64_t pos = target < 0 ? 0 : target > static_cast<__int128>(size()) ? size() : static_cast<uint64_t>(target);
  return SearchAt(pos);
}

Result<Summary> Primitives::Aggregate(int64_t t1, int64_t t2, int64_t p1, int64_t p2) {
  Summary out(array().schema);
  if (t1 >= t2) return out;
  if (AllProcesses(p1, p2)) {
    XTFQ_TRY(tree_.AggregateTime(t1, t2, out));
    return out;
  }
  XTFQ_ASSIGN_OR_RETURN(bool all, CoversAll(t1, t2));
  if (all && catalogue_ != nullptr && array().process_index)
    return ProcessTree(cache_, *catalogue_, array()).Totals(p1, p2);
  XTFQ_ASSIGN_OR_RETURN(auto arrays, Processes(p1, p2));
  for (const ArrayDesc* a : arrays) XTFQ_TRY(TnTree(cache_, *a).AggregateTime(t1, t2, out));
  return out;
}

Result<std::vector<Summary>> Primitives::Histogram(int64_t t1, int64_t t2, uint32_t buckets, int64_t p1, int64_t p2) {
  if (t1 >= t2 || buckets == 0) return BadHistogram(t1, t2, buckets);
  if (AllProcesses(p1, p2)) return tree_.Histogram(t1, t2, buckets);
  XTFQ_ASSIGN_OR_RETURN(auto arrays, Processes(p1, p2));
  std::vector<Summary> out(buckets, Summary(array().schema));
  for (const ArrayDesc* a : arrays) {
    XTFQ_ASSIGN_OR_RETURN(std::vector<Summary> h, TnTree(cache_, *a).Histogram(t1, t2, buckets));
    for (uint32_t b = 0; b < buckets; ++b) out[b].Merge(h[b]);
  }
  return out;
}

template <class F>
Status Primitives::ScanAll(F&& visit) {
  ChainCursor c(cache_, array().levels[0], PageKind::kData, array().id, array().schema.record_width());
  uint64_t pos = 0;
  for (Result<bool> more = c.First();; more = c.Next(), ++pos) {
    if (!more.ok()) return std::move(more).error();
    if (!*more || !visit(c.entry(), pos)) return Ok();
  }
}

Result<Cursor> Primitives::ScanSearch(int64_t t) {
  uint64_t found = size();
  XTFQ_TRY(ScanAll([&](const std::byte* r, uint64_t pos) {
    if (TimeOf(r, pos) >= t) {
      found = pos;
      return false;
    }
    return true;
  }));
  return SearchAt(found);
}

bool Primitives::InProcesses(const std::byte* record, int64_t p1, int64_t p2) const {
  if (AllProcesses(p1, p2) || !array().schema.process_field()) return true;
  const int64_t p = array().schema.Process(record);
  return p >= p1 && p < p2;
}

Result<uint64_t> Primitives::ScanSize(int64_t t1, int64_t t2, int64_t p1, int64_t p2) {
  uint64_t n = 0;
  XTFQ_TRY(ScanAll([&](const std::byte* r, uint64_t pos) {
    const int64_t t = TimeOf(r, pos);
    n += t >= t1 && t < t2 && InProcesses(r, p1, p2);
    return true;
  }));
  return n;
}

Result<Summary> Primitives::ScanAggregate(int64_t t1, int64_t t2, int64_t p1, int64_t p2) {
  Summary s(array().schema);
  XTFQ_TRY(ScanAll([&](const std::byte* r, uint64_t pos) {
    const int64_t t = TimeOf(r, pos);
    if (t >= t1 && t < t2 && InProcesses(r, p1, p2)) s.Add(array().schema, r);
    return true;
  }));
  return s;
}

Result<std::vector<Summary>> Primitives::ScanHistogram(int64_t t1, int64_t t2, uint32_t buckets, int64_t p1,
                                                       int64_t p2) {
  if (t1 >= t2 || buckets == 0) return BadHistogram(t1, t2, buckets);
  std::vector<Summary> out(buckets, Summary(array().schema));
  XTFQ_TRY(ScanAll([&](const std::byte* r, uint64_t pos) {
    const int64_t t = TimeOf(r, pos);
    if (t >= t1 && t < t2 && InProcesses(r, p1, p2)) out[Bucket(t, t1, t2, buckets)].Add(array().schema, r);
    return true;
  }));
  return out;
}

}  // namespace xtfq
