// JobStatsImporter: job_stats snapshots into a store (layouts/JobStatsLayout), one snapshot at a
// time, in collection order. For each snapshot it
//   - takes the collection time (--at, a "# collected_at:" line, or the file name; refused
//     without one: snapshot_time is an entry's last update, not the read), in whole seconds;
//   - keeps the last of duplicate (target, job id) entries of one dump (docs section 2.4) and
//     counts the others;
//   - gives each new (target, raw id) a series, classified by JobIdClassifier (no id dropped);
//   - appends the collection, every entry and every non-zero counter as read;
//   - appends one rate step per (series, op) whose value changed since the target's previous
//     collection: Δv = v' - v, or v' when a counter went down (a reset) or start_time changed
//     (an exact reset); a series absent at the previous collection is new, with an implicit zero
//     at that collection's time; the target's first collection is only a baseline; the rate is
//     Δv / Δt over the collection times. sumsq is kept, never differenced (it wraps). Steps are
//     kept for Lustre's own ops and for the first JobStatsLayout::kMaxOtherOpArrays other names
//     to change (each op's steps are an array with a P index, so names read must not make
//     arrays without bound); the other names' counters are kept, and one warning per snapshot
//     names the first of them and how many there were.
// Bad entries are skipped by the parser and reported as problems ("file: line N: message").
// Names (targets, ops, job ids, nodes, files) are interned for good (JobStatsState::strings);
// histogram texts through a table of at most kMaxHistTexts, emptied when full: a cumulative
// histogram is nearly always a new text, and an import's memory must not grow with its counters.
// A snapshot older than the store's newest collection is refused (the store is append-only in
// time). A target whose collection at the same time the store already holds (its last one) is
// skipped and named in `held`: the same snapshot imported again is recognised, not refused.
//
// Thread-safety: one importer per sink and state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "importers/jobstats/jobid_classifier.h"
#include "importers/jobstats/jobstats_parser.h"
#include "importers/jobstats/jobstats_state.h"
#include "store/file.h"
#include "store/record_sink.h"

namespace xtfq {

struct JobStatsImportOptions {
  std::vector<std::string> templates;  // jobid_name templates; the default two when empty
  std::string target;                  // the target of a plain `cat` (no param= lines)
  std::optional<double> at;            // the collection time, overriding the file's
};

struct JobStatsImportStats {
  uint64_t collections = 0, entries = 0, duplicates = 0, counters = 0, steps = 0, new_series = 0, resets = 0;
  int64_t time = 0;                   // the collection time used (seconds)
  std::vector<std::string> problems;  // "file: line N: message" of each skipped entry
  std::vector<std::string> warnings;  // "file: line N: message": read and kept, but not all used
  std::vector<std::string> held;      // targets skipped: the store already holds their collection at `time`
};

// One snapshot file read and parsed, not yet imported (JobStatsImporter::Parse).
struct JobStatsParsed {
  std::string name;  // the file's
  int64_t time = 0;  // the collection time (seconds)
  JobStatsParser::Summary summary;
  std::vector<JobStatsEntry> entries;
};

class JobStatsImporter {
 public:
  static constexpr size_t kMaxHistTexts = size_t{1} << 16;
  static Result<JobStatsImporter> Make(RecordSink& sink, JobStatsState& state, JobStatsImportOptions options);
  // The collection time of a snapshot without reading it all: `at`, else a "# collected_at:"
  // line among its first 64 lines, else its file name; an error naming the file when none.
  // Each must be an epoch time (EpochTime): --at is otherwise a usage error, the others refuse
  // the snapshot.
  static Result<double> CollectionTime(File& in, std::optional<double> at);
  // Whether `t` is a collection time: finite seconds from 1 to JobStatsParser::kMaxTime.
  static bool EpochTime(double t);
  Result<JobStatsImportStats> Import(File& in);
  // The two halves of Import: reading and parsing a snapshot (`at`: its collection time, as in
  // CollectionTime; `target`: as the options'), which touches no importer state and may run on
  // another thread, then importing it, in collection order.
  static Result<JobStatsParsed> Parse(File& in, const std::string& target, std::optional<double> at);
  Result<JobStatsImportStats> Import(const JobStatsParsed& parsed);
  // Sets the collection time of the snapshots that follow (as --at does).
  void set_time(std::optional<double> at) { options_.at = at; }

