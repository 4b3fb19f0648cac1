// SlurmLayout: how Slurm job profiles (acct_gather_profile/hdf5 files, node-step or merged by
// sh5util) live in a store (docs/format.md, "Slurm layout"): array names, record schemas and field
// offsets shared by the importer (which writes them) and the query layer (which reads them). Times
// are whole seconds since the Unix epoch (the files' EpochTime).
//
//   slurm.series        one record per dataset read (a task's, or a node's Network, Filesystem or
//                       Energy series): job, step, task, node, the node group's attributes, the
//                       file and path it came from; record number = series id
//   slurm/<job>/tasks   every row of the job's Tasks datasets, in time order: the fields as read,
//                       the exact bytes behind ReadMB and WriteMB, process = series (P index)
//   slurm/<job>/fs      every row of its Filesystem datasets: as read, and per-row changes (the
//                       lustre gatherer writes running totals before Slurm 25.11)
//   slurm/<job>/net     every row of its Network datasets: as read, and bytes and packets by what
//                       they count (the sysfs gatherer writes bytes under PacketsIn/Out)
//   slurm/<job>/other   every value of a field no schema above has (Energy series, fields of later
//                       Slurm versions): one record per (row, field)
//
// Thread-safety: immutable.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "store/schema.h"

namespace xtfq {

class SlurmLayout {
 public:
  static constexpr std::string_view kSeries = "slurm.series";
  static constexpr std::string_view kJobPrefix = "slurm/";
  // "slurm/<job>/<kind>" with kind one of "tasks", "fs", "net", "other".
  static std::string JobArrayName(int64_t job, std::string_view kind);
  static bool Owns(std::string_view array_name) { return array_name.starts_with("slurm"); }

  // The kind of a series (slurm.series `kind`).
  enum Kind : uint8_t { kTasks = 0, kNetwork = 1, kFilesystem = 2, kEnergy = 3, kOtherKind = 4 };
  static std::string_view KindName(uint8_t kind);  // "Tasks", "Network", "Filesystem", "Energy", "other"
  // Where a series came from (slurm.series `source`).
  enum Source : uint8_t { kNodeStep = 0, kMerged = 1, kInflux = 2 };
  static std::string_view SourceName(uint8_t source);
  // The step id Slurm's influxdb plugin and this layout give a batch script.
  static constexpr int64_t kBatchStep = -5;
  // A step's name as Slurm prints it: "batch" (-5), "extern" (-4), "interactive" (-6), or its number.
  static std::string StepName(int64_t step);

  // slurm.series: job i64, step i64 (batch -5), task i64 (the global task id; -1 for a node
  // series), start i64 (EpochTime - ElapsedTime of its first row; INT64_MIN with no rows),
  // node_index i32, ntasks i32, cpus_per_task i32 (the node group's attributes; -1 when absent),
  // kind u8, source u8, flags u16 (kSer*), rows u32, step_nodes i32 (a merged step's "Number of
  // Nodes"; -1 when absent), node, path, file, start_text u64 (string references: the node's
  // name, the dataset's path, the input file, the node group's "Start Time" as written). 88 bytes.
  static const Schema& SeriesSchema();
  static constexpr uint32_t kSerJob = 0, kSerStep = 8, kSerTask = 16, kSerStart = 24, kSerNodeIndex = 32,
                            kSerNtasks = 36, kSerCpusPerTask = 40, kSerKind = 44, kSerSource = 45, kSerFlags = 46,
                            kSerRows = 48, kSerStepNodes = 52, kSerNode = 56, kSerPath = 64, kSerFile = 72,
                            kSerStartText = 80, kSerWidth = 88;
  static constexpr uint16_t kSerDuplicate = 1,  // the same rows as an earlier series (a merged copy): no samples
      kSerSysfsSwap = 2,                        // Network: PacketsIn/Out hold bytes, InMB/OutMB packets / 2^16
      kSerCumulative = 4,                       // Filesystem: running totals, changes computed per row
      kSerNoStepNodes = 8;                      // a merged step without its "Number of Nodes"

