#include "cli/import_command.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "importers/darshan_importer.h"
#include "importers/darshan_text_importer.h"
#include "cli/jobstats_input.h"
#include "importers/events_importer.h"
#include "layouts/darshan_layout.h"
#include "store/posix_file.h"
#include "store/store_writer.h"

namespace xtfq::cli {

CLI::App* ImportCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("import", "Read inputs into a store (created if it does not exist)");
  app->add_option("INPUT", inputs_, "input files: Darshan logs, darshan-parser text, or 32-byte events (.bin)")->required();
  app->add_option("-o,--output", out_, "store file (default: the first input's name with .xtfq)");
  app->add_option("--format", format_, "input format (auto: events for .bin, otherwise from the first bytes)")
      ->check(CLI::IsMember({"auto", "events", "darshan", "darshan-text", "jobstats"}));
  app->add_option("--target", target_, "job_stats: the target (OST/MDT) of a plain cat of one job_stats file");
  app->add_option("--at", at_, "job_stats: the collection time (epoch seconds) of every input");
  app->add_option("--jobid-name", jobid_names_, "job_stats: a jobid_name template (repeatable; default '%j:%u:%H' and '%e.%u')");
  app->add_option("--array", array_, "array name for events");
  app->add_option("--page-size", page_size_, "page size of a new store: 4096 to 65536, a power of two");
  app->add_option("--sort-memory", sort_memory_mib_, "MiB of records sorted in memory before runs spill to TMPDIR (Darshan)")
      ->check(CLI::Range(1, 1 << 20));
  app->add_flag("--no-process-index", no_process_index_,
                "do not keep per-process copies and the process tree (half the space; --ranks windows then need --scan)");
  return app;
}

namespace {
// The format of `path` from its name (.bin) and first bytes.
Result<std::string> Sniff(const std::string& path) {
  if (std::filesystem::path(path).extension() == ".bin") return std::string("events");
  if (std::filesystem::is_directory(path)) return std::string("jobstats");
  XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(path, PosixFile::Mode::kRead));
  std::vector<std::byte> head(256);
  XTFQ_ASSIGN_OR_RETURN(size_t got, file->ReadAt(0, head));
  head.resize(got);
  if (DarshanImporter::LooksBinary(head)) return std::string("darshan");
  if (DarshanTextImporter::LooksLikeText(head)) return std::string("darshan-text");
  if (JobStatsInput::LooksLikeJobStats(std::string_view(reinterpret_cast<const char*>(head.data()), head.size()))) {
    return std::string("jobstats");
  }
  return Error(ErrorCode::kInvalidArgument,
               fmt::format("{}: cannot tell the format (not a Darshan log, darshan-parser text, job_stats or .bin); give --format", path));
}
}  // namespace

