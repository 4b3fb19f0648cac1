#include "cli/darshan_window_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/output.h"
#include "query/answers/result_json.h"

namespace xtfq::cli {

namespace {

using Value = std::optional<double>;
std::string T(Value v) { return v ? fmt::format("{:.6g}", *v) : "NA"; }
std::string C(Value v) { return v ? fmt::format("{}", *v) : "NA"; }  // NA as pandas reads it

constexpr double kQuantiles[] = {0.5, 0.9, 0.99};

// "lower..upper" of a percentile, NA without segments.
std::string Range(const std::optional<std::pair<double, double>>& b) {
  return b ? fmt::format("{:.4g}..{:.4g}", b->first, b->second) : "NA";
}

std::string Percentiles(const DarshanWindowAnswer& a) {
  if (!a.read_dist && !a.write_dist) return "";
  std::string out = fmt::format(
      "percentiles of request sizes (bytes) and durations (s), each within one log2 bin [lower..upper] (read: {}):\n",
      a.distributions_read);
  out += fmt::format("{:<6} {:<9} {:>24} {:>24} {:>24}\n", "op", "of", "p50", "p90", "p99");
  for (int op = 0; op < 2; ++op) {
    const auto& d = op == 0 ? a.read_dist : a.write_dist;
    if (!d) continue;
    for (int f = 0; f < 2; ++f) {
      out += fmt::format("{:<6} {:<9}", op == 0 ? "read" : "write", f == 0 ? "size" : "duration");
      for (double q : kQuantiles) out += fmt::format(" {:>24}", Range(f == 0 ? d->Size(q) : d->Duration(q)));
      out += "\n";
    }
  }
  return out;
}

std::string Csv(const DarshanWindowAnswer& a) {
  // Per-file rows name their file in a last column; the window's totals carry its percentiles.
  const bool named = !a.request.per_rank && a.request.per_file;
  const bool totals = !a.request.per_rank && !a.request.per_file;
  // The first column: the rank (an integer), the file's record id, or "all" for the window.
  std::string out = a.request.per_rank ? "rank" : a.request.per_file ? "file_id" : "key";
  out += ",op,ops,bytes,bytes_moved,busy_s,bw_mib_s,mib_per_busy_s,iops,avg_size,seq_ratio,consec_ratio,small_ratio";
  if (named) out += ",file";
  if (totals) {
    for (const char* f : {"size", "duration"}) {
      for (double q : kQuantiles) out += fmt::format(",{0}_p{1:g}_lower,{0}_p{1:g}_upper", f, q * 100);
    }
  }
  // Last: whether the row is estimated (spread from counter records over their time spans), as
  // JSON's "estimated" says.
  out += ",estimated\n";
  const char* estimated = a.result.estimated && !a.result.exact ? "true" : "false";
  // Bytes moved during the window and the wall-clock rate: for the totals and per rank (not per file).
  auto moved = [&](const std::string& key, const char* op) -> std::optional<double> {
    const size_t o = op[0] == 'r' ? 0 : 1;
    if (key == "all") return a.rate.total[o].bytes;
    if (!a.request.per_rank) return std::nullopt;
    const auto it = a.rate.ranks.find(std::stoll(key));
    return it == a.rate.ranks.end() ? 0.0 : it->second[o].bytes;
  };
  auto row = [&](const std::string& key, const char* op, const DarshanOpStats& s, const std::string* file = nullptr,
                 const std::optional<DarshanOpDistribution>* dist = nullptr) {
    const DarshanOpMetrics d = DarshanOpMetrics::Of(s);
    const std::optional<double> bytes_moved = moved(key, op);
    const std::optional<double> bw = bytes_moved && a.rate.Seconds() > 0
                                         ? std::optional<double>(*bytes_moved / 1048576.0 / a.rate.Seconds())
                                         : std::nullopt;
    // (HEATMAP bins count bytes only: operations and busy time are NA, unknown; the totals
    // come from the counter records where those are exact)
    const bool bytes_only = a.result.heatmap && !(key == "all" && a.result.counter_ops);
    out +=
        fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}", key, op, bytes_only ? "NA" : std::to_string(s.ops),
                    s.bytes, C(bytes_moved), bytes_only ? "NA" : fmt::format("{}", s.busy), C(bw), C(d.mib_per_busy_s),
                    C(d.iops), C(d.avg_size), C(d.seq_ratio), C(d.consec_ratio), C(d.small_ratio));
    if (file) out += "," + CsvField(*file);
    if (totals) {
      for (int f = 0; f < 2; ++f) {
        for (double q : kQuantiles) {
          std::optional<std::pair<double, double>> b;
          if (dist && *dist) b = f == 0 ? (*dist)->Size(q) : (*dist)->Duration(q);
          out += b ? fmt::format(",{},{}", b->first, b->second) : ",NA,NA";
        }
      }
    }
    out += fmt::format(",{}\n", estimated);
  };
  if (a.request.per_rank) {
    for (int64_t rank : a.rank_order) {
      const auto& ops = a.result.ranks.at(rank);
      row(std::to_string(rank), "read", ops[0]), row(std::to_string(rank), "write", ops[1]);
    }
  } else if (a.request.per_file) {
    for (uint64_t id : a.file_order) {
      const auto& ops = a.result.files.at(id);
      row(fmt::format("{}", id), "read", ops[0], &a.FileName(id)),
          row(fmt::format("{}", id), "write", ops[1], &a.FileName(id));
    }
  } else {
    row("all", "read", a.result.read, nullptr, &a.read_dist),
        row("all", "write", a.result.write, nullptr, &a.write_dist);
  }
  return out;
}

