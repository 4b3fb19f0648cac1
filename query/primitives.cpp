#include "query/primitives.h"

#include <fmt/format.h>

namespace xtfq {

namespace {
Error BadWindow(int64_t t1, int64_t t2) {
  return Error(ErrorCode::kInvalidArgument, fmt::format("empty or reversed window {}:{} (T1 must be below T2)", t1, t2));
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

Result<uint64_t> Primitives::Size(int64_t t1, int64_t t2) {
  if (t1 >= t2) return uint64_t{0};
  XTFQ_ASSIGN_OR_RETURN(uint64_t lo, tree_.LowerBound(t1));
  XTFQ_ASSIGN_OR_RETURN(uint64_t hi, tree_.LowerBound(t2));
  return hi - lo;
}

Result<Cursor> Primitives::Next(const Cursor& from, int64_t step) {
  const __int128 target = static_cast<__int128>(from.position) + step;
  const uint64_t pos = target < 0 ? 0 : target > static_cast<__int128>(size()) ? size() : static_cast<uint64_t>(target);
  return SearchAt(pos);
}

Result<Summary> Primitives::Aggregate(int64_t t1, int64_t t2) {
  if (t1 >= t2) return Summary(array().schema);
  XTFQ_ASSIGN_OR_RETURN(std::vector<Summary> one, tree_.Histogram(t1, t2, 1));
  return std::move(one.front());
}

Result<std::vector<Summary>> Primitives::Histogram(int64_t t1, int64_t t2, uint32_t buckets) {
  if (t1 >= t2 || buckets == 0) return BadWindow(t1, t2);
  return tree_.Histogram(t1, t2, buckets);
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
    if (TimeOf(r, pos) >= t) { found = pos; return false; }
    return true;
  }));
  return SearchAt(found);
}

Result<uint64_t> Primitives::ScanSize(int64_t t1, int64_t t2) {
  uint64_t n = 0;
  XTFQ_TRY(ScanAll([&](const std::byte* r, uint64_t pos) {
    const int64_t t = TimeOf(r, pos);
    n += t >= t1 && t < t2;
    return true;
  }));
  return n;
}

Result<Summary> Primitives::ScanAggregate(int64_t t1, int64_t t2, int64_t p1, int64_t p2) {
  Summary s(array().schema);
  const bool by_process = array().schema.process_field() && (p1 != INT64_MIN || p2 != INT64_MAX);
  XTFQ_TRY(ScanAll([&](const std::byte* r, uint64_t pos) {
    const int64_t t = TimeOf(r, pos);
    if (t < t1 || t >= t2) return true;
    if (by_process) {
      const int64_t p = array().schema.Process(r);
      if (p < p1 || p >= p2) return true;
    }
    s.Add(array().schema, r);
    return true;
  }));
  return s;
}

Result<std::vector<Summary>> Primitives::ScanHistogram(int64_t t1, int64_t t2, uint32_t buckets) {
  if (t1 >= t2 || buckets == 0) return BadWindow(t1, t2);
  std::vector<Summary> out(buckets, Summary(array().schema));
  XTFQ_TRY(ScanAll([&](const std::byte* r, uint64_t pos) {
    const int64_t t = TimeOf(r, pos);
    if (t >= t1 && t < t2) out[Bucket(t, t1, t2, buckets)].Add(array().schema, r);
    return true;
  }));
  return out;
}

}  // namespace xtfq
