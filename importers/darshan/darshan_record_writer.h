// DarshanRecordWriter: puts one Darshan log into a RecordSink in the store layout of
// DarshanLayout (docs/format.md, "Darshan layout"), whatever it was read from: the binary
// importer and the darshan-parser text importer both feed it.
//
// Counter records and DXT segments arrive in the log's order (by rank, then registration) and go
// through a RecordSorter, so that each array receives them in time order with bounded memory.
// DXT segments gain derived fields as they arrive, per file record and operation, as the Darshan
// runtime counts them (darshan-posix.c, POSIX_RECORD_READ/WRITE): with `last` the last byte of the
// previous segment of the same operation (0 before the first), a segment at offset o is
// sequential when o > last and consecutive when o == last + 1, and then last = o + length - 1;
// its size class is DARSHAN_BUCKET_INC's.
//
// Nothing is visible until the sink commits, so a failure part-way leaves the store as it was.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "importers/common/record_sorter.h"
#include "importers/darshan/darshan_accumulator.h"
#include "importers/darshan/darshan_counter_record.h"
#include "importers/darshan/darshan_dxt_reader.h"
#include "importers/darshan/darshan_heatmap_reader.h"
#include "layouts/darshan_layout.h"
#include "store/record_sink.h"

namespace xtfq {

struct DarshanJob {
  int64_t job = 0, uid = 0, start_sec = 0, start_nsec = 0, end_sec = 0, end_nsec = 0, nprocs = 0;
  int64_t format_minor = 0;
  uint64_t partial = 0;
  std::string exe, metadata;
  std::vector<std::pair<std::string, std::string>> mounts;  // path, fs type
  DarshanLayout::SourceKind source = DarshanLayout::SourceKind::kBinary;
  std::string file;  // the imported file
};

struct DarshanImportOptions {
  size_t sort_memory = size_t{64} << 20;  // bytes of records held before sorted runs spill
  std::string temp_dir = "/tmp";          // where spilled runs go
  std::function<void(uint64_t)> at;       // told how far into the log's file the reading is (may be empty)
};

struct DarshanImportStats {
  uint64_t names = 0, records = 0, segments = 0, source_bytes = 0;
  DarshanJob job;  // (set by Finish)
};

class DarshanRecordWriter {
 public:
  DarshanRecordWriter(RecordSink& sink, int64_t log, DarshanImportOptions options);

  // The source bytes, in order, as many times as needed.
  Status AddSource(std::span<const std::byte> bytes);
  Status AddName(uint64_t id, std::string_view name);
  // Starts a counter module (slot numbered as in 3.41, its name as darshan-parser prints it);
  // its records follow; REQUIRES: no other module is open.
  Status BeginCounters(int slot, std::string_view module);
  Status AddCounters(const DarshanCounterRecord& record);
  Status EndCounters();
  // Starts a DXT module (DXT_POSIX or DXT_MPIIO); its records follow.
  Status BeginDxt(std::string_view module);
  Status AddDxt(const DxtRecord& record);
  Status EndDxt();
  // HEATMAP records: each goes to the array of its name ("heatmap:POSIX" -> HEATMAP.POSIX).
  Status AddHeatmap(const HeatmapRecord& record, std::string_view name);
  Status EndHeatmaps();
  // Writes the perf records of the counter modules and the darshan.logs record; call last.
  Status Finish(const DarshanJob& job);

  const DarshanImportStats& stats() const { return stats_; }
  // The open counter module's record shape: int and float counters, and whether a file record
  // id and a trailer follow them.
  size_t ints() const { return ints_; }
  size_t floats() const { return floats_; }
  bool file_rec() const { return file_rec_; }
  bool tail() const { return tail_; }

 private:
  Status FlushChunk();
  Status WritePerf();
  // The open module's --total record (darshan/<log>/<MODULE>.total).
  Status WriteTotal();

  RecordSink& sink_;
  int64_t log_;
  DarshanImportOptions options_;
  DarshanImportStats stats_;
  std::string chunk_;
  uint64_t chunks_ = 0;
  std::optional<ArrayId> names_, source_;
  // The open module.
  std::string module_;
  Schema schema_;
  ArrayId array_;
  std::optional<size_t> open_time_;  // the counter holding the open start timestamp
  size_t ints_ = 0, floats_ = 0;
  bool file_rec_ = false, tail_ = false;
  std::unique_ptr<RecordSorter> sorter_, reads_, writes_;
  ArrayId read_array_, write_array_, files_array_;
  std::vector<std::byte> rec_;
  std::map<std::string, std::unique_ptr<RecordSorter>> heatmaps_;  // by array part name
  // darshan-util's accumulator of the open module (when it has one), and what each module's gave.
  std::optional<DarshanAccumulator> accumulator_;
  std::vector<std::string_view> counter_names_;  // the open module's counters (static tables)
  int slot_ = 0;
  std::vector<DarshanModulePerf> perf_;
};

}  // namespace xtfq
