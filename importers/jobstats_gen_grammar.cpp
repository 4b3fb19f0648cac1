#include "importers/jobstats_gen_grammar.h"

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
std::string Histogram(const JobStatsGenGrammar::Counter& counter) {
  std::string h;
  for (const auto& [l2, n] : counter.hist) h += fmt::format("{}{}: {}", h.empty() ? " " : ", ", SizeLabel(l2), n);
  return h;
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

std::string JobStatsGenGrammar::Entry(const std::string& id, const EntryTimes& times, const std::vector<Op>& ops,
                                      const std::vector<Counter>& counters) const {
  std::string out = fmt::format("- job_id:          {}\n", Id(id));
  out += TimeLines(times);
  for (size_t i = 0; i < ops.size(); ++i) out += CounterLine(ops[i], counters[i]);
  return out;
}

std::string JobStatsGenGrammar::Target(const std::string& param, const std::string& body) const {
  if (!body.empty()) return fmt::format("{}=\njob_stats:\n{}", param, body);
  return variant_ == "F" ? fmt::format("{}=\n", param) : fmt::format("{}=job_stats:\n", param);
}

std::string JobStatsGenGrammar::FileName(const std::string& dir, uint32_t server, int64_t collected) const {
  if (variant_ != "D") return fmt::format("{}/server{}-{}.txt", dir, server, collected);
  std::time_t tt = collected;
  std::tm tm{};
  gmtime_r(&tt, &tm);
  return fmt::format("{}/server{}-{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z.txt", dir, server, tm.tm_year + 1900,
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

std::string JobStatsGenGrammar::CounterLine(const Op& op, const Counter& x) const {
  const std::string label = fmt::format("{}:", op.name);
  if (variant_ == "A" && !op.bytes)
    return fmt::format("  {:<17}{{ samples: {:>11}, unit:  reqs }}\n", label, x.samples);
  if (variant_ == "A") {
    return fmt::format("  {:<17}{{ samples: {:>11}, unit: bytes, min:{:>8}, max:{:>8}, sum:{:>16} }}\n", label,
                       x.samples, x.min, x.max, x.sum);
  }
  const char* sp = variant_ == "B" ? "" : " ";
  std::string line =
      fmt::format("  {:<17}{{ samples: {:>11}, unit: {}, min:{}{:>8}, max:{}{:>8}, sum:{}{:>16}, sumsq: {:>18}", label,
                  x.samples, op.bytes ? "bytes" : "usecs", sp, x.min, sp, x.max, sp, x.sum, x.sumsq);
  if (op.bytes && (variant_ == "E2" || variant_ == "F")) line += fmt::format(", hist: {{{} }}", Histogram(x));
  return line + " }\n";
}

}  // namespace xtfq
