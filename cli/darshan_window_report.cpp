#include "cli/darshan_window_report.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/array_options.h"
#include "layouts/darshan_layout.h"
#include "store/endian.h"

namespace xtfq::cli {

namespace {

using Value = std::optional<double>;
Value Div(double a, double b) { return b != 0 ? Value(a / b) : std::nullopt; }
nlohmann::json J(Value v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }
std::string T(Value v) { return v ? fmt::format("{:.6g}", *v) : "NA"; }

// Seconds "T1:T2" to nanoseconds, half-open; empty sides are unbounded.
Result<std::pair<int64_t, int64_t>> ParseSeconds(const std::string& text) {
  const size_t colon = text.find(':');
  auto bad = [&] {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("--time '{}': expected T1:T2 in seconds from the job's start (either side may be empty)", text));
  };
  if (colon == std::string::npos) return bad();
  auto side = [&](std::string s, int64_t unbounded, int64_t& out) {
    if (s.empty()) {
      out = unbounded;
      return true;
    }
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v) || std::fabs(v) > 9e9) return false;
    out = std::llround(v * 1e9);
    return true;
  };
  std::pair<int64_t, int64_t> w;
  if (!side(text.substr(0, colon), INT64_MIN, w.first) || !side(text.substr(colon + 1), INT64_MAX, w.second)) return bad();
  if (w.first > w.second) return Error(ErrorCode::kInvalidArgument, fmt::format("--time '{}': the start is after the end", text));
  return w;
}

struct Derived {
  Value bw, iops, avg, seq, consec, small;
};
Derived Of(const DarshanOpStats& s) {
  const double ops = static_cast<double>(s.ops);
  return {Div(static_cast<double>(s.bytes) / 1048576.0, s.busy), Div(ops, s.busy), Div(static_cast<double>(s.bytes), ops),
          Div(static_cast<double>(s.seq), ops), Div(static_cast<double>(s.consec), ops),
          Div(static_cast<double>(s.bins[0] + s.bins[1] + s.bins[2]), ops)};
}

nlohmann::json OpJson(const DarshanOpStats& s) {
  const Derived d = Of(s);
  nlohmann::json bins = nlohmann::json::object();
  for (int b = 0; b < 10; ++b) bins[std::string(DarshanLayout::SizeBinName(b))] = s.bins[static_cast<size_t>(b)];
  return {{"ops", s.ops}, {"bytes", s.bytes}, {"busy_s", s.busy}, {"bw_mib_s", J(d.bw)}, {"iops", J(d.iops)},
          {"avg_size", J(d.avg)}, {"seq_ratio", J(d.seq)}, {"consec_ratio", J(d.consec)}, {"small_ratio", J(d.small)},
          {"seq", s.seq}, {"consec", s.consec}, {"size_classes", bins}};
}

}  // namespace

