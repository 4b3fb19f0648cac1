// JobStatsLayout: how Lustre job_stats live in a store (docs/format.md, "Job stats layout"): the
// array names, record schemas and field offsets shared by the importer (which writes them) and
// the query layer (which reads them). Times are whole seconds since the Unix epoch.
//
//   jobstats.targets      one record per target (OST/MDT) ever seen: name; record number = id
//   jobstats.ops          one record per operation name ever seen; record number = id
//   jobstats.series       one record per series (target, raw job id), in order of first sight:
//                         the raw id and what the job-id templates made of it (class, job, uid,
//                         gid, pid, node, executable); record number = series id
//   jobstats.collections  one record per (target, collection): when the collector read it
//                         (time), the target (process, P index), where its entries and counters
//                         start, the snapshot file
//   jobstats.entries      every entry of every collection, as read: series, snapshot, start and
//                         elapsed time, where its counters are
//   jobstats.counters     every non-zero counter of every entry, as read: samples, unit, min,
//                         max, sum, sumsq, histogram (zero counters are Lustre's implicit zeros)
//   jobstats/op/<op>      the rate step function of each (series, op) of Lustre's own ops and of
//                         at most kMaxOtherOpArrays other op names: one record per step with
//                         a non-zero change, time = the step's end t1 (the collection that
//                         revealed it), t0 its start, the target, the change in the op's value
//                         (bytes for bytes counters, otherwise events), samples and sum, and the
//                         rate; steps of one target and collection share t0 and are contiguous
//                         (a *block*)
//   jobstats/block/<op>   one record per block of jobstats/op/<op>: where its steps are, their
//                         sums and highest rate; process = the target (P index), so a target's
//                         window is read from its blocks, not from a copy of every step
//   jobstats/sum/<key>    the window summaries by job, uid, node or class (docs/format.md, "Job
//                         stats summaries"): one record per extension, the time they are sealed to
//   jobstats/sum/<key>/<j>  level j: per bin of 2^(bin_shift + j) seconds, group and op, the
//                         integral of the group's rate, its peak, the highest rate of one of its
//                         steps, and the steps starting in it
//
// Thread-safety: immutable.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "store/schema.h"

namespace xtfq {

// What a job id is (importers/jobstats/JobIdClassifier decides; stored in jobstats.series).
enum class JobIdClass : uint8_t { kOk = 0, kMissingJob = 1, kFqdn = 2, kTruncated = 3, kSystemUid = 4, kMalformed = 5 };
inline constexpr size_t kJobIdClasses = 6;
// "ok", "missing_job", "fqdn", "truncated", "system_uid", "malformed"; "unknown" past them.
std::string_view JobIdClassName(JobIdClass c);

class JobStatsLayout {
 public:
  static constexpr std::string_view kTargets = "jobstats.targets";
  static constexpr std::string_view kOps = "jobstats.ops";
  static constexpr std::string_view kSeries = "jobstats.series";
  static constexpr std::string_view kCollections = "jobstats.collections";
  static constexpr std::string_view kEntries = "jobstats.entries";
  static constexpr std::string_view kCounters = "jobstats.counters";
  static std::string StepArrayName(std::string_view op);  // "jobstats/op/<op>"
  static constexpr std::string_view kStepArrayPrefix = "jobstats/op/";
  static std::string BlockArrayName(std::string_view op);  // "jobstats/block/<op>"
  static constexpr std::string_view kBlockArrayPrefix = "jobstats/block/";
  // Whether `op` is one of the ops Lustre prints (MDT and OST, 2.3 to master and DDN's, as listed
  // in ../shared/docs/lustre-jobstats.md, section 3).
  static bool IsLustreOp(std::string_view op);
  // Whether an array of this name is one of the layout's (its times are epoch seconds).
  static bool Owns(std::string_view array_name) { return array_name.starts_with("jobstats"); }

  // jobstats.targets: name u64 (string reference). 8 bytes.
  static const Schema& TargetSchema();
  // jobstats.ops: name u64 (string reference). 8 bytes.
  static const Schema& OpSchema();

  // jobstats.series: t i64 (first collection; time), target u32, cls u8 (JobIdClass), tmpl i8
  // (the template that matched, -1 none), quoted u8, pad u8, uid i64, gid i64, pid i64
  // (INT64_MIN when absent), raw, job, node, exe u64 (string references; 0 for an empty string).
  static const Schema& SeriesSchema();
  static constexpr uint32_t kSerT = 0, kSerTarget = 8, kSerCls = 12, kSerTmpl = 13, kSerQuoted = 14, kSerUid = 16,
                            kSerGid = 24, kSerPid = 32, kSerRaw = 40, kSerJob = 48, kSerNode = 56, kSerExe = 64,
                            kSerWidth = 72;