int ImportCommand::Run() {
  namespace fs = std::filesystem;
  if (out_.empty()) out_ = fs::path(inputs_.front()).replace_extension(".xtfq").string();
  std::vector<std::string> formats;
  for (const std::string& in : inputs_) {
    if (format_ != "auto") {
      formats.push_back(format_);
      continue;
    }
    auto f = Sniff(in);
    if (!f.ok()) return Fail("import", f.error());
    formats.push_back(*f);
  }
  if (std::count(formats.begin(), formats.end(), "jobstats") > 0) {
    if (std::count(formats.begin(), formats.end(), "jobstats") != static_cast<std::ptrdiff_t>(formats.size())) {
      return Fail("import", Error(ErrorCode::kInvalidArgument, "import job_stats snapshots on their own, not mixed with other inputs"));
    }
    return RunJobStats();
  }
  if (std::count(formats.begin(), formats.end(), "events") > 1) {
    // One events file per array: a second one would need its own --array.
    return Fail("import", Error(ErrorCode::kInvalidArgument, "give one events file per import (each goes to its own --array)"));
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  const bool exists = fs::exists(out_, ec);
  auto writer = OpenWriter(exists);
  if (!writer.ok()) return Fail("import", writer.error());
  StoreWriter& w = **writer;
  DarshanImportOptions dopts;
  dopts.sort_memory = static_cast<size_t>(sort_memory_mib_) << 20;
  if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && *tmp != '\0') dopts.temp_dir = tmp;
  const ArrayDesc* logs = w.FindArray(DarshanLayout::kLogs);
  int64_t next_log = logs == nullptr ? 0 : static_cast<int64_t>(logs->record_count());
  uint64_t records = 0, segments = 0, bytes = 0;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const std::string& in = inputs_[i];
    Status s = Ok();
    if (formats[i] == "events") {
      auto file = PosixFile::Open(in, PosixFile::Mode::kRead);
      auto n = file.ok() ? EventsImporter::Import(**file, w, array_) : Result<uint64_t>(file.error());
      if (n.ok()) records += *n;
      s = n.ok() ? Ok() : Status(n.error());
    } else {
      Result<DarshanImportStats> st = Error(ErrorCode::kInvalidArgument, "");
      if (formats[i] == "darshan") {
        auto log = DarshanLog::Open(in);
        st = log.ok() ? DarshanImporter::Import(**log, w, next_log, dopts) : Result<DarshanImportStats>(log.error());
      } else {
        auto file = PosixFile::Open(in, PosixFile::Mode::kRead);
        st = file.ok() ? DarshanTextImporter::Import(**file, w, next_log, dopts) : Result<DarshanImportStats>(file.error());
      }
      if (st.ok()) {
        fmt::print(stderr, "import: {} as Darshan log {}: {} records, {} DXT segments, {} names\n", in, next_log,
                   st->records, st->segments, st->names);
        ++next_log;
        records += st->records, segments += st->segments, bytes += st->source_bytes;
      }
      s = st.ok() ? Ok() : Status(st.error());
    }
    if (!s.ok()) {
      fmt::print(stderr, "xtfq import: {}\n", s.error().message());
      fmt::print(stderr, "xtfq import: nothing committed; {} stays at generation {}\n", out_, w.generation());
      writer->reset();
      if (!exists) fs::remove(out_, ec);
      return kExitFailure;
    }
  }
  Status s = w.Commit();
  if (!s.ok()) return Fail("import", s.error());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (segments > 0 || bytes > 0) {
    fmt::print(stderr, "import: {} records and {} DXT segments from {:.1f} MB into {} (generation {}) in {:.2f} s ({:.2f} M segments/s, {:.1f} MB/s)\n",
               records, segments, bytes / 1e6, out_, w.generation(), secs, secs > 0 ? segments / secs / 1e6 : 0.0,
               secs > 0 ? bytes / secs / 1e6 : 0.0);
  } else {
    fmt::print(stderr, "import: {} records into {} (generation {}) in {:.2f} s ({:.1f} M records/s)\n", records, out_,
               w.generation(), secs, secs > 0 ? records / secs / 1e6 : 0.0);
  }
  return kExitOk;
}

Result<std::unique_ptr<StoreWriter>> ImportCommand::OpenWriter(bool exists) const {
  StoreOptions opts;
  opts.process_index = !no_process_index_;
  opts.page_size = page_size_;
  return exists ? StoreWriter::OpenPath(out_, opts) : StoreWriter::CreatePath(out_, opts);
}

int ImportCommand::RunJobStats() {
  namespace fs = std::filesystem;
  const auto t0 = std::chrono::steady_clock::now();
  auto files = JobStatsInput::Expand(inputs_);
  if (!files.ok()) return Fail("import", files.error());
  std::error_code ec;
  const bool exists = fs::exists(out_, ec);
  auto writer = OpenWriter(exists);
  if (!writer.ok()) return Fail("import", writer.error());
  JobStatsImportOptions jopts;
  jopts.templates = jobid_names_, jopts.target = target_, jopts.at = at_;
  auto st = JobStatsInput::Import(**writer, out_, exists, *files, jopts);
  Status s = st.ok() ? (*writer)->Commit() : Status(st.error());
  if (!s.ok()) {
    fmt::print(stderr, "xtfq import: {}\n", s.error().message());
    fmt::print(stderr, "xtfq import: nothing committed; {} stays at generation {}\n", out_, (*writer)->generation());
    writer->reset();
    if (!exists) fs::remove(out_, ec);
    return kExitFailure;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print(stderr,
             "import: {} job_stats files: {} collections, {} entries ({} duplicates replaced, {} skipped), {} counters, {} new "
             "series, {} rate steps, {} resets into {} (generation {}) in {:.2f} s ({:.0f} entries/s)\n",
             files->size(), st->collections, st->entries, st->duplicates, st->problems.size(), st->counters, st->new_series,
             st->steps, st->resets, out_, (*writer)->generation(), secs, secs > 0 ? st->entries / secs : 0.0);
  return kExitOk;
}

}  // namespace xtfq::cli
