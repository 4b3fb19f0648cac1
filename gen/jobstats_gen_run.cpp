#include "gen/jobstats_gen_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <span>
#include <utility>

namespace xtfq {

namespace {
constexpr int64_t kCleanup = 600;  // job_cleanup_interval
constexpr std::array<const char*, 5> kExes = {"cp", "rsync", "tar", "python3", "dd"};
constexpr int kMinLog2 = 12, kSizeClasses = 13;  // transfers of 4 KiB to 16 MiB
}  // namespace

Result<JobStatsGenStats> JobStatsGenRun::Write(const JobStatsGenOptions& options, JobStatsGenOutput& out) {
  return JobStatsGenRun(options, out).Run();
}

JobStatsGenRun::JobStatsGenRun(const JobStatsGenOptions& options, JobStatsGenOutput& out)
    : options_(options), out_(out), grammar_(options.variant), rng_(options.seed) {}

Result<JobStatsGenStats> JobStatsGenRun::Run() {
  BuildTargets();
  DrawJobs();
  written_.assign(servers_, 1);
  written_before_.assign(servers_, 1);
  for (uint32_t k = 0; k < options_.samples; ++k) XTFQ_TRY(Collect(k));
  for (const Series& s : series_) {
    XTFQ_TRY(out_.TrueSeries({targets_[s.target].name, s.id, s.cls, s.job, s.uid, s.node}));
  }
  XTFQ_TRY(out_.Finish());
  return stats_;
}

double JobStatsGenRun::Uniform() { return std::uniform_real_distribution<double>(0, 1)(rng_); }

uint64_t JobStatsGenRun::Pick(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_); }

// Target 0 is the MDT when there are two or more targets, the rest OSTs, four per server.
void JobStatsGenRun::BuildTargets() {
  const bool has_mdt = HasMdt();
  for (uint32_t g = 0; g < options_.targets; ++g) {
    Target t;
    t.mdt = has_mdt && g == 0;
    const uint32_t ost = g - (has_mdt ? 1 : 0);
    t.name = t.mdt ? fmt::format("{}-MDT0000", options_.fs) : fmt::format("{}-OST{:04x}", options_.fs, ost);
    t.param = fmt::format("{}.{}.job_stats", t.mdt ? "mdt" : "obdfilter", t.name);
    t.server = t.mdt ? 0 : (has_mdt ? 1 : 0) + ost / 4;
    t.ops = grammar_.Ops(t.mdt);
    servers_ = std::max(servers_, t.server + 1);
    targets_.push_back(std::move(t));
  }
}

// Jobs and the entries they make: one per target they touch.
void JobStatsGenRun::DrawJobs() {
  jobs_.reserve(options_.jobs);
  for (uint32_t j = 0; j < options_.jobs; ++j) {
    jobs_.push_back(DrawJob(j));
    AddSeries(j, DrawJobTargets(j));
  }
  DropDuplicateSeries();
  stats_.series = series_.size();
  of_target_.assign(targets_.size(), {});
  for (uint32_t i = 0; i < series_.size(); ++i) of_target_[series_[i].target].push_back(i);
}

JobStatsGenRun::Job JobStatsGenRun::DrawJob(uint32_t j) {
  Job job;
  if (options_.dense) {
    job.start = 0, job.end = options_.samples;
  } else {
    job.start = static_cast<uint32_t>(Pick(options_.samples));
    job.end =
        std::min<uint32_t>(options_.samples, job.start + 2 + static_cast<uint32_t>(Pick(options_.samples / 2 + 2)));
  }
  job.kind = static_cast<int>(j % 20);
  const uint64_t uid = 1000 + Pick(200);
  const std::string node = fmt::format("c{:04d}", Pick(2000));
  NameJob(job, j, uid, node);
  if (job.cls != "truncated" && Uniform() < options_.malformed_rate) Malform(job);
  return job;
}

