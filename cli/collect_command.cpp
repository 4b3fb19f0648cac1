#include "cli/collect_command.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <span>
#include <thread>

#include "importers/jobstats/jobid_classifier.h"
#include "importers/jobstats/jobstats_parser.h"
#include "store/file.h"
#include "store/posix_file.h"

namespace xtfq::cli {

CLI::App* CollectCommand::Register(CLI::App& parent) {
  CLI::App* app =
      parent.add_subcommand("collect", "Collect job_stats snapshots every interval (the monitoring daemon)");
  app->add_option("--interval", interval_, "seconds between collections (at least 1; collections are whole seconds)");
  app->add_option("--out", out_, "directory for the snapshots (created)")->required();
  app->add_option("--count", count_, "collections to make (default: until stopped)");
  app->add_option("--store", store_, "also append each snapshot to this store (created if absent)");
  app->add_option("--name", name_, "file name prefix (default: the host name); one collector per --out and --name");
  app->add_option("--target", target_, "the target, when COMMAND prints a plain job_stats file");
  app->add_option("--jobid-name", jobid_names_,
                  "jobid_name templates for --store (default '%j:%u:%H', '%e.%u' and '%j', a bare job id)");
  app->add_option("COMMAND", command_,
                  "command after '--' (default: lctl get_param mdt.*.job_stats obdfilter.*.job_stats)");
  return app;
}

namespace {
std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs the command and returns its standard output; an error when it cannot run or fails.
Result<std::string> Capture(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + Quote(a);
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return Error(ErrorCode::kIo, fmt::format("cannot run {}", cmd));
  std::string out;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int rc = ::pclose(p);
  if (rc != 0) {
    return Error(ErrorCode::kIo,
                 fmt::format("{} failed ({})", cmd,
                             WIFEXITED(rc) ? fmt::format("exit {}", WEXITSTATUS(rc)) : std::string("killed")));
  }
  return out;
}

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// "a" or "a to b" for a run of file names.
std::string Span(const std::vector<std::string>& paths) {
  if (paths.empty()) return "";
  return paths.size() == 1 ? paths.front() : fmt::format("{} to {}", paths.front(), paths.back());
}
}  // namespace

bool CollectCommand::NotJobStats(const std::string& path) const {
  auto file = PosixFile::Open(path, PosixFile::Mode::kRead);
  if (!file.ok()) return false;
  auto targets = JobStatsParser::Targets(**file, target_);
  if (!targets.ok() || !targets->empty()) return false;
  auto size = (*file)->Size();
  if (!size.ok()) return false;
  std::string text(*size, '\0');
  if (!ReadExact(**file, 0, std::as_writable_bytes(std::span(text))).ok()) return false;
  // Any line that is not blank and not a comment ("# collected_at: ...").
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string_view line = std::string_view(text).substr(at, end - at);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos && !line.starts_with("#")) return true;
    at = end + 1;
  }
  return false;
}

bool CollectCommand::AppendToStore(SnapshotDirectory& dir, const CollectStore& store,
                                   const std::optional<SnapshotDirectory::Snapshot>& fresh) {
  bool not_job_stats = false;  // the fresh snapshot: lines read, none of them job_stats
  std::vector<SnapshotDirectory::Snapshot> todo;
  if (rescan_) {
    auto all = dir.List();
    if (!all.ok()) {
      fmt::print(stderr, "xtfq collect: {}; the snapshots wait for the next collection\n", all.error().message());
      return false;
    }
    todo = std::move(*all);
  } else if (fresh) {
    todo.push_back(*fresh);
  }
  CollectAppend r = store.Append(std::move(todo));
  for (const CollectAppend::Done& d : r.done) {
    const bool earlier = !fresh || d.snapshot.path != fresh->path;
    // The newest snapshot of the store is noted once, not at every search of the directory.
    if (noted_.insert(d.snapshot.path).second) {
      for (const std::string& n : d.notes) fmt::print(stderr, "collect: note: {}\n", n);
    }
    for (const std::string& x : d.warnings) fmt::print(stderr, "xtfq collect: warning: {}\n", x);
    if (d.appended) {
      fmt::print(stderr, "collect: {} ({} entries, {} rate steps{}) -> {} generation {}\n", d.snapshot.path, d.entries,
                 d.steps, earlier ? "; written earlier, not in the store until now" : "", store.path(), d.generation);
    } else {
      // Lines, none of them job_stats (the command printed something else, such as another
      // parameter): a failed collection. An empty output is a server whose targets hold no entry
      // (Lustre 2.17 prints nothing then), and a snapshot whose targets are held is noted.
      const bool other = fresh && d.snapshot.path == fresh->path && NotJobStats(d.snapshot.path);
      not_job_stats = not_job_stats || other;
      if (other) {
        fmt::print(stderr,
                   "xtfq collect: {} (lines, and none of them job_stats: the command's output is not a snapshot; "
                   "nothing for {})\n",
                   d.snapshot.path, store.path());
      } else if (d.notes.empty()) {
        fmt::print(stderr, "collect: {} (no target in it: nothing for {})\n", d.snapshot.path, store.path());
      }
    }
    unstored_.erase(d.snapshot.path);
  }
  for (const SnapshotDirectory::Snapshot& s : r.behind) {
    // Older than the store's newest collection: in the store already, unless this run wrote it
    // and another writer committed newer collections before this one could go in.
    if (unstored_.erase(s.path) != 0) {
      fmt::print(stderr,
                 "xtfq collect: warning: {} (collected at {}) cannot go into {} any more: another writer added newer "
                 "collections first (a store is append-only in time); the file stays in {}\n",
                 s.path, s.time, store.path(), dir.dir());
    }
  }
  rescan_ = r.stopped.has_value();
  if (r.stopped) {
    // Those this run wrote are named; older ones are not known to be outside the store.
    std::vector<std::string> waiting;
    for (const SnapshotDirectory::Snapshot& s : r.waiting) {
      if (unstored_.count(s.path) != 0) waiting.push_back(s.path);
    }
    if (waiting.empty()) {
      fmt::print(stderr,
                 "xtfq collect: {}; the snapshots of {} not in the store yet go into the store at the next "
                 "collection\n",
                 r.stopped->message(), dir.dir());
    } else {
      fmt::print(stderr, "xtfq collect: {}; {} {} in {} and {} into the store at the next collection\n",
                 r.stopped->message(), Span(waiting), waiting.size() == 1 ? "stays" : "stay", dir.dir(),
                 waiting.size() == 1 ? "goes" : "go");
    }
  }
  return not_job_stats;
}

