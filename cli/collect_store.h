// CollectStore: appends a collector's snapshot files to its store (`xtfq collect --store`), in time
// order, one commit per file, so that each file is in the store whole or not at all.
//
// The store is append-only in time (docs/format.md, job_stats collection record): a snapshot older
// than the store's newest collection cannot go in. Append() therefore
//  1. opens the store as its writer, waiting up to `busy_wait` while another writer holds it
//     (kBusy), and creates it when absent;
//  2. takes each snapshot in time order: one older than the store's newest collection is returned
//     in `behind` and left alone (one the store already holds, or one another writer overtook);
//     the others are imported (JobStatsFileImporter: a target whose collection at that time the
//     store already holds is skipped with a note, so the newest file, committed before a collector
//     was killed, is recognised) and committed when they added records;
//  3. stops at the first error (store busy past the wait, a full disk, I/O, a file the importer
//     refuses) without committing that file: it and the later ones are returned in `waiting`,
//     still in the directory, for the next Append().
// A kill at any moment leaves each file committed or not (the store's commit protocol), never
// half, so calling Append() again with the directory's files imports each exactly once.
//
// Thread-safety: one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/snapshot_directory.h"
#include "importers/common/importer.h"
#include "store/result.h"

namespace xtfq::cli {

struct CollectAppend {
  struct Done {
    SnapshotDirectory::Snapshot snapshot;
    bool appended = false;  // false: every target of it was in the store already (see notes)
    uint64_t entries = 0, steps = 0, generation = 0;
    std::vector<std::string> notes, warnings;
  };
  std::vector<Done> done;                            // in time order
  std::vector<SnapshotDirectory::Snapshot> behind;   // older than the store's newest collection
  std::vector<SnapshotDirectory::Snapshot> waiting;  // not appended because of `stopped`
  std::optional<Error> stopped;
};

class CollectStore {
 public:
  CollectStore(std::string path, ImportOptions options, std::chrono::milliseconds busy_wait)
      : path_(std::move(path)), options_(std::move(options)), busy_wait_(busy_wait) {}

  const std::string& path() const { return path_; }
  CollectAppend Append(std::vector<SnapshotDirectory::Snapshot> snapshots) const;

 private:
  std::string path_;
  ImportOptions options_;
  std::chrono::milliseconds busy_wait_;
};

}  // namespace xtfq::cli
