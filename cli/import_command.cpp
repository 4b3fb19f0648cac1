#include "cli/import_command.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <regex>

#include "importers/registry/importer_registry.h"
#include "importers/slurm/slurm_series_writer.h"
#include "query/core/store_reader.h"
#include "query/core/time_window.h"
#include "store/store_writer.h"

namespace xtfq::cli {

CLI::App* ImportCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("import", "Read inputs into a store (created if it does not exist)");
  app->add_option("INPUT", inputs_,
                  "input files or directories: Darshan logs, darshan-parser text, job_stats snapshots, Slurm profiles "
                  "(HDF5 node-step or sh5util-merged files, influxdb captures), or 32-byte events (.bin)")
      ->required();
  app->add_option("-o,--output", out_, "store file (default: the first input's name with .xtfq)");
  app->add_option("--format", format_, "input format (auto: events for .bin, otherwise from the first bytes)")
      ->check(CLI::IsMember({"auto", "events", "darshan", "darshan-text", "jobstats", "slurm-hdf5", "slurm-influx"}));
  app->add_option("--target", target_, "job_stats: the target (OST/MDT) of a plain cat of one job_stats file");
  app->add_option("--at", at_text_,
                  "job_stats: the collection time of every input: epoch seconds (@E too) or ISO 8601 UTC "
                  "(2017-11-01T00:00:00Z)");
  app->add_option("--jobid-name", jobid_names_,
                  "job_stats: a jobid_name template (repeatable; default '%j:%u:%H', '%e.%u' and '%j', a bare job id)");
  app->add_option("--slurm-version", slurm_version_,
                  "Slurm: the version that wrote the profiles, MAJOR.MINOR (default 22.05, Debian 12's): up to 25.05 "
                  "Filesystem series are running totals, differenced per row; from 25.11 they are deltas")
      ->check([](const std::string& v) -> std::string {
        return SlurmSeriesWriter::ParseVersion(v) ? "" : "give MAJOR.MINOR, e.g. 22.05 or 25.11";
      });
  app->add_option("--array", array_, "array name for events");
  app->add_option("--page-size", page_size_,
                  "page size of a new store: 4096 to 65536, a power of two (default: 8192 for Darshan logs and "
                  "job_stats, 4096 otherwise)")
      ->check(CLI::IsMember({4096u, 8192u, 16384u, 32768u, 65536u}));
  app->add_option("--sort-memory", sort_memory_mib_,
                  "MiB of records sorted in memory before runs spill to TMPDIR (Darshan)")
      ->check(CLI::Range(1, 1 << 20));
  app->add_flag(
      "--no-process-index", no_process_index_,
      "do not keep per-process copies and the process tree (half the space; --ranks windows then need --scan)");
  app->add_flag("--no-grid", no_grid_,
                "do not build grid summaries (xtfq grid then answers per process; docs/architecture.md, Grids)");
  app->add_flag("--quiet,-q", quiet_,
                "no progress bar and no summary lines on stderr (warnings and errors are still printed); the bar is "
                "drawn only on a terminal");
  app->add_option("--codec", codec_,
                  "how pages are stored from now on: lz4 (the default for a new store), zstd (about 1.3x smaller, "
                  "slower to read cold and to import: for archives) or none; an existing store keeps its codec "
                  "unless this is given, and pages keep the codec they were stored with")
      ->check(CLI::IsMember({"lz4", "zstd", "none"}));
  app->add_option(
         "--threads", threads_,
         "1: do everything on one thread; 2 (the default): pages are compressed, grid passes read and job_stats "
         "snapshots parsed on a second thread beside the import")
      ->check(CLI::Range(1, 2));
  app->add_flag("--keep-duplicates", keep_duplicates_,
                "Darshan: import a log that is byte for byte one the store holds (or an earlier input) again; "
                "otherwise it is skipped with a warning, since it would count its run twice");
  app->add_flag("--allow-rollback", allow_rollback_,
                "write to a store whose newest superblock is damaged, from the generation before it (makes the loss "
                "permanent; see xtfq check)");
  return app;
}

