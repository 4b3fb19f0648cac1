#include "query/darshan/darshan_window_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "layouts/darshan_layout.h"
#include "query/darshan/darshan_counter_window.h"
#include "query/darshan/darshan_file_filter.h"
#include "query/grid/distribution_query.h"
#include "store/endian.h"

namespace xtfq {

const std::string& DarshanWindowAnswer::FileName(uint64_t id) const {
  static const std::string kNull = "(null)";
  auto it = names.find(id);
  return it == names.end() ? kNull : it->second;
}

std::string DarshanWindowAnswer::Source() const {
  if (result.heatmap) return fmt::format("HEATMAP {}", spec.module);
  if (result.estimated) return fmt::format("{} counter", spec.module);
  return spec.module == "POSIX" ? "DXT_POSIX" : "DXT_MPIIO";
}

std::optional<std::pair<double, double>> DarshanOpDistribution::Size(double q) const {
  return size.Bound(q, LogHistogram::LowExponent(FieldType::kI64), size_stats.Min(), size_stats.Max());
}

std::optional<std::pair<double, double>> DarshanOpDistribution::Duration(double q) const {
  return duration.Bound(q, LogHistogram::LowExponent(FieldType::kF64), duration_stats.Min(), duration_stats.Max());
}

namespace {

// The sizes and durations of one DXT array in the answer's window and ranks (and files).
Result<DarshanOpDistribution> Distribution(StoreReader& reader, const ArrayDesc& array, const DarshanWindowSpec& spec,
                                           GridPlan& plan) {
  using L = DarshanLayout;
  const Schema& s = array.schema;
  const size_t length = s.FindAggregate("length").value_or(0), duration = s.FindAggregate("duration").value_or(0);
  DistributionRequest q;
  q.t1 = spec.t1, q.t2 = spec.t2, q.p1 = spec.p1, q.p2 = spec.p2, q.scan = spec.scan;
  q.distributions = {length, duration};
  if (spec.files) {
    q.filter = [&](const std::byte* r) { return spec.files->contains(LoadLe<uint64_t>(r + L::kDxtOffsetFile)); };
  }
  XTFQ_ASSIGN_OR_RETURN(GridCells g, DistributionQuery::Run(reader, array, q));
  DarshanOpDistribution d;
  d.size = g.dists[0], d.duration = g.dists[1];
  d.size_stats = g.stats[length], d.duration_stats = g.stats[duration];
  plan.Merge(g.plan);
  return d;
}

}  // namespace

TimeFrame DarshanWindowQuery::Frame(const DarshanLogInfo& info) {
  // The run as darshan-parser and PyDarshan give it (end - start + 1 s for whole-second times), so
  // that `info`, percentages of the run and the rates' open ends agree on one length.
  const double run_s = DarshanLogs::RunSeconds(info);
  const int64_t run_ns = std::isfinite(run_s) && std::fabs(run_s) < 9e9 ? std::llround(run_s * 1e9) : 0;
  return TimeFrame::Darshan(info.start_sec, std::max(run_ns, info.data_last));
}

std::optional<std::string> DarshanWindowQuery::PartialWarning(const DarshanLogInfo& info, std::string_view module) {
  const std::vector<std::string> partial = DarshanLogs::PartialModules(info);
  if (std::find(partial.begin(), partial.end(), module) == partial.end()) return std::nullopt;
  return fmt::format(
      "log {}'s {} data is incomplete (Darshan's partial flag: the runtime ran out of memory for its "
      "records): the totals count only the records it kept",
      info.log, module);
}

std::vector<std::string> DarshanWindowQuery::Warnings(const DarshanLogInfo& info, const DarshanWindowSpec& spec) {
  std::vector<std::string> out;
  const TimeFrame f = Frame(info);
  auto secs = [](int64_t ns) { return fmt::format("{:.9g}", static_cast<double>(ns) / 1e9); };
  if ((spec.t1 != INT64_MIN && spec.t1 > f.last) || (spec.t2 != INT64_MAX && spec.t2 <= f.first)) {
    out.push_back(
        fmt::format("the window [{}, {}) s lies outside the job's run (0 to {} s from its start at epoch {}); plain "
                    "numbers are seconds from the "
                    "job's start: give @EPOCH or ISO 8601 for wall-clock times",
                    spec.t1 == INT64_MIN ? "-inf" : secs(spec.t1), spec.t2 == INT64_MAX ? "+inf" : secs(spec.t2),
                    secs(f.last), info.start_sec));
  }
  for (const std::string& d : DarshanLogs::HeaderDoubts(info)) {
    out.push_back(fmt::format("log {}'s header cannot be right: {} (darshan-parser prints the same)", info.log, d));
  }
  if (spec.p2 <= spec.p1) {
    out.push_back(fmt::format("the ranks {}:{} are an empty range, no rank (R1:R2 is half-open: {}:{} is rank {})",
                              spec.p1, spec.p2, spec.p1, spec.p1 + 1, spec.p1));
  } else if (info.nprocs > 0 && (spec.p1 >= info.nprocs || (spec.p2 != INT64_MAX && spec.p2 <= 0))) {
    out.push_back(fmt::format("the ranks [{}, {}) lie outside the job's {} ranks (0 to {})",
                              spec.p1 == INT64_MIN ? "-inf" : std::to_string(spec.p1),
                              spec.p2 == INT64_MAX ? "+inf" : std::to_string(spec.p2), info.nprocs, info.nprocs - 1));
  }
  return out;
}

Status DarshanWindowQuery::Rate(StoreReader& reader, DarshanWindowAnswer& a) {
  const TimeFrame frame = Frame(a.info);
  if (!a.result.heatmap && !a.result.estimated) {
    XTFQ_ASSIGN_OR_RETURN(a.rate, DxtWindowSpread::Compute(reader, a.info, a.spec, a.result, frame.last));
    a.rate_basis = "each DXT segment's bytes spread evenly over its duration";
    return Ok();
  }
  // Bins and counter records: their bytes over the window, as counted.
  DxtWindowSpreadResult& r = a.rate;
  r.t1 = a.spec.t1 == INT64_MIN ? 0 : a.spec.t1;
  r.t2 = a.spec.t2 == INT64_MAX ? frame.last : a.spec.t2;
  r.total[0].bytes = static_cast<double>(a.result.read.bytes);
  r.total[1].bytes = static_cast<double>(a.result.write.bytes);
  for (const auto& [rank, ops] : a.result.ranks) {
    r.ranks[rank] = {DxtSpread{static_cast<double>(ops[0].bytes), 0}, DxtSpread{static_cast<double>(ops[1].bytes), 0}};
  }
  a.rate_estimated = !a.whole_run;
  a.rate_basis = a.result.heatmap ? fmt::format(
                                        "HEATMAP bins of {:g} s counted whole in the window that holds their start "
                                        "(within one bin at each edge)",
                                        a.result.heatmap_width)
                                  : "the counter records' bytes, each spread over its read or write interval";
  return Ok();
}

Status DarshanWindowQuery::PartialDxt(StoreReader& reader, DarshanWindowAnswer& a, const std::string& source) {
  if (!source.starts_with("DXT_")) return Ok();
  const std::vector<std::string> partial = DarshanLogs::PartialModules(a.info);
  if (std::find(partial.begin(), partial.end(), source) == partial.end()) return Ok();
  DarshanWindowSpec whole;
  whole.module = a.spec.module;
  whole.per_rank = false;
  auto counters = DarshanCounterWindow::Compute(reader, a.info, whole);
  if (!counters.ok()) return Ok();  // no counter records of the module: the warning stands alone
  a.partial_counters = std::array<DarshanOpStats, 2>{counters->read, counters->write};
  const DarshanWindowStats& c = *counters;
  int64_t dxt_bytes = 0;
  if (a.whole_run) {
    dxt_bytes = a.result.read.bytes + a.result.write.bytes;
  } else {
    DarshanWindowSpec all = whole;
    XTFQ_ASSIGN_OR_RETURN(DarshanWindowStats d, DarshanWindow::Compute(reader, a.info, all));
    dxt_bytes = d.read.bytes + d.write.bytes;
  }
  const int64_t counted = c.read.bytes + c.write.bytes;
  a.warnings.push_back(fmt::format(
      "log {}'s {} counter records, complete, count {} reads and {} writes ({} and {} bytes) over the whole run; its "
      "{} "
      "segments hold {} of those bytes{}",
      a.info.log, a.spec.module, c.read.ops, c.write.ops, c.read.bytes, c.write.bytes, source, dxt_bytes,
      counted > 0 ? fmt::format(" ({:.1f}%)", 100.0 * static_cast<double>(dxt_bytes) / static_cast<double>(counted))
                  : std::string()));
  return Ok();
}

Status DarshanWindowQuery::OrderRanks(DarshanWindowAnswer& a) {
  const std::string& by = a.request.rank_sort;
  std::function<double(int64_t)> key;
  auto ops = [&](int64_t r) -> const std::array<DarshanOpStats, 2>& { return a.result.ranks.at(r); };
  if (by == "bytes") {
    key = [&](int64_t r) { return static_cast<double>(ops(r)[0].bytes + ops(r)[1].bytes); };
  } else if (by == "busy") {
    key = [&](int64_t r) { return ops(r)[0].busy + ops(r)[1].busy; };
  } else if (by == "ops") {
    key = [&](int64_t r) { return static_cast<double>(ops(r)[0].ops + ops(r)[1].ops); };
  } else if (by == "bw") {
    key = [&](int64_t r) {
      const auto it = a.rate.ranks.find(r);
      return it == a.rate.ranks.end() ? 0.0 : it->second[0].bytes + it->second[1].bytes;
    };
  } else if (by != "rank") {
    return Error(ErrorCode::kUsage, fmt::format("--sort {}: with --per-rank, one of rank, bytes, bw, busy, ops", by));
  }
  for (const auto& [rank, stats] : a.result.ranks) a.rank_order.push_back(rank);
  if (key) {
    std::stable_sort(a.rank_order.begin(), a.rank_order.end(), [&](int64_t x, int64_t y) { return key(x) > key(y); });
  }
  if (a.request.top_ranks > 0 && a.rank_order.size() > a.request.top_ranks) a.rank_order.resize(a.request.top_ranks);
  return Ok();
}

Result<DarshanWindowAnswer> DarshanWindowQuery::Run(StoreReader& reader, const DarshanWindowRequest& q) {
  DarshanWindowAnswer a;
  a.request = q;
  XTFQ_ASSIGN_OR_RETURN(a.info, DarshanLogs::Find(reader, q.log, q.job));
  XTFQ_ASSIGN_OR_RETURN(TimeWindow w, TimeWindow::Parse(q.time, Frame(a.info)));
  a.spec.t1 = w.lo, a.spec.t2 = w.hi;
  if (!q.ranks.empty()) {
    XTFQ_ASSIGN_OR_RETURN(ProcessWindow r, ProcessWindow::Parse(q.ranks));
    a.spec.p1 = r.lo, a.spec.p2 = r.hi;
  }
  a.spec.module = DarshanLogs::ChooseModule(reader, a.info, q.module, &a.module_note);
  a.spec.scan = q.scan;
  a.spec.per_rank = true;  // rank imbalance needs the rows
  a.spec.per_file = q.per_file;
  if (!q.file_glob.empty() || q.per_file) {
    XTFQ_ASSIGN_OR_RETURN(a.names, DarshanLogs::Names(reader, a.info));
  }
  if (!q.file_glob.empty()) {
    a.spec.files = DarshanFileFilter::Match(a.names, q.file_glob);
    if (a.spec.files->empty()) {
      a.warnings.push_back(fmt::format("--file '{}' matches none of log {}'s {} file names: the window holds nothing",
                                       q.file_glob, a.info.log, a.names.size()));
    }
  }
  XTFQ_ASSIGN_OR_RETURN(a.result, DarshanWindow::Compute(reader, a.info, a.spec));
  a.whole_run = a.spec.t1 == INT64_MIN && a.spec.t2 == INT64_MAX && q.ranks.empty() && q.file_glob.empty();
  if (!a.result.heatmap && !a.result.estimated) {
    const std::string dxt = a.spec.module == "POSIX" ? "DXT_POSIX" : "DXT_MPIIO";
    GridPlan plan;
    for (const char* op : {"read", "write"}) {
      const ArrayDesc* arr =
          reader.catalogue().Find(DarshanLayout::ArrayName(a.info.log, fmt::format("{}.{}", dxt, op)));
      if (arr == nullptr) continue;
      XTFQ_ASSIGN_OR_RETURN(DarshanOpDistribution d, Distribution(reader, *arr, a.spec, plan));
      (op[0] == 'r' ? a.read_dist : a.write_dist) = std::move(d);
    }
    a.distributions_read = plan.Describe();
  }
  a.files_in_window = a.result.files.size();
  for (const auto& [id, ops] : a.result.files) a.file_order.push_back(id);
  if (q.top_files > 0) {
    auto bytes = [&](uint64_t id) {
      const auto& ops = a.result.files.at(id);
      return ops[0].bytes + ops[1].bytes;
    };
    std::stable_sort(a.file_order.begin(), a.file_order.end(),
                     [&](uint64_t x, uint64_t y) { return bytes(x) > bytes(y); });
    if (a.file_order.size() > q.top_files) a.file_order.resize(q.top_files);
  }
  // The module the answer came from: its DXT segments, its HEATMAP bins or its counter records.
  const std::string source = a.result.heatmap            ? "HEATMAP"
                             : a.result.estimated        ? a.spec.module
                             : a.spec.module == "MPI-IO" ? "DXT_MPIIO"
                                                         : "DXT_POSIX";
  XTFQ_TRY(Rate(reader, a));
  XTFQ_TRY(OrderRanks(a));
  if (a.whole_run) {
    XTFQ_ASSIGN_OR_RETURN(a.shared_imbalance, SharedFileImbalances::Of(reader, a.info, a.spec.module, 5));
    XTFQ_ASSIGN_OR_RETURN(a.summary, DarshanJobSummary::Of(reader, a.info, a.spec.module));
    for (const char* m : {"H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR"}) {
      XTFQ_ASSIGN_OR_RETURN(std::optional<DarshanJobSummary> lib, DarshanJobSummary::Of(reader, a.info, m));
      if (lib) a.library_summaries.push_back(std::move(*lib));
    }
  }
  XTFQ_ASSIGN_OR_RETURN(a.perf, DarshanPerf::Read(reader, a.info));
  XTFQ_ASSIGN_OR_RETURN(a.total, DarshanTotal::Read(reader, a.info, a.spec.module));
  a.read = DarshanOpMetrics::Of(a.result.read);
  a.write = DarshanOpMetrics::Of(a.result.write);
  a.imbalance = RankImbalance::Of(a.result.ranks, !a.result.heatmap);
  for (std::string& w : Warnings(a.info, a.spec)) a.warnings.push_back(std::move(w));
  if (auto w = PartialWarning(a.info, source)) a.warnings.push_back(*w);
  XTFQ_TRY(PartialDxt(reader, a, source));
  if (a.result.counter_bytes) {
    a.warnings.push_back(fmt::format(
        "log {}'s HEATMAP bins count {} bytes read and {} written here, its {} counter records {} and {} (each "
        "record lies wholly inside or outside the window): the bins and the counters disagree; operations and times "
        "are left unknown",
        a.info.log, a.result.read.bytes, a.result.write.bytes, a.spec.module, (*a.result.counter_bytes)[0],
        (*a.result.counter_bytes)[1]));
  }
  a.answered = a.result.indexed ? "from the index" : "from the window's segments";
  if (a.result.estimated) {
    a.answered =
        a.result.exact
            ? "from the counter records, exact: every record's reads and writes lie wholly inside or outside the window"
            : "estimated from counters: no DXT or HEATMAP in this log, so each record's operations, bytes and times "
              "are "
              "spread evenly over its first-to-last read or write timestamps";
  }
  if (a.result.heatmap) {
    a.answered += fmt::format(
        "; no DXT in this log: bytes from the HEATMAP bins ({} s wide, a bin counts in the window that holds "
        "its start); {}",
        a.result.heatmap_width,
        a.result.counter_ops
            ? "operations, busy time and size classes from the counter records, exact here (each lies wholly inside "
              "or outside the window; per rank they are not split)"
            : "operations, sizes and times are not in heatmaps");
    if (a.result.heatmap_short_by > 0) {
      a.answered += fmt::format(
          "; the bins count {} bytes fewer than the counter records (Darshan's runtime splits an access over bins in "
          "whole bytes: up to 1 byte a bin, {} bins here), so the totals' bytes are the counters'",
          a.result.heatmap_short_by, a.result.heatmap_bins);
    }
  }
  if (a.result.files_from_counters) {
    a.answered +=
        "; its HEATMAP bins are per rank and time, not per file, so the file rows and filter come from the "
        "module's counter records";
  }
  return a;
}

}  // namespace xtfq
