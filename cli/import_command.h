// ImportCommand: `xtfq import [-o STORE] [--format auto|events|darshan|darshan-text|jobstats|...] INPUT...`: reads
// inputs into a store, creating it if it does not exist, through ingest/Ingest (the Importer of each input's format),
// and commits once at the end, so a failed import leaves the store at its previous generation (and removes a store it
// created); then the derived summaries, in a commit of their own.
//
// Thread-safety: as Command.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "cli/command.h"
#include "cli/progress_bar.h"
#include "ingest/ingest.h"
#include "store/store_writer.h"

namespace xtfq::cli {

class ImportCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  std::vector<std::string> inputs_;
  std::string out_;
  std::string format_ = "auto";
  std::string array_ = "events";
  std::optional<uint32_t> page_size_;  // unset: ImporterRegistry::PageSizeFor the inputs
  uint32_t sort_memory_mib_ = 64;
  bool no_process_index_ = false;
  bool allow_rollback_ = false;
  bool keep_duplicates_ = false;
  int threads_ = 2;
  std::string codec_;  // empty: the store's own (lz4 for a new one)
  bool no_grid_ = false;
  bool quiet_ = false;
  std::string target_;                    // job_stats: the target of a plain cat
  std::optional<std::string> at_text_;    // job_stats: the collection time, as given
  std::vector<std::string> jobid_names_;  // job_stats: jobid_name templates
  std::string slurm_version_ = "22.05";   // Slurm: the version that wrote the profiles
  // The inputs grouped by format (ingest/Ingest::Plan), after a warning naming the files left out.
  Result<IngestPlan> Plan() const;
  // The store at out_: opened when it `exists`, else created with `page_size` and the P index asked for.
  Result<StoreWriter::Opened> OpenWriter(uint32_t page_size) const;
  // --at as a time: epoch seconds, @seconds or ISO 8601 UTC (nullopt when not given).
  Result<std::optional<double>> CollectionTime() const;
  // The importers' options from the flags, with the progress bar (created here).
  Result<ImportOptions> Options();
  // The derived summaries (Ingest::Derive) and their line; false after saying why they failed.
  bool Derive(Ingest& ingest, bool jobstats) const;
  void SayGrids(const GridBuildReport& report, double secs) const;
  // The closing line: what was imported, into which generation, how fast.
  void Summarize(const IngestReport& report, bool jobstats, double secs, uint64_t generation) const;
  // An informational line on stderr ("import: ..."), after clearing the progress bar; none with --quiet.
  template <typename... Args>
  void Say(fmt::format_string<Args...> format, Args&&... args) const {
    if (quiet_) return;
    bar_->Finish();
    fmt::print(stderr, format, std::forward<Args>(args)...);
  }
  // The progress of the import and of its grid summaries (drawn on a terminal only).
  std::unique_ptr<ProgressBar> bar_;
};

}  // namespace xtfq::cli