 private:
  // An op's step and block arrays (0: not looked up yet; blocks 0 in the legacy layout), and the
  // block of the collection being imported.
  struct OpSteps {
    ArrayId steps{0}, blocks{0};
    JobStatsState::StepArray* array = nullptr;  // in state_->step_ops
    uint32_t count = 0, flags = 0;
    uint64_t delta = 0, samples = 0, sum = 0;
    double rate = 0;
    std::vector<std::byte> steps_of_block;  // its step records, appended by series when it ends
    void Clear() {                          // the block done or dropped
      count = 0, flags = 0, delta = 0, samples = 0, sum = 0, rate = 0;
      steps_of_block.clear();
    }
  };
  // One target's collection as ImportTarget appends it: what its phases share.
  struct TargetImport {
    uint32_t g = 0;         // the target
    int64_t t = 0, t0 = 0;  // the collection's time, and the target's previous collection's
    bool baseline = false;  // the target's first collection: no steps
    ArrayId entry_array{0}, counter_array{0}, collection_array{0};
    uint64_t first_entry = 0, first_counter = 0;                // the records held before the collection
    uint32_t kept = 0, duplicates = 0;                          // entries appended, and duplicates skipped
    std::unordered_map<uint32_t, JobStatsState::Previous> now;  // series -> its counters at t
  };
  // An entry's series, and what the steps of its counters are taken against.
  struct EntrySteps {
    uint32_t series = 0;
    const JobStatsState::Previous* prev = nullptr;  // its counters at t0; nullptr when it is new
    bool start_changed = false;                     // its start_time changed since t0 (an exact reset)
    bool reset_counted = false;                     // a reset of it is counted in the stats
  };

  JobStatsImporter(RecordSink& sink, JobStatsState& state, JobStatsImportOptions options, JobIdClassifier c)
      : sink_(&sink), state_(&state), options_(std::move(options)), classifier_(std::move(c)) {}
  Result<uint64_t> Intern(std::string_view s);
  // The id of a target or op name in `array` (ids), appended as the next record when new.
  Result<uint32_t> NameId(std::string_view array, const std::string& name, JobStatsState::StringMap<uint32_t>& ids,
                          size_t count);
  Result<uint32_t> TargetId(const std::string& name);
  Result<uint32_t> OpId(const std::string& name);
  // OpId of the k-th counter of an entry: Lustre prints an entry's ops in the same order every
  // time, so the op at k last time is compared first (no hash lookup when it is the same).
  Result<uint32_t> OpAt(size_t k, const std::string& name);
  Result<uint32_t> SeriesId(uint32_t target, const JobStatsEntry& e, int64_t t, bool* created);
  Result<ArrayId> Array(std::string_view name, const Schema& schema);
  // A histogram text's reference: the one given to the same text while it is in hist_texts_.
  Result<uint64_t> InternHistogram(std::string_view text);
  // Whether the steps of `op` are kept: it has its array, or may have one (Lustre's own, or
  // fewer than kMaxOtherOpArrays other names have one).
  bool StepsKept(const std::string& op) const;
  // The step arrays of op id `op`, created when new.
  Result<OpSteps*> StepArrays(uint32_t op, const std::string& name);
  // Appends the steps of each op with steps in the collection (t0, t1) of target g, in series
  // order, and their block record.
  Status AppendBlocks(uint32_t g, int64_t t0, int64_t t1);
  void DropBlocks();
  // Appends one target's collection: its entries (deduplicated) and their steps.
  Status ImportTarget(const std::string& file, const std::string& target, std::vector<const JobStatsEntry*> entries,
                      int64_t t, bool since_boot, JobStatsImportStats& stats);
  // ImportTarget's phases. Appends a kept entry: its series, its non-zero counters with their
  // steps, and its record.
  Status ImportEntry(TargetImport& ti, const JobStatsEntry& e, JobStatsImportStats& stats);
  // Appends the counter record of non-zero counter `c` (op id `op`) of series `series`.
  Status AppendCounter(const TargetImport& ti, uint32_t series, uint32_t op, const JobStatsCounter& c);
  // Adds the step of counter `c` (op id `op`) since t0 to its op's block (AppendBlocks appends
  // them), or notes its op as refused when the op's steps are not kept.
  Status AddStep(const TargetImport& ti, EntrySteps& es, uint32_t op, const JobStatsCounter& c,
                 JobStatsImportStats& stats);
  // Appends the entry record of `e`, whose counter records start at `first_counter`.
  Status AppendEntry(const TargetImport& ti, uint32_t series, const JobStatsEntry& e, uint64_t first_counter);
  // Appends the collection record of the target's collection, read from `file`.
  Status AppendCollection(const TargetImport& ti, const std::string& file, bool since_boot);

  RecordSink* sink_;
  JobStatsState* state_;
  JobStatsImportOptions options_;
  JobIdClassifier classifier_;
  JobStatsState::StringMap<ArrayId> arrays_;
  std::vector<OpSteps> step_arrays_;               // by op id
  std::vector<uint32_t> blocks_;                   // the ops with a step in the collection being imported
  std::string series_key_;                         // SeriesId's key, its buffer reused
  std::vector<uint32_t> op_at_;                    // OpAt: the op id of the k-th counter last time
  JobStatsState::StringMap<uint64_t> hist_texts_;  // histogram text -> its reference (bounded)
  // Op names of the snapshot being imported whose steps are not kept, and the first of them.
  std::unordered_set<std::string> refused_;
  const JobStatsCounter* first_refused_ = nullptr;
};

}  // namespace xtfq