  // The head every sample record starts with: t i64 (EpochTime; time), series u32 (process),
  // row u32 (in its dataset), elapsed i64 (ElapsedTime), flags u32 (kRow*), interval u32 (seconds
  // since the row before it in its series: the deltas of the row accrued over [t - interval, t); 0
  // for row 0, a repeat, or a time that went back). 32 bytes. `interval` is aggregated in the
  // tasks, fs and net arrays: its maximum bounds how far a window's edge reaches (SlurmWindowQuery).
  static constexpr uint32_t kT = 0, kSeriesId = 8, kRow = 12, kElapsed = 16, kFlags = 24, kInterval = 28,
                            kHeadWidth = 32;
  static constexpr uint32_t kRowFirst = 1,  // row 0: Slurm zeroes its deltas
      kRowRepeat = 2,                       // the same EpochTime as the row before it in its series
      kRowReset = 4,                        // a running total went down: its change is its value
      kRowInexact = 8,                      // a MB value that is not a whole number of bytes (rounded)
      kRowProcExit = 16;  // Tasks: VMSize or Pages fell (a process of the task exited), so Slurm's CPUTime,
                          // ReadMB and WriteMB here may be the survivors' totals, not deltas

  // slurm/<job>/tasks: the head, cpu_freq u64, cpu_time f64*, cpu_util f64, rss u64*, vmsize u64*,
  // pages u64*, read_mb f64, write_mb f64 (as read), read_bytes u64*, write_bytes u64* (MB x 2^20),
  // gpu_mem_mb u64, gpu_util f64 (0 when the file has none). * = aggregated. 128 bytes.
  static const Schema& TasksSchema();
  static constexpr uint32_t kTaCpuFreq = 32, kTaCpuTime = 40, kTaCpuUtil = 48, kTaRss = 56, kTaVmSize = 64,
                            kTaPages = 72, kTaReadMb = 80, kTaWriteMb = 88, kTaReadBytes = 96, kTaWriteBytes = 104,
                            kTaGpuMemMb = 112, kTaGpuUtil = 120, kTaWidth = 128;

  // slurm/<job>/fs: the head, reads u64, read_mb f64, writes u64, write_mb f64 (as read),
  // d_reads u64*, d_read_bytes u64*, d_writes u64*, d_write_bytes u64* (each row's change: the
  // difference from the row before for running totals, else the value). 96 bytes.
  static const Schema& FilesystemSchema();
  static constexpr uint32_t kFsReads = 32, kFsReadMb = 40, kFsWrites = 48, kFsWriteMb = 56, kFsDReads = 64,
                            kFsDReadBytes = 72, kFsDWrites = 80, kFsDWriteBytes = 88, kFsWidth = 96;

  // slurm/<job>/net: the head, packets_in u64, packets_out u64, in_mb f64, out_mb f64 (as read,
  // under the file's names), in_bytes u64*, out_bytes u64*, in_packets u64*, out_packets u64* (by
  // what they count). 96 bytes.
  static const Schema& NetworkSchema();
  static constexpr uint32_t kNetPacketsIn = 32, kNetPacketsOut = 40, kNetInMb = 48, kNetOutMb = 56, kNetInBytes = 64,
                            kNetOutBytes = 72, kNetInPackets = 80, kNetOutPackets = 88, kNetWidth = 96;

  // slurm/<job>/other: the head, field u64 (string reference: the field's name), type u8 (0 u64,
  // 1 i64, 2 f64), pad 7 bytes, value u64 (the value's bits). 56 bytes.
  static const Schema& OtherSchema();
  // The unit of a sample array's field as a grid or a report labels it: "bytes", "s", "KiB",
  // "ops", "packets", "MB", "pages", "kHz", "%", "s" for `interval`, "" when it has none.
  static std::string_view FieldUnit(std::string_view field);
  static constexpr uint32_t kOtField = 32, kOtType = 40, kOtValue = 48, kOtWidth = 56;
  enum ValueType : uint8_t { kU64 = 0, kI64 = 1, kF64 = 2 };
};

}  // namespace xtfq