std::string Imbalance(const std::optional<RankImbalance>& imb, const DarshanWindowStats& result) {
  if (!imb && result.estimated)
    return "rank imbalance: no rank has I/O of its own in the window (shared records, rank -1, cannot be split by "
           "rank)\n";
  if (!imb)
    return result.heatmap ? "rank imbalance: no rank has HEATMAP bytes in the window\n"
                          : "rank imbalance: no rank has segments in the window\n";
  const RankImbalance& r = *imb;
  const std::string bytes =
      fmt::format("bytes per rank max {} (rank {}), min {} (rank {}), mean {:.6g}", r.max_bytes.bytes, r.max_bytes.rank,
                  r.min_bytes.bytes, r.min_bytes.rank, r.mean_bytes);
  if (!r.slowest || !r.fastest) {
    return fmt::format(
        "rank imbalance over {} ranks with HEATMAP bytes: {}; slowest and fastest ranks unknown (heatmaps hold no "
        "times)\n",
        r.ranks, bytes);
  }
  const std::optional<double> time_ratio =
      r.fastest->busy > 0 ? std::optional<double>(r.slowest->busy / r.fastest->busy) : std::nullopt;
  return fmt::format(
      "rank imbalance over {} ranks with {}: slowest/fastest busy time {}: slowest rank {} ({:.6g} s busy, {} "
      "bytes), fastest rank {} ({:.6g} s busy, {} bytes); {}; slowest/fastest bytes {}\n",
      r.ranks, result.estimated ? "I/O in their counter records" : "segments", T(time_ratio), r.slowest->rank,
      r.slowest->busy, r.slowest->bytes, r.fastest->rank, r.fastest->busy, r.fastest->bytes, bytes,
      T(r.slowest_to_fastest_bytes));
}

// Darshan's reduction of each file every rank opened (whole run): slowest rank's time first.
std::string SharedImbalance(const std::optional<SharedFileImbalances>& s) {
  if (!s || s->shared_files == 0) return "";
  std::string out = fmt::format(
      "shared files (rank -1 records: Darshan's reduction over the ranks, whole run): {}; the {} with the slowest "
      "rank's I/O time the largest:\n",
      s->shared_files, s->files.size());
  for (const SharedFileImbalance& f : s->files) {
    out += fmt::format(
        "  slowest rank {} {:.6f} s ({} bytes), fastest rank {} {:.6f} s ({} bytes), slowest/fastest time {}, "
        "variance of rank time {}  {}\n",
        f.slowest_rank, f.slowest_rank_time, f.slowest_rank_bytes, f.fastest_rank, f.fastest_rank_time,
        f.fastest_rank_bytes, T(f.TimeRatio()), T(f.variance_rank_time), f.name);
  }
  return out;
}

// What PyDarshan's job summary shows of the module (whole run).
std::string JobSummary(const std::optional<DarshanJobSummary>& s) {
  if (!s) return "";
  std::string out = fmt::format(
      "{} over the whole run, as PyDarshan's job summary shows it ({} records):\n  operations and bytes:", s->module,
      s->records);
  for (const auto& [name, n] : s->operations) out += fmt::format(" {} {}", name, n ? std::to_string(*n) : "NA");
  if (s->module.starts_with("H5") || s->module.starts_with("PNETCDF")) return out + "\n";
  out += "\n  most common access sizes:";
  if (s->common_accesses.empty()) out += " none recorded";
  for (const auto& [size, n] : s->common_accesses) out += fmt::format(" {} B x {};", size, n);
  const double io = s->read_time + s->write_time + s->meta_time;
  out += fmt::format(
      "\n  I/O time per process: read {:.6f} s, write {:.6f} s, metadata {:.6f} s: {:.6f} s of the {:.6g} s run "
      "({})\n",
      s->read_time, s->write_time, s->meta_time, io, s->run_time,
      s->run_time > 0 ? fmt::format("{:.3g}%", 100.0 * io / s->run_time) : std::string("NA"));
  return out;
}