  // jobstats.collections: t i64 (collection time; time), target i64 (process), first_entry u64,
  // entries u32, flags u32 (bit 0: since-boot header clock; bit 1: the target was empty),
  // first_counter u64, counters u32, duplicates u32 (entries replaced by a later one of the same
  // id), file u64 (string reference: the snapshot's file name). 56 bytes.
  static const Schema& CollectionSchema();
  static constexpr uint32_t kColT = 0, kColTarget = 8, kColFirstEntry = 16, kColEntries = 24, kColFlags = 28,
                            kColFirstCounter = 32, kColCounters = 40, kColDuplicates = 44, kColFile = 48,
                            kColWidth = 56;
  static constexpr uint32_t kColSinceBoot = 1, kColEmpty = 2;

  // jobstats.entries: t i64 (collection time; time), series u32, flags u32 (bit 0 quoted, bit 1
  // since boot, bit 2 has start_time, bit 3 has elapsed_time), snapshot f64, start f64,
  // elapsed f64, first_counter u64, counters u32, line u32 (of the job_id line). 56 bytes.
  static const Schema& EntrySchema();
  static constexpr uint32_t kEntT = 0, kEntSeries = 8, kEntFlags = 12, kEntSnapshot = 16, kEntStart = 24,
                            kEntElapsed = 32, kEntFirstCounter = 40, kEntCounters = 48, kEntLine = 52, kEntWidth = 56;
  static constexpr uint32_t kEntQuoted = 1, kEntSinceBoot = 2, kEntHasStart = 4, kEntHasElapsed = 8;

  // jobstats.counters: t i64 (collection time; time), series u32, op u32, unit u8 (0 none, 1
  // reqs, 2 bytes, 3 usecs, 4 other), has u8 (bit 0 min, 1 max, 2 sum, 3 sumsq), pad u16,
  // samples u64, min u64, max u64, sum u64, sumsq u64, hist u64 (string reference to
  // "4K:1 8K:2 ...", 0 when none). 68 bytes.
  static const Schema& CounterSchema();
  static constexpr uint32_t kCntT = 0, kCntSeries = 8, kCntOp = 12, kCntUnit = 16, kCntHas = 17, kCntSamples = 20,
                            kCntMin = 28, kCntMax = 36, kCntSum = 44, kCntSumsq = 52, kCntHist = 60, kCntWidth = 68;

  // jobstats/op/<op>: t1 i64 (step end; time), target u32, series u32, t0 i64 (step start),
  // flags u32 (kStep*), pad u32, delta u64* (the change of the op's value: bytes for bytes
  // counters, events otherwise), samples u64* (change of samples), sum u64* (change of sum);
  // * = aggregated. 56 bytes. Its rate is StepRate: delta / (t1 - t0) per second.
  static const Schema& StepSchema();
  static constexpr uint32_t kStepT1 = 0, kStepTarget = 8, kStepSeries = 12, kStepT0 = 16, kStepFlags = 24,
                            kStepDelta = 32, kStepSamples = 40, kStepSum = 48, kStepWidth = 56;
  // The legacy layout: stores written before the block arrays made `target` the process field
  // (a P index of step copies), stored each step's rate (f64*, at kStepRate) and have no
  // jobstats/block/<op>; they are still read and appended to in that layout. 64 bytes.
  static const Schema& LegacyStepSchema();
  static constexpr uint32_t kStepRate = 56, kLegacyStepWidth = 64;
  // The rate of a step record (either layout): delta / (t1 - t0), as the importer computes it.
  static double StepRate(const std::byte* step);
  // jobstats/block/<op>: the fields of a step where a step has them, for the block's steps:
  // t1 i64 (time), target u32 (process), steps u32* (how many), t0 i64, flags u32 (the steps'
  // flags or-ed), pad u32, delta u64*, samples u64*, sum u64* (their sums), rate f64* (the highest
  // step rate, where a legacy step has its own), first u64 (its first step's record number in
  // jobstats/op/<op>). 72 bytes. The block's summed rate is delta / (t1 - t0): its steps share
  // [t0, t1). Aggregates in the order delta, samples, sum, rate, steps: the first four are a
  // legacy step array's.
  static const Schema& BlockSchema();
  static constexpr uint32_t kBlockSteps = 12, kBlockFirst = 64, kBlockWidth = 72;
  static constexpr size_t kBlockStepsAggregate = 4;  // the aggregate index of `steps`
  static constexpr uint32_t kStepReset = 1,          // a counter went down: Δv = v'
      kStepStartChanged = 2,                         // start_time changed: an exact reset
      kStepNew = 4,                                  // absent at the previous collection: implicit zero
      kStepBytes = 8;                                // delta counts bytes (sum), not events (samples)

