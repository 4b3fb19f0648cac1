#include "gen/jobstats_gen_grammar.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <array>
#include <cctype>
#include <ctime>
#include <utility>

namespace xtfq {

namespace {
constexpr int64_t kBoot = 1767000000;  // since-boot clocks (variant D) count from here

std::string SizeLabel(int log2) {
  static constexpr std::array<const char*, 5> kUnits = {"", "K", "M", "G", "T"};
  return fmt::format("{}{}", uint64_t{1} << (log2 % 10), kUnits[static_cast<size_t>(log2 / 10)]);
}

std::string Seconds(double t) {
  const auto s = static_cast<int64_t>(t);
  return fmt::format("{}.{:09d} secs.nsecs", s, static_cast<int64_t>((t - static_cast<double>(s)) * 1e9));
}

// " 4K: 3, 1M: 2": the buckets of a byte counter's size histogram.
void AppendHistogram(fmt::memory_buffer& out, const JobStatsGenGrammar::Counter& counter) {
  bool first = true;
  for (const auto& [l2, n] : counter.hist) {
    fmt::format_to(fmt::appender(out), FMT_COMPILE("{}{}: {}"), first ? " " : ", ", SizeLabel(l2), n);
    first = false;
  }
}
}  // namespace

JobStatsGenGrammar::JobStatsGenGrammar(std::string_view variant) : variant_(variant) {}

std::vector<JobStatsGenGrammar::Op> JobStatsGenGrammar::Ops(bool mdt) const {
  if (mdt) {
    std::vector<Op> ops;
    for (std::string_view n :
         {"open", "close", "mknod", "link", "unlink", "mkdir", "rmdir", "rename", "getattr", "setattr", "getxattr",
          "setxattr", "statfs", "sync", "samedir_rename", "crossdir_rename"}) {
      ops.push_back({n, false});
    }
    return ops;
  }
  if (variant_ == "A") {
    return {{"read_bytes", true}, {"write_bytes", true}, {"getattr", false},  {"setattr", false},
            {"punch", false},     {"sync", false},       {"destroy", false},  {"create", false},
            {"statfs", false},    {"get_info", false},   {"set_info", false}, {"quotactl", false}};
  }
  std::vector<Op> ops = {{"read_bytes", true}, {"write_bytes", true}, {"read", false},    {"write", false},
                         {"getattr", false},   {"setattr", false},    {"punch", false},   {"sync", false},
                         {"destroy", false},   {"create", false},     {"statfs", false},  {"get_info", false},
                         {"set_info", false},  {"quotactl", false},   {"prealloc", false}};
  if (variant_ == "C") std::swap(ops[0], ops[2]), std::swap(ops[1], ops[3]);  // DDN: read, write first
  return ops;
}

bool JobStatsGenGrammar::PrintsStartTime() const {
  return variant_ == "D" || variant_ == "E1" || variant_ == "E2" || variant_ == "F";
}

void JobStatsGenGrammar::AppendEntry(std::string& out, const std::string& id, const EntryTimes& times,
                                     const std::vector<Op>& ops, const std::vector<Counter>& counters) const {
  fmt::format_to(std::back_inserter(out), "- job_id:          {}\n", Id(id));
  out += TimeLines(times);
  for (size_t i = 0; i < ops.size(); ++i) AppendCounterLine(out, ops[i], counters[i]);
}

void JobStatsGenGrammar::AppendTarget(std::string& out, const std::string& param, const std::string& body) const {
  if (!body.empty()) {
    out += param, out += "=\njob_stats:\n", out += body;
  } else {
    out += param, out += variant_ == "F" ? "=\n" : "=job_stats:\n";
  }
}

std::string JobStatsGenGrammar::FileName(uint32_t server, int64_t collected) const {
  if (variant_ != "D") return fmt::format("server{}-{}.txt", server, collected);
  std::time_t tt = collected;
  std::tm tm{};
  gmtime_r(&tt, &tm);
  return fmt::format("server{}-{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z.txt", server, tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

// A-D print the id as it is. E1 escapes what is not [A-Za-z0-9._@-] as \xHH, E2 and F also keep
// ':' and '/'; an id with an escape is quoted, and in E2 and F so is one with a ':' or a leading
// '@' (docs section 5.4).
std::string JobStatsGenGrammar::Id(const std::string& id) const {
  if (variant_ == "A" || variant_ == "B" || variant_ == "C" || variant_ == "D") return id;
  const bool e1 = variant_ == "E1";
  std::string out;
  bool quote = !e1 && !id.empty() && id[0] == '@';
  for (unsigned char c : id) {
    const bool plain =
        std::isalnum(c) || c == '.' || c == '_' || c == '@' || c == '-' || (!e1 && (c == ':' || c == '/'));
    if (plain) {
      out += static_cast<char>(c);
      quote |= !e1 && c == ':';
    } else {
      out += fmt::format("\\x{:02X}", c);
      quote = true;
    }
  }
  return quote ? "\"" + out + "\"" : out;
}

std::string JobStatsGenGrammar::TimeLines(const EntryTimes& t) const {
  if (variant_ == "D") {
    return fmt::format("snapshot_time   : {}\nstart_time      : {}\nelapsed_time    : {}\n",
                       Seconds(static_cast<double>(t.snapshot - kBoot) + 0.25),
                       Seconds(static_cast<double>(t.start - kBoot) + 0.5),
                       Seconds(static_cast<double>(t.collected - t.start) - 0.25));
  }
  if (PrintsStartTime()) {  // E1, E2, F
    return fmt::format("  snapshot_time:   {}\n  start_time:      {}\n  elapsed_time:    {}\n",
                       Seconds(static_cast<double>(t.snapshot) + 0.25), Seconds(static_cast<double>(t.start) + 0.5),
                       Seconds(static_cast<double>(t.collected - t.start) - 0.25));
  }
  return fmt::format("  snapshot_time:   {}\n", t.snapshot);
}

void JobStatsGenGrammar::AppendCounterLine(std::string& out, const Op& op, const Counter& x) const {
  char label_buf[64];
  const auto label_end = fmt::format_to_n(label_buf, sizeof label_buf, "{}:", op.name);
  const std::string_view label(label_buf, std::min(label_end.size, sizeof label_buf));
  // Formatted into a fmt buffer (appending to a std::string through fmt is slower) and then
  // appended.
  fmt::memory_buffer b;
  auto to = fmt::appender(b);
  if (variant_ == "A" && !op.bytes) {
    fmt::format_to(to, FMT_COMPILE("  {:<17}{{ samples: {:>11}, unit:  reqs }}\n"), label, x.samples);
  } else if (variant_ == "A") {
    fmt::format_to(to, FMT_COMPILE("  {:<17}{{ samples: {:>11}, unit: bytes, min:{:>8}, max:{:>8}, sum:{:>16} }}\n"),
                   label, x.samples, x.min, x.max, x.sum);
  } else {
    const char* sp = variant_ == "B" ? "" : " ";
    fmt::format_to(
        to, FMT_COMPILE("  {:<17}{{ samples: {:>11}, unit: {}, min:{}{:>8}, max:{}{:>8}, sum:{}{:>16}, sumsq: {:>18}"),
        label, x.samples, op.bytes ? "bytes" : "usecs", sp, x.min, sp, x.max, sp, x.sum, x.sumsq);
    if (op.bytes && (variant_ == "E2" || variant_ == "F")) {
      fmt::format_to(to, ", hist: {{");
      AppendHistogram(b, x);
      fmt::format_to(to, " }}");
    }
    fmt::format_to(to, " }}\n");
  }
  out.append(b.data(), b.size());
}

}  // namespace xtfq
