// SlurmView: the Slurm series a store holds (slurm.series, docs/format.md "Slurm layout"), read
// once, with the filters `xtfq query --slurm` and `xtfq job` select them by (job, step, node,
// task, kind), and each job's sample arrays, checked against the layout.
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "query/core/store_reader.h"

namespace xtfq {

// One record of slurm.series (its id is its record number).
struct SlurmSeries {
  uint32_t id = 0;
  int64_t job = 0, step = 0, task = -1, start = INT64_MIN;
  uint8_t kind = 0, source = 0;
  uint16_t flags = 0;
  uint32_t rows = 0;
  std::string node, path, file;
  bool duplicate() const;
  // Network and Filesystem series count every process on the node, not the job's alone.
  bool node_wide() const;
};

// Which series to read; an empty list selects every value.
struct SlurmFilter {
  std::vector<int64_t> jobs;
  std::vector<std::string> steps;  // as Slurm names them: "0", "batch", "extern"
  std::vector<std::string> nodes;
  std::vector<int64_t> tasks;
  std::vector<std::string> kinds;  // "tasks", "fs", "net" (or Tasks, Filesystem, Network)
};

class SlurmView {
 public:
  static bool Holds(const Store& store);
  static Result<std::unique_ptr<SlurmView>> Open(StoreReader& reader);

  StoreReader& reader() { return reader_; }
  const std::vector<SlurmSeries>& series() const { return series_; }
  // 1 for each series the filter selects (duplicates, which hold no rows, never); kUsage for a
  // kind or step the layout does not know.
  Result<std::vector<char>> Select(const SlurmFilter& filter) const;
  // The array of a job's samples of `kind` (kTasks, kNetwork, kFilesystem); nullptr when the store
  // has none; an error when its schema is not this layout's (a store of an older xtfq).
  Result<const ArrayDesc*> JobArray(int64_t job, uint8_t kind);
  // "tasks", "net", "fs" for the kinds with sample arrays; "" for the others.
  static std::string_view ArrayKind(uint8_t kind);
  // From the first sample's start (EpochTime - ElapsedTime) to the last sample, over the jobs
  // whose series `selected` marks (every job when empty); nullopt without samples.
  Result<std::optional<std::pair<int64_t, int64_t>>> Span(const std::vector<char>& selected = {});

 private:
  explicit SlurmView(StoreReader& reader) : reader_(reader) {}
  StoreReader& reader_;
  std::vector<SlurmSeries> series_;
};

}  // namespace xtfq
