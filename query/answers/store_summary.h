// StoreSummary: what `xtfq info` reports of a store, as a value every front end renders: the
// superblock (format version, page size, generation, slot, commit time), the pages by role, free
// space, the string heap, and for every array its records, pages per TN-tree level, index
// overhead, P index and bytes per record on disk; then the Darshan logs and the job_stats a store
// holds. The page figures come from the superblock and catalogue alone (no data page is read);
// the Darshan and job_stats parts read their small tables. Everything comes from one opened
// snapshot (one generation).
//
// Thread-safety: value type; Of() uses the reader from one thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "query/core/store_reader.h"
#include "query/darshan/darshan_logs.h"

namespace xtfq {

struct StoreSummary {
  struct Pages {
    // Slots by role; data, index and heap count full (sealed) pages and shadow the shadows, which all
    // lie in pack slots.
    uint64_t superblock = 0, catalogue = 0, data = 0, index = 0, process_tree = 0, heap = 0, shadow = 0, pack = 0,
             page_map = 0, free = 0;
  };
  struct Level {
    uint64_t pages = 0;
    uint32_t entries_per_page = 0;
  };
  struct ProcessIndex {
    uint64_t processes = 0, data_pages = 0, index_pages = 0, tree_pages = 0;
    uint32_t tree_height = 0;
    std::optional<int64_t> sole;  // every record is of this process: no copy (docs/format.md, "P index")
  };
  struct Array {
    uint32_t id = 0;
    std::string name;
    uint64_t records = 0;
    uint32_t record_bytes = 0, records_per_page = 0, open_page_records = 0;
    uint64_t full_pages = 0;
    const ArrayDesc* desc = nullptr;  // fields and schema (valid while the reader is open)
    std::vector<Level> levels;        // leaves first
    uint64_t index_pages = 0;
    double index_overhead = 0;  // index pages / data pages
    std::optional<ProcessIndex> process_index;
    double bytes_per_record = 0;  // every page of the array, its P index included
  };
  struct JobStats {
    uint64_t targets = 0, collections = 0, entries = 0, series = 0;
    std::vector<std::string> ops;
    std::map<std::string, uint64_t> classes;  // series per job id class
    int64_t first = 0, last = 0;              // collection times
  };

  std::string store;
  uint32_t format_version = 0, page_size = 0, superblock_slot = 0;
  uint64_t generation = 0, commit_time_ns = 0, page_count = 0, file_bytes = 0;
  Pages pages;
  uint64_t free_bytes = 0, heap_bytes = 0, catalogue_bytes = 0;
  std::vector<Array> arrays;  // arrays of their own (per-process arrays are counted in theirs)
  std::vector<DarshanLogInfo> darshan_logs;
  std::optional<JobStats> jobstats;
  // Slurm profiles (slurm.series), per job.
  struct SlurmJob {
    int64_t job = 0;
    uint64_t series = 0, duplicates = 0, rows = 0;  // rows stored (duplicates' not again)
    std::set<int64_t> steps;
    std::set<std::string> nodes, sources;         // sources: "node-step file", "merged file", "influxdb"
    int64_t first = INT64_MAX, last = INT64_MIN;  // first sample's start, last sample (epoch seconds)
  };
  std::vector<SlurmJob> slurm_jobs;
  // Parts that could not be read from a damaged store (a data page failing its checksum): the
  // error of each, with what it left out ("the Slurm jobs: ..."). The rest is still summarised.
  std::vector<Error> unreadable;

  static Result<StoreSummary> Of(StoreReader& reader);

 private:
  static Status JobStatsPart(StoreReader& reader, StoreSummary& out);
  static Status SlurmPart(StoreReader& reader, StoreSummary& out);
};

}  // namespace xtfq
