// ImportCommand: `xtfq import [-o STORE] [--format auto|events|darshan|darshan-text|jobstats] INPUT...`: reads inputs
// into a store, creating it if it does not exist, through the Importer of each input's format
// (importers/registry/importer_registry.h), and commits once at the end, so a failed import leaves the store at its
// previous generation (and removes a store it created).
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
  std::string target_;                  // job_stats: the target of a plain cat
  std::optional<std::string> at_text_;  // job_stats: the collection time, as given
  std::vector<std::string> jobid_names_;
  std::string slurm_version_ =
      "22.05";  // Slurm: the version that wrote the profiles  // job_stats: jobid_name templates
  // The inputs grouped by format, in the order the formats first appear ("darshan-any" when
  // binary logs and text are both sniffed).
  Result<std::vector<std::pair<std::string, std::vector<std::string>>>> Groups() const;
  // The store at out_: opened when it `exists`, else created with `page_size` and the P index asked for.
  Result<StoreWriter::Opened> OpenWriter(uint32_t page_size) const;
  // --at as a time: epoch seconds, @seconds or ISO 8601 UTC (nullopt when not given).
  Result<std::optional<double>> CollectionTime() const;
  // Builds the grid summaries of the committed arrays that have none (query/grid/GridBuilder) and commits them.
  Status BuildGrids(StoreWriter& w) const;
  // Extends the job_stats window summaries (query/jobstats/jobstats_summary.h) to the seal, one more commit.
  Status ExtendSummaries(StoreWriter& w) const;
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