// The id the job prints and what an exact reader makes of it: compute entries "%j:%u:%H", login
// and system entries "%e.%u" (uid 0 for daemons), a missing job, an FQDN node, an id cut at 31
// bytes.
void JobStatsGenRun::NameJob(Job& job, uint32_t j, uint64_t uid, const std::string& node) {
  const uint64_t number = 4000000 + j * 7;
  switch (job.kind) {
    case 0:
      job.id = fmt::format("{}.{}", kExes[Pick(kExes.size())], uid), job.cls = "ok", job.uid = std::to_string(uid);
      break;
    case 1:
      job.id = fmt::format("{}.0", kExes[Pick(kExes.size())]), job.cls = "system_uid", job.uid = "0";
      break;
    case 2:
      job.id = fmt::format(":{}:{}", uid, node), job.cls = "missing_job", job.uid = std::to_string(uid),
      job.node = node;
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
}

// Characters overwritten (the jobid-fill race): the uid's last digit becomes a letter
// ("exe.uid", ":uid:node" or "job:uid:node").
void JobStatsGenRun::Malform(Job& job) {
  const size_t at = job.kind <= 1 ? job.id.size() - 1 : job.id.find(':', job.kind == 2 ? 1 : job.id.find(':') + 1) - 1;
  job.id[at] = 'x';
  job.cls = job.id.size() == 31 ? "truncated" : "malformed";
  job.job.clear(), job.uid.clear(), job.node.clear();
}

// The targets job j touches: the MDT, and one to four OSTs; every target when dense.
std::vector<uint32_t> JobStatsGenRun::DrawJobTargets(uint32_t j) {
  const bool has_mdt = HasMdt();
  std::vector<uint32_t> on;
  if (options_.dense) {
    for (uint32_t g = 0; g < options_.targets; ++g) on.push_back(g);
    return on;
  }
  if (has_mdt) on.push_back(0);
  const uint32_t osts = options_.targets - (has_mdt ? 1 : 0);
  const uint32_t k = 1 + static_cast<uint32_t>(Pick(std::min<uint32_t>(osts, 4)));
  for (uint32_t i = 0; i < k; ++i) {
    const uint32_t g = (has_mdt ? 1 : 0) + static_cast<uint32_t>((j + i * 7) % osts);
    if (std::find(on.begin(), on.end(), g) == on.end()) on.push_back(g);
  }
  return on;
}

void JobStatsGenRun::AddSeries(uint32_t j, const std::vector<uint32_t>& on) {
  const Job& job = jobs_[j];
  for (uint32_t g : on) {
    Series s;
    s.target = g, s.id = job.id, s.cls = job.cls, s.job = job.job, s.uid = job.uid, s.node = job.node, s.job_index = j;
    s.cum.resize(targets_[g].ops.size()), s.pending.resize(targets_[g].ops.size());
    series_.push_back(std::move(s));
  }
}

// Two jobs may print the same id on a target (same login exe and uid): one series per (target,
// id), and later duplicates of an id are dropped with their job's load (invariant 1).
void JobStatsGenRun::DropDuplicateSeries() {
  std::map<std::pair<uint32_t, std::string>, size_t> seen;
  std::vector<Series> unique;
  for (Series& s : series_) {
    if (seen.emplace(std::pair{s.target, s.id}, unique.size()).second) unique.push_back(std::move(s));
  }
  series_ = std::move(unique);
}

// Collection k: the activity in (c_{k-1}, c_k], then the snapshots of the servers collected and
// the steps they reveal. A server's collection time is base_t + its number.
Status JobStatsGenRun::Collect(uint32_t k) {
  const int64_t base_t = options_.start + static_cast<int64_t>(k) * options_.interval;
  DrawCollectedServers(k);
  for (Series& s : series_) DrawActivity(s, k, base_t);
  // A server's targets are consecutive: its snapshot is given out after its last one, so one
  // server's text is held at a time.
  std::string text;
  for (uint32_t g = 0; g < options_.targets; ++g) {
    const uint32_t server = targets_[g].server;
    if (written_[server]) {
      const int64_t c = base_t + server;
      RenderTarget(g, c, text);
      XTFQ_TRY(RecordSteps(g, c));
      targets_[g].last_written = c;
    }
    if (g + 1 < options_.targets && targets_[g + 1].server == server) continue;
    if (!written_[server]) {
      ++stats_.missed;
      continue;
    }
    XTFQ_TRY(out_.Snapshot(grammar_.FileName(server, base_t + server), base_t + server, std::move(text)));
    text.clear();
    ++stats_.files;
  }
  return Ok();
}

void JobStatsGenRun::DrawCollectedServers(uint32_t k) {
  written_before_ = written_;
  for (uint32_t sv = 0; sv < servers_; ++sv) written_[sv] = k == 0 || Uniform() >= options_.missing_rate ? 1 : 0;
}

void JobStatsGenRun::DrawActivity(Series& s, uint32_t k, int64_t base_t) {
  const int64_t c = base_t + targets_[s.target].server, prev_c = c - options_.interval;
  const bool active = DrawActive(s, k);
  DrawReset(s, k, prev_c);
  if (active) {
    DrawUpdate(s, c, prev_c);
  } else {
    PurgeIfIdle(s, c);
  }
}

// Active at collection k: inside its job's samples, 80% of the time, and not purged unseen
// (invariant 3).
bool JobStatsGenRun::DrawActive(const Series& s, uint32_t k) {
  const Job& job = jobs_[s.job_index];
  const bool active = k > 0 && k >= job.start && k < job.end && Uniform() < 0.8;
  return active && (s.present || s.purge_seen);
}

// Cleared at the start of the interval, and only where a reader can see it: a reader without
// start_time sees it only if every counter goes down, so the activity after it stays below what
// was last written (DrawOpActivity).
void JobStatsGenRun::DrawReset(Series& s, uint32_t k, int64_t prev_c) {
  const uint32_t server = targets_[s.target].server;
  const bool can_reset = s.present && k > 0 && written_before_[server] && written_[server];
  if (!can_reset || Uniform() >= options_.reset_rate) return;
  for (Counter& counter : s.cum) counter = Counter{};
  s.start_time = prev_c + 1, s.reset_pending = true;
  ++stats_.resets;
}

// An active series: (re)created if absent, updated, and its driven ops moved.
void JobStatsGenRun::DrawUpdate(Series& s, int64_t c, int64_t prev_c) {
  const Target& tg = targets_[s.target];
  if (!s.present) {
    s.present = true, s.cum.assign(tg.ops.size(), Counter{});
    s.start_time = prev_c + 1 + static_cast<int64_t>(Pick(static_cast<uint64_t>(options_.interval - 1)));
  }
  s.last_active = c, s.last_update = c - static_cast<int64_t>(Pick(static_cast<uint64_t>(options_.interval / 2)));
  for (size_t i = 0; i < tg.ops.size(); ++i) DrawOpActivity(s, i);
}

// A driven op moves 70% of the time: 1-400 transfers of 4 KiB to 16 MiB, or 1-50 events.
void JobStatsGenRun::DrawOpActivity(Series& s, size_t i) {
  const Op& op = targets_[s.target].ops[i];
  if (!Driven(targets_[s.target], op.name) || Uniform() < 0.3) return;
  uint64_t count = 1 + Pick(op.name.ends_with("_bytes") ? 400 : 50);
  if (s.reset_pending && !grammar_.PrintsStartTime()) count = 0;
  if (op.bytes) {
    s.pending[i] += DrawTransfers(count, s.cum[i]);
    return;
  }
  for (uint64_t e = 0; e < count; ++e) DrawEvent(s.cum[i]);
  s.pending[i] += count;
}

// `count` transfers into a bytes counter: each one's size class drawn as DrawEvent draws it, and
// the counter updated once per class (the same values: its sums wrap alike in any order); returns
// their bytes.
uint64_t JobStatsGenRun::DrawTransfers(uint64_t count, Counter& counter) {
  std::array<uint64_t, kSizeClasses> in_class{};
  for (uint64_t e = 0; e < count; ++e) ++in_class[Pick(kSizeClasses)];
  uint64_t added = 0;
  for (int c = 0; c < kSizeClasses; ++c) {
    const uint64_t n = in_class[static_cast<size_t>(c)];
    if (n == 0) continue;
    const int log2 = kMinLog2 + c;
    const uint64_t x = uint64_t{1} << log2;
    counter.min = counter.samples == 0 ? x : std::min(counter.min, x), counter.max = std::max(counter.max, x);
    counter.samples += n, counter.sum += n * x, counter.sumsq += n * x * x;  // wraps, as Lustre's does
    counter.hist[log2] += n;
    added += n * x;
  }
  return added;
}

// One event into an events counter. A size class is drawn for it too and not used: every event
// draws one, which keeps the files of a seed what they were.
void JobStatsGenRun::DrawEvent(Counter& counter) {
  Pick(kSizeClasses);
  const uint64_t x = 5 + Pick(2000);
  counter.min = counter.samples == 0 ? x : std::min(counter.min, x), counter.max = std::max(counter.max, x);
  counter.samples += 1, counter.sum += x, counter.sumsq += x * x;  // wraps, as Lustre's does
}

// An entry idle for job_cleanup_interval is purged.
void JobStatsGenRun::PurgeIfIdle(Series& s, int64_t c) {
  if (!s.present || c - s.last_active < kCleanup) return;
  s.present = false, s.purge_seen = false;
  ++stats_.purges;
}

bool JobStatsGenRun::Driven(const Target& target, std::string_view n) {
  if (target.mdt) return n == "open" || n == "close" || n == "getattr" || n == "unlink" || n == "mkdir";
  return n == "write_bytes" || n == "read_bytes" || n == "punch" || n == "getattr" || n == "read" || n == "write";
}

// Appends target g's part of the snapshot collected at c to text; marks its absent series as seen
// gone.
void JobStatsGenRun::RenderTarget(uint32_t g, int64_t c, std::string& text) {
  const Target& tg = targets_[g];
  std::string& body = body_;
  body.clear();
  for (uint32_t i : of_target_[g]) {
    Series& s = series_[i];
    if (!s.present) {
      s.purge_seen = true;
      continue;
    }
    ++stats_.entries;
    grammar_.AppendEntry(body, s.id, {.snapshot = s.last_update, .start = s.start_time, .collected = c}, tg.ops, s.cum);
  }
  grammar_.AppendTarget(text, tg.param, body);
}

// Truth: the steps the collection of target g at c reveals against its previous written one
// (invariant 2).
Status JobStatsGenRun::RecordSteps(uint32_t g, int64_t c) {
  const Target& tg = targets_[g];
  for (uint32_t k : of_target_[g]) {
    Series& s = series_[k];
    if (s.present && tg.last_written != kNotWritten) {
      for (size_t i = 0; i < tg.ops.size(); ++i) {
        if (s.pending[i] == 0) continue;
        XTFQ_TRY(out_.TrueStep({tg.name, s.id, tg.ops[i].name, tg.last_written, c, s.pending[i]}));
        ++stats_.steps;
      }
    }
    std::fill(s.pending.begin(), s.pending.end(), 0);
    s.reset_pending = false;
  }
  return Ok();
}

}  // namespace xtfq
