// SnapshotDirectory: the snapshot files of one collector in a directory, DIR/<name>-<T>.txt, T the
// collection time in whole epoch seconds (the same T as the file's "# collected_at: T" line and
// the store's collection; `xtfq collect` writes both).
//
// Invariants:
//  1. One collector per directory and name. Open() takes an exclusive flock(2) on
//     DIR/<name>.collect.lock, held while the object lives (the system drops it when the process
//     dies, so a killed collector leaves no stale lock); a second Open() of the same directory and
//     name gets kBusy naming the holder's host and pid. Where the file system has no flock, Open()
//     goes on without the lock and says so in lock_warning(); invariant 2 still holds.
//  2. A name is never replaced. Publish() writes the text to a temporary file beside it
//     (DIR/<name>-<T>.txt.tmp-<pid>-<n>), syncs it, and gives it its name with renameat2's
//     RENAME_NOREPLACE, or link(2) where that is not supported, then syncs the directory: readers see
//     no file or the whole durable file, and an existing name makes Publish() fail.
//  3. The temporary files are the only other files it makes. A collector killed while writing one
//     leaves it; Open(), holding the lock, removes those of its name (stale_removed()).
//     `xtfq import` never reads them (ImporterRegistry::Expand skips ".tmp-" and ".collect.lock" files).
//
// Thread-safety: one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/result.h"

namespace xtfq::cli {

class SnapshotDirectory {
 public:
  struct Snapshot {
    int64_t time = 0;  // T of the name
    std::string path;  // DIR/<name>-<T>.txt
  };

  // Creates `dir` when absent, takes the lock of `name` (invariant 1) and removes stale temporary
  // files of `name` (invariant 3). kUsage for a name that is empty or holds '/'.
  static Result<std::unique_ptr<SnapshotDirectory>> Open(const std::string& dir, const std::string& name);
  ~SnapshotDirectory();
  SnapshotDirectory(const SnapshotDirectory&) = delete;
  SnapshotDirectory& operator=(const SnapshotDirectory&) = delete;

  // Why the lock could not be taken (the file system has no flock); nullopt when it is held.
  const std::optional<std::string>& lock_warning() const { return lock_warning_; }
  // The temporary files a killed collector of this name had left, removed by Open().
  const std::vector<std::string>& stale_removed() const { return stale_removed_; }
  const std::string& dir() const { return dir_; }

  std::string PathOf(int64_t time) const;
  // Writes `text` as DIR/<name>-<time>.txt (invariant 2); an error when that name exists, or when
  // writing fails (a full disk: nothing is left behind).
  Result<std::string> Publish(int64_t time, std::string_view text);
  // The snapshot files of this name, oldest first.
  Result<std::vector<Snapshot>> List() const;

 private:
  SnapshotDirectory(std::string dir, std::string name) : dir_(std::move(dir)), name_(std::move(name)) {}
  // The T of `file` (a file name) when it is "<name>-<T>.txt".
  std::optional<int64_t> TimeOf(std::string_view file) const;

  std::string dir_, name_;
  int lock_fd_ = -1;
  uint64_t temporaries_ = 0;  // temporary names made, for the next unique one
  std::optional<std::string> lock_warning_;
  std::vector<std::string> stale_removed_;
};

}  // namespace xtfq::cli