// Darshan's own figure for the whole run (darshan-parser --perf and --file), under its names.
std::string DarshanPerfText(const DarshanWindowAnswer& a) {
  if (!a.perf.kept) return DarshanPerf::NotKept(a.info) + "\n";
  const DarshanModulePerf* p = a.perf.Find(a.spec.module);
  if (p == nullptr) return "";
  std::string out = fmt::format(
      "Darshan's aggregate performance of {} over the whole run (darshan-parser --perf{}):\n"
      "  agg_perf_by_slowest {:.6f} MiB/s = total_bytes {} / 1048576 / agg_time_by_slowest {:.6f} s\n"
      "  agg_time_by_slowest = slowest_rank_io_time {:.6f} s (rank {}: meta {:.6f} s, read/write {:.6f} s; files "
      "each rank kept a record of) + time_by_slowest {:.6f} s (shared files: their slowest rank's time)\n",
      a.spec.module,
      a.perf.from_text ? "; from darshan-parser text, whose six-decimal times make this an estimate" : "",
      p->agg_perf_by_slowest, p->total_bytes, p->agg_time_by_slowest, p->slowest_rank_io_time, p->slowest_rank,
      p->slowest_rank_meta_only_time, p->slowest_rank_rw_only_time, p->time_by_slowest);
  out += "  files (darshan-parser --file):";
  for (size_t i = 0; i < p->files.size(); ++i) {
    const DarshanFileCategory& c = p->files[i];
    out += fmt::format("{} {} {} ({})", i == 0 ? "" : ";", DarshanLayout::kFileLines[i], c.count,
                       BinaryBytes(static_cast<uint64_t>(std::max<int64_t>(c.bytes, 0))));
  }
  return out + "\n";
}

