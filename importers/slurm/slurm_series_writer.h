// SlurmSeriesWriter: lays Slurm profile series out in a store (docs/format.md, "Slurm layout"), for
// both Slurm importers (HDF5 files and influxdb captures): each dataset becomes a record of
// slurm.series and each of its rows a record of slurm/<job>/tasks, fs, net or other, sorted by time
// within the job when Finish appends them. Every value read is stored as read; what is derived
// from it is stored beside it and counted in the import's summary:
//  - ReadMB, WriteMB, InMB and OutMB are Slurm's byte counts / 2^20: the bytes are stored exactly
//    (a value that is not a whole number of bytes is rounded and flagged);
//  - row 0 of a series (Slurm zeroes its deltas) and a row at the same EpochTime as the one before
//    it are flagged, and kept;
//  - Filesystem series (the lustre gatherer, Slurm up to 25.05) are running totals: each row's
//    change is stored beside it, a decrease flagged as a reset;
//  - Network series of the sysfs gatherer hold bytes under PacketsIn/Out and packets / 2^16 under
//    InMB/OutMB: detected per series (a "packet" count above its "bytes") and stored by what they
//    count;
//  - a series with the same job, step, node, kind, task and rows as one read before (a merged
//    file repeats its node-step files) is recorded as a duplicate, without its rows again.
// A job whose arrays the store already holds is refused (records of an array stay in time order).
//
// Thread-safety: not thread-safe; one import.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "importers/common/importer.h"
#include "importers/slurm/slurm_dataset.h"
#include "layouts/slurm_layout.h"
#include "store/record_sink.h"
#include "store/record_source.h"

namespace xtfq {

class SlurmSeriesWriter {
 public:
  // Series ids continue from the records slurm.series of `existing` holds (nullptr: a new store).
  // One writer per import: two would hand out the same ids (ImportCommand refuses both Slurm
  // formats in one run).
  // `slurm_version` (MAJOR.MINOR) decides whether Filesystem series are running totals (up to 25.05).
  SlurmSeriesWriter(RecordSink& sink, RecordSource* existing, std::string_view slurm_version);

  // The series of one input `path` (`source`: SlurmLayout::Source; `what` names it in the note:
  // "merged file"), each with its job and step set. REQUIRES: `datasets` outlive Finish.
  Status Add(const std::string& path, uint8_t source, std::string_view what, const std::vector<SlurmDataset>& datasets,
             ImportReport& report);
  // Appends slurm.series and every job's arrays, and sets report.records and report.totals.
  Status Finish(ImportReport& report);

  // A decimal number of up to 18 digits, or nullopt.
  static std::optional<int64_t> Number(std::string_view s);
  // "25.11" as 2511 (MAJOR x 100 + MINOR); nullopt when it is not MAJOR.MINOR.
  static std::optional<int> ParseVersion(std::string_view v);

 private:
  // The records of one job's array being built: width-byte records, sorted by (t, series, row) before
  // they are appended.
  struct Pending {
    const Schema* schema = nullptr;
    uint32_t width = 0;
    std::vector<std::byte> bytes;

    std::byte* Add() {
      bytes.resize(bytes.size() + width);
      return bytes.data() + bytes.size() - width;
    }
    size_t count() const { return width == 0 ? 0 : bytes.size() / width; }
  };

  struct JobArrays {
    Pending tasks, fs, net, other;
  };

  struct Counts {
    uint64_t series = 0, duplicates = 0, rows = 0, first = 0, repeats = 0, resets = 0, inexact = 0, other_values = 0,
             exits = 0;
    uint64_t swapped = 0, cumulative = 0, no_step_nodes = 0;
  };

  // A string reference to `s` (0 for ""), each string stored once per import.
  Result<uint64_t> Str(std::string_view s);
  Status AddRows(const SlurmDataset& d, int64_t job, uint32_t series, uint8_t kind, uint16_t& series_flags);
  // The head of sample record `p`: row r of d, of series `series`.
  static void Head(std::byte* p, const SlurmDataset& d, uint64_t r, uint32_t series, int epoch, int elapsed,
                   uint32_t flags);

  RecordSink& sink_;
  uint32_t next_series_;
  bool cumulative_fs_;  // Filesystem series are running totals (Slurm up to 25.05)
  std::vector<std::byte> series_records_;
  std::map<int64_t, JobArrays> jobs_;
  // Series read so far, by (job, step, node, kind, task): the file it came from and its rows.
  std::map<std::string, std::pair<std::string, const SlurmDataset*>> seen_;
  Counts counts_;
  std::map<std::string, uint64_t> strings_;  // stored strings: their references
};

}  // namespace xtfq