Result<IngestPlan> ImportCommand::Plan() const {
  XTFQ_ASSIGN_OR_RETURN(Importer::Inputs expanded, ImporterRegistry::Expand(inputs_, format_));
  const std::vector<std::string>& skipped = expanded.skipped;
  if (!skipped.empty()) {
    // One line a file (a directory of logs holds a darshan-parser text beside each), ten at most.
    constexpr size_t kNamed = 10;
    fmt::print(stderr, "xtfq import: warning: {} file{} left out:\n", skipped.size(), skipped.size() == 1 ? "" : "s");
    for (size_t k = 0; k < skipped.size() && k < kNamed; ++k) fmt::print(stderr, "xtfq import:   {}\n", skipped[k]);
    if (skipped.size() > kNamed) fmt::print(stderr, "xtfq import:   and {} more\n", skipped.size() - kNamed);
  }
  return Ingest::Plan(expanded.files, format_);
}

Result<std::optional<double>> ImportCommand::CollectionTime() const {
  if (!at_text_) return std::optional<double>();
  if (auto iso = TimeWindow::ParseIso8601(*at_text_)) return std::optional<double>(*iso);
  // [@][-]digits[.digits]: seconds as --time's @E takes them (a negative one gets the range's error)
  const std::string text = at_text_->starts_with('@') ? at_text_->substr(1) : *at_text_;
  static const std::regex kSeconds("-?[0-9]+(\\.[0-9]+)?");
  if (!std::regex_match(text, kSeconds)) {
    return Error(ErrorCode::kUsage,
                 fmt::format("--at {}: not an epoch time (seconds, or @seconds) or an ISO 8601 UTC time "
                             "(2017-11-01T00:00:00Z)",
                             *at_text_));
  }
  return std::optional<double>(std::strtod(text.c_str(), nullptr));  // the importer checks its range
}

int ImportCommand::Run() {
  namespace fs = std::filesystem;
  if (out_.empty()) out_ = fs::path(inputs_.front()).replace_extension(".xtfq").string();
  auto plan = Plan();
  if (!plan.ok()) return Fail("import", plan.error());
  auto options = Options();
  if (!options.ok()) return Fail("import", options.error());
  const auto t0 = std::chrono::steady_clock::now();
  auto opened = OpenWriter(page_size_.value_or(ImporterRegistry::PageSizeFor(plan->formats())));
  if (!opened.ok()) return Fail("import", opened.error());
  if (opened->note) Say("import: {}\n", *opened->note);
  const bool exists = !opened->created;
  StoreWriter& w = *opened->writer;
  Ingest ingest(w, out_, *options);
  // What the store already holds, for importers that continue from it.
  std::unique_ptr<StoreReader> existing;
  Result<IngestReport> report = [&]() -> Result<IngestReport> {
    if (exists) {
      XTFQ_ASSIGN_OR_RETURN(existing, StoreReader::Open(out_));
    }
    return ingest.ImportAndCommit(plan->groups, existing.get());
  }();
  bar_->Finish();
  if (!report.ok()) {
    fmt::print(stderr, "xtfq import: {}\n", report.error().message());
    if (exists) {
      fmt::print(stderr, "xtfq import: nothing committed; {} stays at generation {}\n", out_, w.generation());
    } else {
      fmt::print(stderr, "xtfq import: nothing committed; {} was not created\n", out_);
    }
    opened->writer.reset();
    std::error_code ec;
    if (!exists) fs::remove(out_, ec);
    return report.error().code() == ErrorCode::kUsage ? kExitUsage : kExitFailure;
  }
  for (const ImportReport& g : report->groups) {
    for (const std::string& n : g.notes) Say("import: {}\n", n);
    for (const std::string& x : g.warnings) fmt::print(stderr, "xtfq import: warning: {}\n", x);
  }
  if (!report->committed) {
    // Every input was skipped (Darshan logs the store holds), or added nothing: nothing to commit.
    Say("import: nothing new: {} stays at generation {}\n", out_, w.generation());
    return kExitOk;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!no_grid_ && !Derive(ingest, plan->jobstats())) return kExitFailure;
  Summarize(*report, plan->jobstats(), secs, w.generation());
  return kExitOk;
}

Result<ImportOptions> ImportCommand::Options() {
  ImportOptions options;
  XTFQ_ASSIGN_OR_RETURN(options.at, CollectionTime());
  options.array = array_;
  options.sort_memory = static_cast<size_t>(sort_memory_mib_) << 20;
  if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && *tmp != '\0') options.temp_dir = tmp;
  options.jobid_names = jobid_names_, options.target = target_;
  options.slurm_version = slurm_version_;
  options.parse_ahead = threads_ > 1;
  options.keep_duplicates = keep_duplicates_;
  bar_ = std::make_unique<ProgressBar>("import", !quiet_ && ProgressBar::StderrIsTerminal());
  options.progress = bar_.get();
  return options;
}

