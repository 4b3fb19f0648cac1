// DarshanLayout: how Darshan logs are laid out in a store (docs/format.md, "Darshan layout"): the
// array names and record schemas shared by the importer (which writes them) and the query layer
// (which reads them).
//
//   darshan.logs              one record per imported log: job, times, nprocs, format, partial
//                             flags, where its source bytes are, exe/metadata/mounts as strings
//   darshan.source            the imported file itself (the binary log, or the darshan-parser
//                             text), in chunks of kSourceChunk bytes held as heap strings
//   darshan/<log>/names       the name records: id, name
//   darshan/<log>/<MODULE>    a fixed-size module's counter records (POSIX, MPI-IO, STDIO, H5F,
//                             H5D, PNETCDF_FILE, PNETCDF_VAR, BG/Q, DFS, DAOS), up-converted to the
//                             current record version: id, rank (process; -1 = shared), t (the
//                             open start timestamp in ns from the job's start; time key), then
//                             each counter under darshan-parser's name
//   darshan/<log>/<DXT>.read, darshan/<log>/<DXT>.write  DXT segments of one operation, in time
//                             order (t = start in ns; process = rank), with fields derived at
//                             import: duration, sequential and consecutive flags, size class
//   darshan/<log>/<DXT>.files the DXT file records: id, rank, hostname, write and read counts
//   darshan/<log>/HEATMAP.<module>  the HEATMAP bins with bytes (binary logs)
//   darshan/<log>/<MODULE>.total  the module's records aggregated as darshan-parser --total does
//   darshan/<log>/perf        one record per module that darshan-util keeps an accumulator for
//                             (POSIX, MPI-IO, STDIO, DFS, DAOS): what `darshan-parser --perf`
//                             and `--file` print for it, computed at import over the records in
//                             the log's order
// <log> is the log's number in darshan.logs (from 0); several logs, of one job id or of many, live
// side by side.
//
// Thread-safety: immutable.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/schema.h"

namespace xtfq {

class DarshanLayout {
 public:
  static constexpr std::string_view kLogs = "darshan.logs";
  static constexpr std::string_view kSource = "darshan.source";
  static constexpr uint32_t kSourceChunk = 1u << 20;
  enum class SourceKind : uint8_t { kBinary = 0, kParserText = 1 };

  // "darshan/<log>/<part>".
  static std::string ArrayName(int64_t log, std::string_view part);

  // darshan.logs: log i64, job i64, uid i64, start_sec, start_nsec, end_sec, end_nsec, nprocs i64,
  // format_minor i64, partial u64 (bit i = module slot i, numbered as in format 3.41),
  // source_kind u8, source_bytes u64, exe, metadata, mounts ("path\tfs_type\n" lines, darshan-util's order), file (the
  // imported file's name): u64 string references.
  static const Schema& LogSchema();
  // darshan.source: key i64 (time: SourceKey(log, chunk), so one descent finds a chunk), log i64,
  // chunk u64, bytes u32, data u64 (string reference).
  static const Schema& SourceSchema();
  static int64_t SourceKey(int64_t log, uint64_t chunk);
  // darshan/<log>/names: id u64, name u64 (string reference).
  static const Schema& NamesSchema();
  // A counter module's schema: id u64, rank i64 (process), t i64 (time), the int counters (i64),
  // the float counters (f64), then `file_rec_id` (u64) when the module has one and `tail` (u64
  // string reference: DFS/DAOS UUIDs and OID) when it has a trailer. Aggregated: the counters
  // that the signals add up (reads, writes, bytes, times; see docs/format.md).
  static Result<Schema> CounterSchema(const std::vector<std::string_view>& names, size_t ints, bool file_rec,
                                      bool tail);
  // darshan/<log>/<MODULE>.total (POSIX, MPI-IO, STDIO, DFS, DAOS): one record, the module's
  // records aggregated as `darshan-parser --total` prints them: id u64 (the record id when every
  // record names one file, else 0), rank i64 (-1), t i64 (0; time), then the counters as in
  // CounterSchema; no process field, nothing aggregated, no file record id or trailer.
  static Result<Schema> TotalSchema(const std::vector<std::string_view>& names, size_t ints);
  // A DXT segment: t i64 (start, ns; time), rank i64 (process), file u64 (record id),
  // offset i64, length i64*, duration f64* (end - start, seconds), seq u8*, consec u8*,
  // size_<bin> u8* for Darshan's ten size classes, thread u64 (0 when the log has none);
  // * = aggregated. 68 bytes. The exact start and end doubles stay in the source.
  static constexpr uint32_t kDxtOffsetT = 0, kDxtOffsetRank = 8, kDxtOffsetFile = 16, kDxtOffsetOffset = 24,
                            kDxtOffsetLength = 32, kDxtOffsetDuration = 40, kDxtOffsetSeq = 48, kDxtOffsetConsec = 49,
                            kDxtOffsetSizeClasses = 50, kDxtOffsetThread = 60, kDxtWidth = 68;
  static const Schema& DxtSchema();
  // darshan/<log>/<DXT>.files: id u64, rank i64, hostname u64 (string reference), writes i64, reads i64.
  static const Schema& DxtFileSchema();
  // darshan/<log>/HEATMAP.<module> (the record named "heatmap:<module>"; HEATMAP.<id> when it
  // has no such name): one record per non-empty bin: t i64 (the bin's start, ns; time), rank i64
  // (process), bin u32, width f64 (seconds), read_bytes i64*, write_bytes i64*.
  static const Schema& HeatmapSchema();
  static constexpr uint32_t kHeatOffsetT = 0, kHeatOffsetRank = 8, kHeatOffsetBin = 16, kHeatOffsetWidth = 20,
                            kHeatOffsetRead = 28, kHeatOffsetWrite = 36, kHeatWidth = 44;

  // darshan/<log>/perf: slot i64 (the module's slot, as in format 3.41; time), records i64,
  // total_bytes i64, slowest_rank i64, slowest_rank_io_time, slowest_rank_meta_only_time,
  // slowest_rank_rw_only_time, time_by_slowest, agg_time_by_slowest, agg_perf_by_slowest (f64;
  // seconds, MiB/s), then for each of `darshan-parser --file`'s lines (kFileLines) its columns
  // <line>_file_count, <line>_total_bytes, <line>_max_byte_offset (i64). 224 bytes.
  static const Schema& PerfSchema();
  static constexpr std::array<std::string_view, 6> kFileLines = {"total",      "read_only", "write_only",
                                                                 "read_write", "unique",    "shared"};

  // Darshan's 10 size classes (DARSHAN_BUCKET_INC): <= 100, 1 KiB, 10 KiB, 100 KiB, 1 MiB, 4 MiB,
  // 10 MiB, 100 MiB, 1 GiB, more.
  static constexpr int kSizeClasses = 10;
  static int SizeClass(int64_t bytes);
  // The suffixes darshan-parser gives the size classes: "0_100", "100_1K", ..., "1G_PLUS".
  static std::string_view SizeClassName(int size_class);
  // The module of a log's slot in Darshan's current numbering (3.41): "POSIX", "MPI-IO", ... ("" for
  // a slot Darshan does not name); the partial-flag bits of darshan.logs follow these slots.
  static std::string_view ModuleName(int slot);
  static constexpr int kModuleSlots = 64;
};

}  // namespace xtfq
