// CollectCommand: `xtfq collect --out DIR [--interval 120] [--count N] [--store S] [--name NAME]
// [-- COMMAND ...]`, the monitoring daemon of seed 001 (docs/cli.md, "xtfq collect").
//
// Every interval it runs `lctl get_param mdt.*.job_stats obdfilter.*.job_stats` (or COMMAND) at a
// whole second T, writes "# collected_at: T" and the output to DIR/NAME-T.txt (SnapshotDirectory:
// one collector per directory and name, names never replaced) and, with --store, appends it to the
// store (CollectStore: one commit per snapshot). Collection times are whole seconds, strictly
// increasing, and the same in the file name, the stamp and the store; --interval is at least 1 s.
// A failing command, a snapshot that cannot be written, a busy store or a failed commit is
// reported and that collection skipped; the daemon goes on. A snapshot written but not committed
// stays in DIR: at start, and at the first collection after a failure, every snapshot of DIR not
// older than the store's newest collection is imported (in time order) before the new one.
//
// Thread-safety: as Command.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/collect_store.h"
#include "cli/command.h"
#include "cli/snapshot_directory.h"

namespace xtfq::cli {

class CollectCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  // Whether the snapshot at `path` holds lines (not blank, not comments) and no job_stats target.
  bool NotJobStats(const std::string& path) const;
  // Appends the snapshots waiting for the store (all of the directory after a failure or at
  // start, else `fresh`) and reports each on stderr. True when `fresh` held lines, none of them
  // job_stats (a failed collection).
  bool AppendToStore(SnapshotDirectory& dir, const CollectStore& store,
                     const std::optional<SnapshotDirectory::Snapshot>& fresh);

  double interval_ = 120;
  std::string out_;
  uint64_t count_ = 0;  // 0: until stopped
  std::string store_;
  std::string name_;
  std::string target_;
  std::vector<std::string> jobid_names_;
  std::vector<std::string> command_;
  // With --store: whether the directory must be searched for snapshots not in the store yet (at
  // start, and after an append failed), and the snapshots this run wrote that are not in it.
  bool rescan_ = true;
  std::set<std::string> unstored_;
  std::set<std::string> noted_;  // snapshots whose notes were printed
};

}  // namespace xtfq::cli
