#include "query/darshan/darshan_segments_query.h"

#include <fmt/format.h>

#include <algorithm>

#include "layouts/darshan_layout.h"
#include "query/core/primitives.h"
#include "query/core/process_window.h"
#include "query/core/time_window.h"
#include "query/darshan/darshan_window_query.h"
#include "query/darshan/dxt_segments.h"
#include "store/endian.h"

namespace xtfq {

namespace {
using L = DarshanLayout;
Error Invalid(std::string m) { return Error(ErrorCode::kInvalidArgument, std::move(m)); }
}  // namespace

const std::string& DarshanSegmentsAnswer::FileName(uint64_t id) const {
  static const std::string kNull = "(null)";
  auto it = names.find(id);
  return it == names.end() ? kNull : it->second;
}

Result<DarshanSegmentsAnswer> DarshanSegmentsQuery::Run(StoreReader& reader, const DarshanSegmentsRequest& q) {
  if (q.limit < 1 || q.limit > kMaxLimit) return Invalid(fmt::format("--limit {}: give 1 to {}", q.limit, kMaxLimit));
  if (q.offset > kMaxReach || q.offset + q.limit > kMaxReach) {
    return Invalid(
        fmt::format("--offset {} --limit {}: a page ends at most {} segments from the window's first; "
                    "narrow the window (--time, --ranks) to look further",
                    q.offset, q.limit, kMaxReach));
  }
  if (q.module != "POSIX" && q.module != "MPI-IO") {
    return Invalid(fmt::format("--module {}: POSIX or MPI-IO (the modules DXT traces)", q.module));
  }
  if (q.op != "read" && q.op != "write" && q.op != "all") {
    return Invalid(fmt::format("--op {}: read, write or all", q.op));
  }
  DarshanSegmentsAnswer a;
  a.request = q;
  XTFQ_ASSIGN_OR_RETURN(a.info, DarshanLogs::Find(reader, q.log, q.job));
  XTFQ_ASSIGN_OR_RETURN(TimeWindow w, TimeWindow::Parse(q.time, DarshanWindowQuery::Frame(a.info)));
  DxtSegmentWindow win;
  win.t1 = w.lo, win.t2 = w.hi;
  if (!q.ranks.empty()) {
    XTFQ_ASSIGN_OR_RETURN(ProcessWindow r, ProcessWindow::Parse(q.ranks));
    win.p1 = r.lo, win.p2 = r.hi;
  }
  a.t1 = win.t1, a.t2 = win.t2, a.p1 = win.p1, a.p2 = win.p2;
  DarshanWindowSpec spec;
  spec.t1 = win.t1, spec.t2 = win.t2, spec.p1 = win.p1, spec.p2 = win.p2;
  a.warnings = DarshanWindowQuery::Warnings(a.info, spec);
  a.source = q.module == "POSIX" ? "DXT_POSIX" : "DXT_MPIIO";
  if (auto partial = DarshanWindowQuery::PartialWarning(a.info, a.source)) a.warnings.push_back(*partial);
  const Catalogue& cat = reader.catalogue();
  std::vector<std::pair<bool, std::vector<std::byte>>> pages;
  bool any = false;
  for (const bool write : {false, true}) {
    const ArrayDesc* arr = cat.Find(L::ArrayName(a.info.log, fmt::format("{}.{}", a.source, write ? "write" : "read")));
    if (arr == nullptr) continue;
    any = true;
    if (q.op != "all" && (q.op == "write") != write) continue;
    XTFQ_ASSIGN_OR_RETURN(Summary s, Primitives(reader.cache(), *arr, &cat).Aggregate(win.t1, win.t2, win.p1, win.p2));
    a.total += s.count;
    XTFQ_ASSIGN_OR_RETURN(std::vector<std::byte> first,
                          DxtSegments::First(reader, *arr, win, q.offset + q.limit, &a.records_read));
    pages.emplace_back(write, std::move(first));
  }
  if (!any) {
    return Error(ErrorCode::kNotFound,
                 fmt::format("{}: log {} has no {} segments: it was not traced with DXT (DXT_ENABLE_IO_TRACE); "
                             "`xtfq query` gives its counters",
                             reader.store().name(), a.info.log, a.source));
  }
  // Both operations' first segments in one order, then the page.
  std::vector<std::pair<bool, const std::byte*>> all;
  for (const auto& [write, bytes] : pages) {
    for (size_t i = 0; i < bytes.size(); i += L::kDxtWidth) all.emplace_back(write, bytes.data() + i);
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& x, const auto& y) {
    if (DxtSegments::Before(x.second, y.second)) return true;
    if (DxtSegments::Before(y.second, x.second)) return false;
    return x.first < y.first;  // reads before writes
  });
  for (uint64_t i = q.offset; i < std::min<uint64_t>(all.size(), q.offset + q.limit); ++i) {
    const std::byte* r = all[i].second;
    DarshanSegment s;
    s.write = all[i].first;
    s.start = LoadLe<int64_t>(r + L::kDxtOffsetT);
    s.rank = LoadLe<int64_t>(r + L::kDxtOffsetRank);
    s.file = LoadLe<uint64_t>(r + L::kDxtOffsetFile);
    s.offset = LoadLe<int64_t>(r + L::kDxtOffsetOffset);
    s.length = LoadLe<int64_t>(r + L::kDxtOffsetLength);
    s.duration = LoadLe<double>(r + L::kDxtOffsetDuration);
    s.thread = LoadLe<uint64_t>(r + L::kDxtOffsetThread);
    a.segments.push_back(s);
  }
  if (!a.segments.empty()) {
    XTFQ_ASSIGN_OR_RETURN(auto names, DarshanLogs::Names(reader, a.info));
    for (const DarshanSegment& s : a.segments) {
      if (auto it = names.find(s.file); it != names.end()) a.names.emplace(s.file, it->second);
    }
  }
  return a;
}

}  // namespace xtfq