void ImportCommand::Summarize(const IngestReport& report, bool jobstats, double secs, uint64_t generation) const {
  const ImportReport& total = report.total;
  if (!report.slurm_totals.empty()) Say("import: {}\n", report.slurm_totals);
  if (jobstats) {
    Say("import: {} into {} (generation {}) in {:.2f} s ({:.0f} entries/s)\n", total.totals, out_, generation, secs,
        secs > 0 ? total.entries / secs : 0.0);
  } else if (total.segments > 0 || total.source_bytes > 0) {
    Say("import: {} records and {} DXT segments from {:.1f} MB into {} (generation {}) in {:.2f} s ({:.2f} M "
        "segments/s, {:.1f} MB/s)\n",
        total.records, total.segments, total.source_bytes / 1e6, out_, generation, secs,
        secs > 0 ? total.segments / secs / 1e6 : 0.0, secs > 0 ? total.source_bytes / secs / 1e6 : 0.0);
  } else {
    Say("import: {} records into {} (generation {}) in {:.2f} s ({:.1f} M records/s)\n", total.records, out_,
        generation, secs, secs > 0 ? total.records / secs / 1e6 : 0.0);
  }
}

bool ImportCommand::Derive(Ingest& ingest, bool jobstats) const {
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t generation = ingest.writer().generation();
  Result<DeriveReport> d = ingest.Derive(jobstats, threads_ > 1);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!d.ok()) {
    if (jobstats) {
      fmt::print(stderr, "xtfq import: job_stats summaries not extended: {}\n", d.error().message());
      fmt::print(stderr,
                 "xtfq import: the snapshots are committed in {} (generation {}); windows past the summaries read the "
                 "steps\n",
                 out_, generation);
    } else {
      fmt::print(stderr, "xtfq import: grid summaries not built: {}\n", d.error().message());
      fmt::print(stderr,
                 "xtfq import: the records are committed in {} (generation {}); xtfq grid answers per process\n", out_,
                 generation);
    }
    return false;
  }
  if (d->jobstats && d->jobstats->extended) {
    const JobStatsSummaryReport& rep = *d->jobstats;
    Say("import: job_stats summaries by {}: {} cells, bins of {} s, sealed to {} in {:.2f} s ({} steps read)\n",
        JobStatsSummary::KeyNames(), rep.cells, int64_t{1} << rep.bin_shift, rep.sealed, secs, rep.steps_read);
  }
  if (d->grids) SayGrids(*d->grids, secs);
  return true;
}

void ImportCommand::SayGrids(const GridBuildReport& report, double secs) const {
  for (const std::string& n : report.notes) Say("import: {}\n", n);
  if (report.built.empty()) return;
  uint64_t cells = 0, bytes = 0, without = 0;
  for (const GridBuildReport::Built& b : report.built) {
    cells += b.cells, bytes += b.bytes;
    without += b.levels.empty() && b.distribution_levels.empty();
  }
  // An array of a few processes gets no level: a block of them would hold them all, and a window
  // reads each process's own records.
  const std::string few =
      without == 0 ? ""
                   : fmt::format("{}none needed for {} of them (too few processes for blocks of them to pay)",
                                 without == report.built.size() ? "" : "; ", without);
  const std::string made = without == report.built.size() ? "" : fmt::format("{} cells, {:.1f} MB", cells, bytes / 1e6);
  Say("import: grid summaries of {} array{}: {}{}, in {:.2f} s\n", report.built.size(),
      report.built.size() == 1 ? "" : "s", made, few, secs);
}

Result<StoreWriter::Opened> ImportCommand::OpenWriter(uint32_t page_size) const {
  StoreOptions opts;
  opts.process_index = !no_process_index_;
  opts.allow_rollback = allow_rollback_;
  opts.page_size = page_size;
  if (!codec_.empty()) opts.codec = ParseCodec(codec_);
  opts.seal_thread = threads_ > 1;
  return StoreWriter::OpenOrCreatePath(out_, opts);
}

}  // namespace xtfq::cli
