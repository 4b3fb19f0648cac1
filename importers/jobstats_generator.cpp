#include "importers/jobstats_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <ctime>
#include <filesystem>
#include <map>
#include <random>

#include "layouts/jobstats_layout.h"
#include "store/posix_file.h"

namespace xtfq {

namespace {
constexpr int64_t kCleanup = 600;  // job_cleanup_interval
constexpr int64_t kBoot = 1767000000;  // since-boot clocks (variant D) count from here

struct OpDef {
  std::string_view name;
  bool bytes;
};
// Printed ops, in each variant's order (docs section 3); the generator drives a few of them.
std::vector<OpDef> OstOps(std::string_view v) {
  if (v == "A") {
    return {{"read_bytes", true}, {"write_bytes", true}, {"getattr", false}, {"setattr", false},
            {"punch", false},     {"sync", false},       {"destroy", false}, {"create", false},
            {"statfs", false},    {"get_info", false},   {"set_info", false}, {"quotactl", false}};
  }
  std::vector<OpDef> ops = {{"read_bytes", true}, {"write_bytes", true}, {"read", false},     {"write", false},
                            {"getattr", false},   {"setattr", false},    {"punch", false},    {"sync", false},
                            {"destroy", false},   {"create", false},     {"statfs", false},   {"get_info", false},
                            {"set_info", false},  {"quotactl", false},   {"prealloc", false}};
  if (v == "C") std::swap(ops[0], ops[2]), std::swap(ops[1], ops[3]);  // DDN: read, write first
  return ops;
}
std::vector<OpDef> MdtOps() {
  std::vector<OpDef> ops;
  for (std::string_view n : {"open", "close", "mknod", "link", "unlink", "mkdir", "rmdir", "rename", "getattr", "setattr",
                             "getxattr", "setxattr", "statfs", "sync", "samedir_rename", "crossdir_rename"}) {
    ops.push_back({n, false});
  }
  return ops;
}

struct Counter {
  uint64_t samples = 0, sum = 0, min = 0, max = 0, sumsq = 0;
  std::map<int, uint64_t> hist;  // log2 of the size -> count
};

struct Series {
  uint32_t target = 0;
  std::string id, cls, job, uid, node;
  uint32_t job_index = 0;
  bool present = false, purge_seen = true, reset_pending = false;
  int64_t start_time = 0, last_active = 0, last_update = 0;
  std::vector<Counter> cum;           // per printed op of the target
  std::vector<uint64_t> pending;      // truth: value change since the last written collection
};

struct Job {
  uint32_t start = 0, end = 0;  // samples [start, end)
  int kind = 0;
  std::string id, cls, job, uid, node;
};

std::string SizeLabel(int log2) {
  static constexpr std::array<const char*, 5> kUnits = {"", "K", "M", "G", "T"};
  return fmt::format("{}{}", uint64_t{1} << (log2 % 10), kUnits[static_cast<size_t>(log2 / 10)]);
}

// The job id as the variant prints it (docs section 5.4).
std::string PrintId(const std::string& id, std::string_view v) {
  if (v == "A" || v == "B" || v == "C" || v == "D") return id;
  const bool e1 = v == "E1";
  std::string out;
  bool quote = !e1 && !id.empty() && id[0] == '@';
  for (unsigned char c : id) {
    const bool plain = std::isalnum(c) || c == '.' || c == '_' || c == '@' || c == '-' || (!e1 && (c == ':' || c == '/'));
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

Status WriteWhole(const std::string& path, const std::string& text) {
  return PosixFile::WriteAtomically(path, std::as_bytes(std::span(text)));
}

std::string Seconds(double t) {
  const auto s = static_cast<int64_t>(t);
  return fmt::format("{}.{:09d} secs.nsecs", s, static_cast<int64_t>((t - static_cast<double>(s)) * 1e9));
}
}  // namespace

bool JobStatsGenerator::KnownVariant(std::string_view v) {
  for (std::string_view k : {"A", "B", "C", "D", "E1", "E2", "F"}) {
    if (k == v) return true;
  }
  return false;
}

Result<JobStatsGenStats> JobStatsGenerator::Write(const JobStatsGenOptions& o, const std::string& dir) {
  if (!KnownVariant(o.variant)) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("variant '{}' is not one of A B C D E1 E2 F", o.variant));
  }
  if (o.targets == 0 || o.samples == 0 || o.interval <= 0) {
    return Error(ErrorCode::kInvalidArgument, "targets, samples and interval must be positive");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error(ErrorCode::kIo, fmt::format("{}: cannot create: {}", dir, ec.message()));
  const std::string_view v = o.variant;
  std::mt19937_64 rng(o.seed);
  auto uniform = [&] { return std::uniform_real_distribution<double>(0, 1)(rng); };
  auto pick = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  const bool has_mdt = o.targets >= 2;
  struct Target {
    std::string name, param;
    bool mdt;
    uint32_t server;
    std::vector<OpDef> ops;
    int64_t last_written = INT64_MIN;
  };
  std::vector<Target> targets;
  uint32_t servers = 0;
  for (uint32_t g = 0; g < o.targets; ++g) {
    Target t;
    t.mdt = has_mdt && g == 0;
    const uint32_t ost = g - (has_mdt ? 1 : 0);
    t.name = t.mdt ? fmt::format("{}-MDT0000", o.fs) : fmt::format("{}-OST{:04x}", o.fs, ost);
    t.param = fmt::format("{}.{}.job_stats", t.mdt ? "mdt" : "obdfilter", t.name);
    t.server = t.mdt ? 0 : (has_mdt ? 1 : 0) + ost / 4;
    t.ops = t.mdt ? MdtOps() : OstOps(v);
    servers = std::max(servers, t.server + 1);
    targets.push_back(std::move(t));
  }
  // Jobs and the entries they make: one per target they touch.
  static constexpr std::array<const char*, 5> kExes = {"cp", "rsync", "tar", "python3", "dd"};
  std::vector<Job> jobs(o.jobs);
  std::vector<Series> series;
  JobStatsGenStats st;
  for (uint32_t j = 0; j < o.jobs; ++j) {
    Job& job = jobs[j];
    job.start = static_cast<uint32_t>(pick(o.samples));
    job.end = std::min<uint32_t>(o.samples, job.start + 2 + static_cast<uint32_t>(pick(o.samples / 2 + 2)));
    job.kind = static_cast<int>(j % 20);
    const uint64_t number = 4000000 + j * 7;
    const uint64_t uid = 1000 + pick(200);
    const std::string node = fmt::format("c{:04d}", pick(2000));
    switch (job.kind) {
      case 0:
        job.id = fmt::format("{}.{}", kExes[pick(kExes.size())], uid), job.cls = "ok", job.uid = std::to_string(uid);
        break;
      case 1:
        job.id = fmt::format("{}.0", kExes[pick(kExes.size())]), job.cls = "system_uid", job.uid = "0";
        break;
      case 2:
        job.id = fmt::format(":{}:{}", uid, node), job.cls = "missing_job", job.uid = std::to_string(uid), job.node = node;
        break;
      case 3:
        job.id = fmt::format("{}:{}:{}.bullx", number, uid, node), job.cls = "fqdn", job.job = std::to_string(number);
        job.uid = std::to_string(uid), job.node = node;
        break;
      case 4:
        // Cut at 31 bytes inside the host name: the job and uid still parse, the node is r07c42.
        job.id = fmt::format("{}:{}:r07c42.compute.puhti.csc.fi", number, uid).substr(0, 31), job.cls = "truncated";
        job.job = std::to_string(number), job.uid = std::to_string(uid), job.node = "r07c42";
        break;
      default:
        job.id = fmt::format("{}:{}:{}", number, uid, node), job.cls = "ok", job.job = std::to_string(number);
        job.uid = std::to_string(uid), job.node = node;
    }
    if (job.cls != "truncated" && uniform() < o.malformed_rate) {
      // Characters overwritten (the jobid-fill race): the uid's last digit becomes a letter.
      // ("exe.uid", ":uid:node" or "job:uid:node")
      const size_t at = job.kind <= 1 ? job.id.size() - 1 : job.id.find(':', job.kind == 2 ? 1 : job.id.find(':') + 1) - 1;
      job.id[at] = 'x';
      job.cls = job.id.size() == 31 ? "truncated" : "malformed";
      job.job.clear(), job.uid.clear(), job.node.clear();
    }
    // Targets: the MDT, and one to four OSTs.
    std::vector<uint32_t> on;
    if (has_mdt) on.push_back(0);
    const uint32_t osts = o.targets - (has_mdt ? 1 : 0);
    const uint32_t k = 1 + static_cast<uint32_t>(pick(std::min<uint32_t>(osts, 4)));
    for (uint32_t i = 0; i < k; ++i) {
      const uint32_t g = (has_mdt ? 1 : 0) + static_cast<uint32_t>((j + i * 7) % osts);
      if (std::find(on.begin(), on.end(), g) == on.end()) on.push_back(g);
    }
    for (uint32_t g : on) {
      // Two jobs may print the same id on a target (same login exe and uid): one series.
      Series s;
      s.target = g, s.id = job.id, s.cls = job.cls, s.job = job.job, s.uid = job.uid, s.node = job.node, s.job_index = j;
      s.cum.resize(targets[g].ops.size()), s.pending.resize(targets[g].ops.size());
      series.push_back(std::move(s));
    }
  }
  // One series per (target, id): later duplicates of an id are dropped with their job's load.
  {
    std::map<std::pair<uint32_t, std::string>, size_t> seen;
    std::vector<Series> unique;
    for (Series& s : series) {
      if (seen.emplace(std::pair{s.target, s.id}, unique.size()).second) unique.push_back(std::move(s));
    }
    series = std::move(unique);
  }
  st.series = series.size();
  std::string truth = "target,id,op,t0,t1,delta\n";
  std::vector<char> written(servers, 1), written_before(servers, 1);
  for (uint32_t k = 0; k < o.samples; ++k) {
    const int64_t base_t = o.start + static_cast<int64_t>(k) * o.interval;
    written_before = written;
    for (uint32_t sv = 0; sv < servers; ++sv) written[sv] = k == 0 || uniform() >= o.missing_rate ? 1 : 0;
    // Activity in (c_{k-1}, c_k].
    for (Series& s : series) {
      const Target& tg = targets[s.target];
      const Job& job = jobs[s.job_index];
      const int64_t c = base_t + tg.server, prev_c = c - o.interval;
      bool active = k > 0 && k >= job.start && k < job.end && uniform() < 0.8;
      if (active && !s.present && !s.purge_seen) active = false;  // purged, and no written dump showed it yet
      const bool can_reset = s.present && k > 0 && written_before[tg.server] && written[tg.server];
      if (can_reset && uniform() < o.reset_rate) {
        // Cleared at the start of the interval; a reader without start_time sees it only if every
        // counter goes down, so the activity after it stays below what was last written.
        for (Counter& c0 : s.cum) c0 = Counter{};
        s.start_time = prev_c + 1, s.reset_pending = true;
        ++st.resets;
      }
      if (active) {
        if (!s.present) {
          s.present = true, s.cum.assign(tg.ops.size(), Counter{}), s.start_time = prev_c + 1 + static_cast<int64_t>(pick(static_cast<uint64_t>(o.interval - 1)));
        }
        s.last_active = c, s.last_update = c - static_cast<int64_t>(pick(static_cast<uint64_t>(o.interval / 2)));
        for (size_t i = 0; i < tg.ops.size(); ++i) {
          const std::string_view n = tg.ops[i].name;
          const bool driven = tg.mdt ? (n == "open" || n == "close" || n == "getattr" || n == "unlink" || n == "mkdir")
                                     : (n == "write_bytes" || n == "read_bytes" || n == "punch" || n == "getattr" ||
                                        n == "read" || n == "write");
          if (!driven || uniform() < 0.3) continue;
          uint64_t count = 1 + pick(n.ends_with("_bytes") ? 400 : 50);
          if (s.reset_pending && o.variant != "D" && o.variant != "E1" && o.variant != "E2" && o.variant != "F") count = 0;
          Counter& c0 = s.cum[i];
          uint64_t added = 0;
          for (uint64_t e = 0; e < count; ++e) {
            const int log2 = 12 + static_cast<int>(pick(13));  // 4 KiB to 16 MiB
            const uint64_t x = tg.ops[i].bytes ? uint64_t{1} << log2 : 5 + pick(2000);
            c0.min = c0.samples == 0 ? x : std::min(c0.min, x), c0.max = std::max(c0.max, x);
            c0.samples += 1, c0.sum += x, c0.sumsq += x * x;  // wraps, as Lustre's does
            if (tg.ops[i].bytes) ++c0.hist[log2];
            added += tg.ops[i].bytes ? x : 1;
          }
          s.pending[i] += added;
        }
      } else if (s.present && c - s.last_active >= kCleanup) {
        s.present = false, s.purge_seen = false;
        ++st.purges;
      }
    }
    // The dumps of the servers collected this time.
    std::vector<std::string> files(servers);
    for (uint32_t g = 0; g < o.targets; ++g) {
      Target& tg = targets[g];
      const int64_t c = base_t + tg.server;
      if (!written[tg.server]) continue;
      std::string& out = files[tg.server];
      bool any = false;
      std::string body;
      for (Series& s : series) {
        if (s.target != g) continue;
        if (!s.present) {
          s.purge_seen = true;
          continue;
        }
        any = true;
        ++st.entries;
        body += fmt::format("- job_id:          {}\n", PrintId(s.id, v));
        if (v == "D") {
          body += fmt::format("snapshot_time   : {}\nstart_time      : {}\nelapsed_time    : {}\n",
                              Seconds(static_cast<double>(s.last_update - kBoot) + 0.25),
                              Seconds(static_cast<double>(s.start_time - kBoot) + 0.5),
                              Seconds(static_cast<double>(c - s.start_time) - 0.25));
        } else if (v == "E1" || v == "E2" || v == "F") {
          body += fmt::format("  snapshot_time:   {}\n  start_time:      {}\n  elapsed_time:    {}\n",
                              Seconds(static_cast<double>(s.last_update) + 0.25), Seconds(static_cast<double>(s.start_time) + 0.5),
                              Seconds(static_cast<double>(c - s.start_time) - 0.25));
        } else {
          body += fmt::format("  snapshot_time:   {}\n", s.last_update);
        }
        for (size_t i = 0; i < tg.ops.size(); ++i) {
          const Counter& x = s.cum[i];
          const OpDef& op = tg.ops[i];
          const std::string label = fmt::format("{}:", op.name);
          if (v == "A" && !op.bytes) {
            body += fmt::format("  {:<17}{{ samples: {:>11}, unit:  reqs }}\n", label, x.samples);
          } else if (v == "A") {
            body += fmt::format("  {:<17}{{ samples: {:>11}, unit: bytes, min:{:>8}, max:{:>8}, sum:{:>16} }}\n", label,
                                x.samples, x.min, x.max, x.sum);
          } else {
            const char* sp = v == "B" ? "" : " ";
            std::string line = fmt::format("  {:<17}{{ samples: {:>11}, unit: {}, min:{}{:>8}, max:{}{:>8}, sum:{}{:>16}, sumsq: {:>18}",
                                           label, x.samples, op.bytes ? "bytes" : "usecs", sp, x.min, sp, x.max, sp, x.sum, x.sumsq);
            if (op.bytes && (v == "E2" || v == "F")) {
              std::string h;
              for (const auto& [l2, n] : x.hist) h += fmt::format("{}{}: {}", h.empty() ? " " : ", ", SizeLabel(l2), n);
              line += fmt::format(", hist: {{{} }}", h);
            }
            body += line + " }\n";
          }
        }
      }
      if (any) {
        out += fmt::format("{}=\njob_stats:\n{}", tg.param, body);
      } else {
        out += v == "F" ? fmt::format("{}=\n", tg.param) : fmt::format("{}=job_stats:\n", tg.param);
      }
      // Truth: the steps this collection reveals against the target's previous written one.
      for (Series& s : series) {
        if (s.target != g) continue;
        if (s.present && tg.last_written != INT64_MIN) {
          for (size_t i = 0; i < tg.ops.size(); ++i) {
            if (s.pending[i] == 0) continue;
            truth += fmt::format("{},{},{},{},{},{}\n", tg.name, s.id, tg.ops[i].name, tg.last_written, c, s.pending[i]);
            ++st.steps;
          }
        }
        std::fill(s.pending.begin(), s.pending.end(), 0);
        s.reset_pending = false;
      }
      tg.last_written = c;
    }
    for (uint32_t sv = 0; sv < servers; ++sv) {
      const int64_t c = base_t + sv;
      if (!written[sv]) {
        ++st.missed;
        continue;
      }
      std::string name;
      if (v == "D") {
        std::time_t tt = c;
        std::tm tm{};
        gmtime_r(&tt, &tm);
        name = fmt::format("{}/server{}-{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z.txt", dir, sv, tm.tm_year + 1900, tm.tm_mon + 1,
                           tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
      } else {
        name = fmt::format("{}/server{}-{}.txt", dir, sv, c);
      }
      XTFQ_TRY(WriteWhole(name, files[sv]));
      ++st.files;
    }
  }
  std::string series_csv = "target,id,class,job,uid,node\n";
  for (const Series& s : series) {
    series_csv += fmt::format("{},{},{},{},{},{}\n", targets[s.target].name, s.id, s.cls, s.job, s.uid, s.node);
  }
  for (const auto& [file, text] : {std::pair{std::string("truth_steps.csv"), &truth}, std::pair{std::string("truth_series.csv"), &series_csv}}) {
    XTFQ_TRY(WriteWhole(dir + "/" + file, *text));
  }
  return st;
}

}  // namespace xtfq