int CollectCommand::Run() {
  if (!(interval_ >= 1)) {
    return Fail("collect", Error(ErrorCode::kUsage, fmt::format("--interval {}: collections are timed in whole seconds "
                                                                "(the store keeps whole seconds); give 1 or more",
                                                                interval_)));
  }
  if (interval_ > 86400) {
    return Fail("collect", Error(ErrorCode::kUsage, fmt::format("--interval {}: at most 86400 (a day)", interval_)));
  }
  if (auto c = JobIdClassifier::Make(jobid_names_); !c.ok()) {
    return Fail("collect", Error(ErrorCode::kUsage, c.error().message()));
  }
  if (command_.empty()) command_ = {"lctl", "get_param", "mdt.*.job_stats", "obdfilter.*.job_stats"};
  if (name_.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    name_ = host[0] != '\0' ? host : "jobstats";
  }
  auto opened = SnapshotDirectory::Open(out_, name_);
  if (!opened.ok()) return Fail("collect", opened.error());
  SnapshotDirectory& dir = **opened;
  if (dir.lock_warning()) fmt::print(stderr, "xtfq collect: warning: {}\n", *dir.lock_warning());
  if (!dir.stale_removed().empty()) {
    fmt::print(stderr, "collect: removed {} unfinished snapshot file{} a stopped collector left: {}\n",
               dir.stale_removed().size(), dir.stale_removed().size() == 1 ? "" : "s", Span(dir.stale_removed()));
  }
  std::optional<CollectStore> store;
  if (!store_.empty()) {
    ImportOptions o;
    o.jobid_names = jobid_names_, o.target = target_;
    // A busy store is waited for up to half an interval (at most a minute), then that collection
    // is skipped for the store.
    const auto wait = std::chrono::milliseconds(static_cast<int64_t>(std::min(interval_ / 2, 60.0) * 1000));
    store.emplace(store_, o, wait);
    AppendToStore(dir, *store, std::nullopt);  // what a previous run left outside the store
  }
  // Collections at whole seconds on the grid base + k * interval (rounded up), after the newest
  // snapshot of the directory; a grid point that passed (a collection overran) is skipped.
  int64_t base = static_cast<int64_t>(std::floor(WallSeconds())) + 1;
  if (auto all = dir.List(); all.ok() && !all->empty() && all->back().time >= base) {
    // The clock went back: collection times must still increase.
    fmt::print(stderr, "collect: {} is later than the clock; the first collection waits until {}\n", all->back().path,
               all->back().time + 1);
    base = all->back().time + 1;
  }
  int64_t last = std::numeric_limits<int64_t>::min();
  uint64_t k = 0, failures = 0;
  for (uint64_t i = 0; count_ == 0 || i < count_; ++i) {
    int64_t t = 0;
    uint64_t missed = 0;
    for (;; ++k) {
      t = base + static_cast<int64_t>(std::ceil(static_cast<double>(k) * interval_ - 1e-9));
      if (t <= last) continue;
      if (t + 0.5 >= WallSeconds()) break;  // the read starts within half a second of t
      ++missed;
    }
    ++k;
    if (missed > 0) {
      fmt::print(stderr, "collect: {} collection{} missed: the previous one ended after {} time{}\n", missed,
                 missed == 1 ? "" : "s", missed == 1 ? "its" : "their", missed == 1 ? "" : "s");
    }
    std::this_thread::sleep_until(std::chrono::system_clock::time_point(std::chrono::seconds(t)));
    last = t;
    auto text = Capture(command_);
    if (!text.ok()) {
      fmt::print(stderr, "xtfq collect: {}; collection skipped\n", text.error().message());
      ++failures;
      continue;
    }
    const std::string body = fmt::format("# collected_at: {}\n{}", t, *text);
    auto path = dir.Publish(t, body);
    if (!path.ok()) {
      fmt::print(stderr, "xtfq collect: {}; collection skipped\n", path.error().message());
      ++failures;
      continue;
    }
    if (!store) {
      fmt::print(stderr, "collect: {} ({} bytes)\n", *path, body.size());
      continue;
    }
    unstored_.insert(*path);
    if (AppendToStore(dir, *store, SnapshotDirectory::Snapshot{t, *path})) ++failures;
  }
  // A bounded run ends with what is outside the store said, and fails when nothing was collected.
  if (!unstored_.empty()) {
    const std::vector<std::string> left(unstored_.begin(), unstored_.end());
    const bool one = left.size() == 1;
    fmt::print(stderr,
               "xtfq collect: {} snapshot{} written by this run {} not in {} yet ({}); {} in {}, and the next "
               "`xtfq collect --store {}` on it imports {}\n",
               left.size(), one ? "" : "s", one ? "is" : "are", store_, Span(left), one ? "it stays" : "they stay",
               out_, store_, one ? "it" : "them");
    return kExitFailure;
  }
  return count_ != 0 && failures == count_ ? kExitFailure : kExitOk;
}

}  // namespace xtfq::cli
