#include "cli/collect_command.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "importers/importer.h"
#include "query/store_reader.h"
#include "store/posix_file.h"
#include "store/store_writer.h"

namespace xtfq::cli {

CLI::App* CollectCommand::Register(CLI::App& parent) {
  CLI::App* app =
      parent.add_subcommand("collect", "Collect job_stats snapshots every interval (the monitoring daemon)");
  app->add_option("--interval", interval_, "seconds between collections")->check(CLI::Range(0.01, 86400.0));
  app->add_option("--out", out_, "directory for the snapshots (created)")->required();
  app->add_option("--count", count_, "collections to make (default: until stopped)");
  app->add_option("--store", store_, "also append each snapshot to this store (created if absent)");
  app->add_option("--name", name_, "file name prefix (default: the host name)");
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
  if (p == nullptr) return Error(ErrorCode::kIo, fmt::format("cannot run '{}'", cmd));
  std::string out;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int rc = ::pclose(p);
  if (rc != 0) {
    return Error(ErrorCode::kIo,
                 fmt::format("'{}' failed ({})", cmd,
                             WIFEXITED(rc) ? fmt::format("exit {}", WEXITSTATUS(rc)) : std::string("killed")));
  }
  return out;
}
}  // namespace

Result<ImportReport> CollectCommand::Import(StoreWriter& w, bool exists, const std::string& snapshot,
                                            const ImportOptions& options) const {
  std::unique_ptr<StoreReader> existing;
  if (exists) {
    XTFQ_ASSIGN_OR_RETURN(existing, StoreReader::Open(store_));
  }
  XTFQ_ASSIGN_OR_RETURN(auto importer, Importer::Make("jobstats", options));
  return importer->Import({snapshot}, w, existing.get());
}

int CollectCommand::Run() {
  namespace fs = std::filesystem;
  if (command_.empty()) command_ = {"lctl", "get_param", "mdt.*.job_stats", "obdfilter.*.job_stats"};
  if (name_.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    name_ = host[0] != '\0' ? host : "jobstats";
  }
  std::error_code ec;
  fs::create_directories(out_, ec);
  if (ec) return Fail("collect", Error(ErrorCode::kIo, fmt::format("{}: cannot create: {}", out_, ec.message())));
  using Clock = std::chrono::system_clock;
  const auto step = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_));
  auto next = Clock::now();
  uint64_t failures = 0;
  for (uint64_t i = 0; count_ == 0 || i < count_; ++i) {
    if (i > 0) {
      next += step;
      std::this_thread::sleep_until(next);
    }
    const double now = std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
    auto text = Capture(command_);
    if (!text.ok()) {
      fmt::print(stderr, "xtfq collect: {}; collection skipped\n", text.error().message());
      ++failures;
      continue;
    }
    const auto epoch = static_cast<int64_t>(now);
    const std::string path = fmt::format("{}/{}-{}.txt", out_, name_, epoch);
    const std::string body = fmt::format("# collected_at: {:.3f}\n{}", now, *text);
    Status s = PosixFile::WriteAtomically(path, std::as_bytes(std::span(body)));
    if (!s.ok()) return Fail("collect", s.error());
    if (!store_.empty()) {
      const bool exists = fs::exists(store_, ec);
      auto w = exists ? StoreWriter::OpenPath(store_) : StoreWriter::CreatePath(store_);
      if (!w.ok()) return Fail("collect", w.error());
      ImportOptions o;
      o.jobid_names = jobid_names_, o.target = target_;
      auto st = Import(**w, exists, path, o);
      s = st.ok() ? (*w)->Commit() : Status(st.error());
      if (!s.ok()) return Fail("collect", s.error());
      for (const std::string& x : st->warnings) fmt::print(stderr, "xtfq collect: warning: {}\n", x);
      fmt::print(stderr, "collect: {} ({} entries, {} rate steps) -> {} generation {}\n", path, st->entries, st->steps,
                 store_, (*w)->generation());
    } else {
      fmt::print(stderr, "collect: {} ({} bytes)\n", path, body.size());
    }
  }
  // A bounded run where no collection succeeded failed; otherwise the skipped ones were reported.
  return count_ != 0 && failures == count_ ? kExitFailure : kExitOk;
}

}  // namespace xtfq::cli