std::string Text(const DarshanWindowAnswer& a) {
  std::string out = fmt::format(
      "# log {} (job {}), {} {} in [{}, {}) s from the job start, ranks {} ({})\n"
      "# {}\n",
      a.info.log, a.info.job, a.Source(),
      a.result.estimated ? "records"
      : a.result.heatmap ? "bins starting"
                         : "segments starting",
      ResultJson::EdgeSeconds(a.spec.t1, true), ResultJson::EdgeSeconds(a.spec.t2, false),
      a.request.ranks.empty() ? "all" : a.request.ranks, a.answered,
      a.result.estimated && a.request.ranks.empty()
          ? "a record counts by the share of its read or write interval inside the window; shared records (rank -1) "
            "count in the totals of all ranks, in no rank's row"
      : a.result.estimated
          ? "a record counts by the share of its read or write interval inside the window; shared records (rank -1: "
            "a file every rank opened, reduced by Darshan into one record) are in no rank range: without --ranks "
            "they count in the totals"
      : a.result.heatmap ? "a bin counts whole in the window that holds its start"
                         : "ops, bytes and busy_s count a segment whole in the window that holds its start");
  if (!a.module_note.empty()) out += fmt::format("# {}\n", a.module_note);
  out += fmt::format(
      "# MiB/s = bytes moved during the window ({}) / 1048576 / its {:.6g} s of wall time [{}, {}) s{}; "
      "MiB/busy_s = bytes / 1048576 / busy_s and iops = ops / busy_s, busy_s summed over the ranks\n",
      a.rate_basis, a.rate.Seconds(), static_cast<double>(a.rate.t1) / 1e9, static_cast<double>(a.rate.t2) / 1e9,
      a.rate_estimated ? " (an estimate)" : "");
  out += fmt::format("{:<6} {:>12} {:>16} {:>12} {:>12} {:>12} {:>12} {:>12} {:>9} {:>9} {:>9}\n", "op", "ops", "bytes",
                     "MiB/s", "busy_s", "MiB/busy_s", "iops", "avg_size", "seq", "consec", "small");
  // HEATMAP bins count bytes only: operations, busy time and sizes are NA, not zero (unless the
  // counter records give them exactly).
  const bool bytes_only = a.result.heatmap && !a.result.counter_ops;
  for (int op = 0; op < 2; ++op) {
    const DarshanOpStats& s = op == 0 ? a.result.read : a.result.write;
    const DarshanOpMetrics& d = op == 0 ? a.read : a.write;
    out += fmt::format("{:<6} {:>12} {:>16} {:>12} {:>12} {:>12} {:>12} {:>12} {:>9} {:>9} {:>9}\n",
                       op == 0 ? "read" : "write", bytes_only ? "NA" : std::to_string(s.ops), s.bytes,
                       T(a.rate.MiBps(op)), bytes_only ? "NA" : fmt::format("{:.6g}", s.busy), T(d.mib_per_busy_s),
                       T(d.iops), T(d.avg_size), T(d.seq_ratio), T(d.consec_ratio), T(d.small_ratio));
  }
  if (bytes_only) {
    out += "size classes (Darshan's 10): NA (heatmaps count bytes only)\n";
  } else {
    out += "size classes (Darshan's 10):\n      ";
    for (int b = 0; b < DarshanLayout::kSizeClasses; ++b)
      out += fmt::format(" {:>10}", DarshanLayout::SizeClassName(b));
    out += "\n";
    for (int op = 0; op < 2; ++op) {
      const DarshanOpStats& s = op == 0 ? a.result.read : a.result.write;
      out += fmt::format("{:<6}", op == 0 ? "read" : "write");
      // A module without size-class counters (STDIO): NA, not ten zeros.
      for (int64_t v : s.size_classes) out += fmt::format(" {:>10}", s.size_classes_known ? std::to_string(v) : "NA");
      out += "\n";
    }
  }
  out += Percentiles(a);
  out += Imbalance(a.imbalance, a.result);
  out += SharedImbalance(a.shared_imbalance);
  out += JobSummary(a.summary);
  for (const DarshanJobSummary& lib : a.library_summaries) out += JobSummary(lib);
  if (a.whole_run) out += DarshanPerfText(a);
  if (a.request.per_rank) {
    if (a.request.top_ranks > 0 || a.request.rank_sort != "rank") {
      out += fmt::format("{} of the window's {} ranks, by {}{}:\n", a.rank_order.size(), a.result.ranks.size(),
                         a.request.rank_sort, a.request.rank_sort == "rank" ? "" : ", most first");
    }
    // MiB/s: the rank's bytes read and written during the window over its wall time, as the totals'.
    out += fmt::format("{:>8} {:>12} {:>16} {:>12} {:>16} {:>12} {:>12}\n", "rank", "read_ops", "read_bytes",
                       "write_ops", "write_bytes", "MiB/s", "busy_s");
    for (int64_t rank : a.rank_order) {
      const auto& ops = a.result.ranks.at(rank);
      auto n = [&](uint64_t v) { return bytes_only ? std::string("NA") : std::to_string(v); };
      const auto moved = a.rate.ranks.find(rank);
      const double bytes = moved == a.rate.ranks.end() ? 0.0 : moved->second[0].bytes + moved->second[1].bytes;
      out += fmt::format("{:>8} {:>12} {:>16} {:>12} {:>16} {:>12} {:>12}\n", rank, n(ops[0].ops), ops[0].bytes,
                         n(ops[1].ops), ops[1].bytes,
                         T(a.rate.Seconds() > 0 ? Value(bytes / 1048576.0 / a.rate.Seconds()) : std::nullopt),
                         bytes_only ? "NA" : fmt::format("{:.6g}", ops[0].busy + ops[1].busy));
    }
  }
  if (a.request.per_file) {
    if (a.request.top_files > 0) {
      out += fmt::format("the {} of the window's {} files with the most bytes read and written:\n", a.file_order.size(),
                         a.files_in_window);
    }
    out += fmt::format("{:>20} {:>12} {:>16} {:>12} {:>16}  {}\n", "record_id", "read_ops", "read_bytes", "write_ops",
                       "write_bytes", "file");
    for (uint64_t id : a.file_order) {
      const auto& ops = a.result.files.at(id);
      out += fmt::format("{:>20} {:>12} {:>16} {:>12} {:>16}  {}\n", id, ops[0].ops, ops[0].bytes, ops[1].ops,
                         ops[1].bytes, a.FileName(id));
    }
  }
  return out;
}

}  // namespace

std::string DarshanWindowReport::Render(const DarshanWindowAnswer& a, const std::string& format) {
  if (format == "json") return ResultJson::Of(a).dump(2) + "\n";
  if (format == "csv") return Csv(a);
  return Text(a);
}

}  // namespace xtfq::cli