Result<std::string> DarshanWindowReport::Render(StoreReader& reader, const DarshanWindowRequest& q) {
  XTFQ_ASSIGN_OR_RETURN(DarshanLogInfo info, DarshanLogs::Find(reader, q.log, q.job));
  DarshanWindowSpec spec;
  XTFQ_ASSIGN_OR_RETURN(auto w, ParseSeconds(q.time));
  spec.t1 = w.first, spec.t2 = w.second;
  if (!q.ranks.empty()) {
    XTFQ_ASSIGN_OR_RETURN(Range r, ParseRange(q.ranks, "--ranks"));
    spec.p1 = r.lo, spec.p2 = r.hi;
  }
  spec.module = q.module;
  spec.scan = q.scan;
  spec.per_rank = true;
  spec.per_file = q.per_file;
  // Names, for --file and the per-file rows.
  std::unordered_map<uint64_t, std::string> names;
  if (!q.file_glob.empty() || q.per_file) {
    XTFQ_ASSIGN_OR_RETURN(names, DarshanLogs::Names(reader, info));
  }
  if (!q.file_glob.empty()) {
    spec.files.emplace();
    for (const auto& [id, n] : names) {
      if (fnmatch(q.file_glob.c_str(), n.c_str(), 0) == 0) spec.files->insert(id);
    }
  }
  XTFQ_ASSIGN_OR_RETURN(DarshanWindowResult res, DarshanWindow::Compute(reader, info, spec));
  // Rank imbalance over the ranks with segments in the window: bytes per rank; the slowest rank
  // is the one with the most busy time, the fastest the one with the least.
  struct RankRow {
    int64_t rank;
    int64_t bytes;
    double busy;
  };
  std::vector<RankRow> rows;
  for (const auto& [rank, ops] : res.ranks) rows.push_back({rank, ops[0].bytes + ops[1].bytes, ops[0].busy + ops[1].busy});
  nlohmann::json imb = nullptr;
  std::string imb_text = "rank imbalance: no rank has segments in the window\n";
  if (!rows.empty()) {
    auto by_bytes = std::minmax_element(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.bytes < b.bytes; });
    auto by_busy = std::minmax_element(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.busy < b.busy; });
    double mean = 0;
    for (const auto& r : rows) mean += static_cast<double>(r.bytes);
    mean /= static_cast<double>(rows.size());
    const Value ratio = Div(static_cast<double>(by_busy.second->bytes), static_cast<double>(by_busy.first->bytes));
    imb = {{"ranks", rows.size()},
           {"max_bytes", by_bytes.second->bytes},
           {"max_bytes_rank", by_bytes.second->rank},
           {"min_bytes", by_bytes.first->bytes},
           {"min_bytes_rank", by_bytes.first->rank},
           {"mean_bytes", mean},
           {"slowest_rank", by_busy.second->rank},
           {"slowest_rank_bytes", by_busy.second->bytes},
           {"slowest_rank_busy_s", by_busy.second->busy},
           {"fastest_rank", by_busy.first->rank},
           {"fastest_rank_bytes", by_busy.first->bytes},
           {"fastest_rank_busy_s", by_busy.first->busy},
           {"slowest_to_fastest_bytes", J(ratio)}};
    imb_text = fmt::format(
        "rank imbalance over {} ranks with segments: bytes per rank max {} (rank {}), min {} (rank {}), mean {:.6g}; "
        "slowest rank {} ({} bytes, {:.6g} s busy), fastest rank {} ({} bytes, {:.6g} s busy), slowest/fastest bytes {}\n",
        rows.size(), by_bytes.second->bytes, by_bytes.second->rank, by_bytes.first->bytes, by_bytes.first->rank, mean,
        by_busy.second->rank, by_busy.second->bytes, by_busy.second->busy, by_busy.first->rank, by_busy.first->bytes,
        by_busy.first->busy, T(ratio));
  }
  auto window_text = [&](int64_t ns, bool lo) {
    return (lo ? ns == INT64_MIN : ns == INT64_MAX) ? std::string(lo ? "-inf" : "+inf") : fmt::format("{:.9g}", static_cast<double>(ns) / 1e9);
  };
  std::string how = res.indexed ? "from the index" : "from the window's segments";
  if (res.heatmap) {
    how += fmt::format("; no DXT in this log: bytes from the HEATMAP bins ({} s wide, a bin counts in the window that holds "
                       "its start); operations, sizes and times are not in heatmaps",
                       res.heatmap_width);
  }
  if (q.format == "json") {
    nlohmann::json j = {{"log", info.log},
                        {"job", info.job},
                        {"module", spec.module},
                        {"window_s", {window_text(spec.t1, true), window_text(spec.t2, false)}},
                        {"ranks", q.ranks.empty() ? ":" : q.ranks},
                        {"answered", how},
                        {"read", OpJson(res.read)},
                        {"write", OpJson(res.write)},
                        {"rank_imbalance", imb}};
    if (q.per_rank) {
      j["per_rank"] = nlohmann::json::array();
      for (const auto& [rank, ops] : res.ranks) j["per_rank"].push_back({{"rank", rank}, {"read", OpJson(ops[0])}, {"write", OpJson(ops[1])}});
    }
    if (q.per_file) {
      j["per_file"] = nlohmann::json::array();
      for (const auto& [id, ops] : res.files) {
        j["per_file"].push_back({{"id", id}, {"name", names.count(id) ? names[id] : "(null)"}, {"read", OpJson(ops[0])}, {"write", OpJson(ops[1])}});
      }
    }
    return j.dump(2) + "\n";
  }
  if (q.format == "csv") {
    std::string out = "key,op,ops,bytes,busy_s,bw_mib_s,iops,avg_size,seq_ratio,consec_ratio,small_ratio\n";
    auto row = [&](const std::string& key, const char* op, const DarshanOpStats& s) {
      const Derived d = Of(s);
      auto c = [](Value v) { return v ? fmt::format("{}", *v) : std::string(); };
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", key, op, s.ops, s.bytes, s.busy, c(d.bw), c(d.iops), c(d.avg),
                         c(d.seq), c(d.consec), c(d.small));
    };
    if (q.per_rank) {
      for (const auto& [rank, ops] : res.ranks) row(fmt::format("rank {}", rank), "read", ops[0]), row(fmt::format("rank {}", rank), "write", ops[1]);
    } else if (q.per_file) {
      for (const auto& [id, ops] : res.files) row(fmt::format("{}", id), "read", ops[0]), row(fmt::format("{}", id), "write", ops[1]);
    } else {
      row("all", "read", res.read), row("all", "write", res.write);
    }
    return out;
  }
  std::string out = fmt::format(
      "# log {} (job {}), {} segments starting in [{}, {}) s from the job start, ranks {} ({})\n"
      "# a segment counts whole in the window that holds its start\n",
      info.log, info.job,
      res.heatmap ? fmt::format("HEATMAP {}", spec.module) : spec.module == "POSIX" ? "DXT_POSIX" : "DXT_MPIIO",
      window_text(spec.t1, true), window_text(spec.t2, false),
      q.ranks.empty() ? "all" : q.ranks, how);
  out += fmt::format("{:<6} {:>12} {:>16} {:>12} {:>12} {:>12} {:>12} {:>9} {:>9} {:>9}\n", "op", "ops", "bytes", "busy_s",
                     "bw_MiB/s", "iops", "avg_size", "seq", "consec", "small");
  for (int op = 0; op < 2; ++op) {
    const DarshanOpStats& s = op == 0 ? res.read : res.write;
    const Derived d = Of(s);
    out += fmt::format("{:<6} {:>12} {:>16} {:>12.6g} {:>12} {:>12} {:>12} {:>9} {:>9} {:>9}\n", op == 0 ? "read" : "write",
                       s.ops, s.bytes, s.busy, T(d.bw), T(d.iops), T(d.avg), T(d.seq), T(d.consec), T(d.small));
  }
  out += "size classes (Darshan's 10):\n      ";
  for (int b = 0; b < 10; ++b) out += fmt::format(" {:>10}", DarshanLayout::SizeBinName(b));
  out += "\n";
  for (int op = 0; op < 2; ++op) {
    out += fmt::format("{:<6}", op == 0 ? "read" : "write");
    for (int64_t v : (op == 0 ? res.read : res.write).bins) out += fmt::format(" {:>10}", v);
    out += "\n";
  }
  out += imb_text;
  if (q.per_rank) {
    out += fmt::format("{:>8} {:>12} {:>16} {:>12} {:>16} {:>12}\n", "rank", "read_ops", "read_bytes", "write_ops", "write_bytes", "busy_s");
    for (const auto& [rank, ops] : res.ranks) {
      out += fmt::format("{:>8} {:>12} {:>16} {:>12} {:>16} {:>12.6g}\n", rank, ops[0].ops, ops[0].bytes, ops[1].ops, ops[1].bytes,
                         ops[0].busy + ops[1].busy);
    }
  }
  if (q.per_file) {
    out += fmt::format("{:>20} {:>12} {:>16} {:>12} {:>16}  {}\n", "record_id", "read_ops", "read_bytes", "write_ops", "write_bytes", "file");
    for (const auto& [id, ops] : res.files) {
      out += fmt::format("{:>20} {:>12} {:>16} {:>12} {:>16}  {}\n", id, ops[0].ops, ops[0].bytes, ops[1].ops, ops[1].bytes,
                         names.count(id) ? names[id] : "(null)");
    }
  }
  return out;
}

}  // namespace xtfq::cli