  // The window summaries of one group key ("job", "uid", "node", "class").
  static std::string SummaryName(std::string_view key);              // "jobstats/sum/<key>"
  static std::string SummaryLevelName(std::string_view key, int j);  // "jobstats/sum/<key>/<j>"
  static constexpr std::string_view kSummaryPrefix = "jobstats/sum/";
  // jobstats/sum/<key>: t i64 (the time sealed to; time), bin_shift i64 (level 0's bins are
  // 2^bin_shift seconds), bins i64 (level 0 bins summarised: those ending by t), steps u64 (the step
  // records of every op when it was written). 32 bytes.
  static const Schema& SummarySealSchema();
  static constexpr uint32_t kSealT = 0, kSealBinShift = 8, kSealBins = 16, kSealSteps = 24, kSealWidth = 32;
  // jobstats/sum/<key>/<j>: t i64 (the bin's start; time), group u32 (the first series of the
  // group), op u32, ended f64 (the sum of the deltas of the group's steps that end in (start, end]
  // of the bin: whole numbers, so sums of bins are exact), peak f64 (the highest sum of the group's
  // rates at one time in the bin), series_max f64 (the highest rate of one step overlapping it),
  // started u64 (steps starting in it), then at level 0 only: carry f64 (the parts before the bin's
  // start of the group's steps alive there, t0 < start < t1: with it, the integral over bins
  // [x, y) is the cells' `ended` plus carry(y) minus carry(x), read from cells alone) and alive u64
  // (how many steps are alive there: with it, the steps overlapping [x, y) are the cells' `started`
  // plus alive(x)). 64 bytes at level 0.
  static const Schema& SummaryCellSchema();
  static constexpr uint32_t kSumT = 0, kSumGroup = 8, kSumOp = 12, kSumEnded = 16, kSumPeak = 24, kSumSeriesMax = 32,
                            kSumStarted = 40, kSumCarry = 48, kSumAlive = 56, kSumWidth = 64;
  // Level 0's cells in a store written with the carry but before `alive` (commits 955de68 to
  // e7bf7c0): the first 56 bytes. Such a store's level 0 goes on being extended in this width.
  static const Schema& CarrySummaryCellSchema();
  static constexpr uint32_t kCarrySumWidth = 56;
  // Cells of levels 1 and up, and level 0's written before the carry (a store of commit 0c88583 or
  // older): the first 48 bytes. Such a store's level 0 goes on being extended in this width.
  static const Schema& LegacySummaryCellSchema();
  static constexpr uint32_t kLegacySumWidth = 48;

  // jobstats/zsum: the log-binned heatmap z(t, k) of the series' rates per level-0 bin, target
  // and op: t i64 (the bin's start; time), target u32, op u32, h0 .. h63 u32 (series whose rate
  // over the bin, its integral there over the bin's length, falls in log2 bin i of
  // store/log_histogram.h with lowest exponent kZRateExponent: i >= 1 holds [2^(i-21), 2^(i-20))).
  // 272 bytes.
  static constexpr std::string_view kZSummary = "jobstats/zsum";
  static constexpr int kZRateExponent = -20;
  static const Schema& ZCellSchema();
  static constexpr uint32_t kZT = 0, kZTarget = 8, kZOp = 12, kZCounts = 16, kZWidth = 272;

  // Rate steps are kept for Lustre's own ops (IsLustreOp) and for at most this many other op
  // names per store (the first to change, in the order read); the counters of every name are kept.
  static constexpr size_t kMaxOtherOpArrays = 32;

  // The value an op counts: bytes (its sum) for bytes counters (unit "bytes", or a name ending
  // in "_bytes", which 2.12-2.13 MDTs label "reqs"), otherwise events (its samples).
  static bool CountsBytes(std::string_view op, std::string_view unit);
  static uint8_t UnitCode(std::string_view unit);
  static std::string_view UnitName(uint8_t code);
};

}  // namespace xtfq
