#include "cli/array_options.h"

#include <fmt/format.h>

#include "cli/output.h"
#include "query/arrays/array_window_query.h"

namespace xtfq::cli {

void ArrayOptions::Register(CLI::App* app) {
  app->add_option("STORE", store_, "store file")->required();
  app->add_option("--array", array_name_, "array to read (default: the store's only array, or 'events')");
  app->add_option("--backend", backend_, "page source: pread (default; safe on Lustre and NFS) or mmap")
      ->check(CLI::IsMember({"pread", "mmap"}));
  app->add_option("--cache-mb", cache_mb_, "page cache budget in MiB")->check(CLI::Range(size_t{1}, size_t{1} << 30));
  app->add_option(
         "--format", format_,
         "output format (csv: for Darshan logs, job_stats, Slurm profiles and grids; not for a plain array's query)")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  app->add_flag("--scan", scan_, "answer by scanning every record instead of using the index (for comparison)");
}

Status ArrayOptions::OpenReader() {
  if (reader_) return Ok();
  ReaderOptions ro;
  ro.backend = backend_ == "mmap" ? Backend::kMmap : Backend::kPread;
  ro.cache_bytes = cache_mb_ << 20;
  XTFQ_ASSIGN_OR_RETURN(reader_, OpenForReading(store_, ro));
  return Ok();
}

Status ArrayOptions::Open() {
  XTFQ_TRY(OpenReader());
  if (format_ == "csv")
    return Error(ErrorCode::kUsage,
                 "--format csv is for Darshan logs, job_stats, Slurm profiles and grids; a plain array's query "
                 "answers in text or json");
  XTFQ_ASSIGN_OR_RETURN(array_, ArrayWindowQuery::Choose(*reader_, array_name_));
  return Ok();
}

}  // namespace xtfq::cli
