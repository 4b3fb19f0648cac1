// JobStatsSummary: the window summaries of job_stats by job, uid or class (docs/format.md,
// "Job stats summaries"; docs/architecture.md, "job_stats summaries"), so that a window's totals,
// peaks and step counts per group (`xtfq query --jobstats --by job`, the viewer's top jobs) come
// from O(groups x log(window / bin)) cells and the steps of two short ends, not from every step of
// the window.
//
// Level 0 cuts time into bins of 2^bin_shift seconds (the least power of two at least twice the
// targets' usual collection interval); level j into bins of 2^(bin_shift + j), aligned on 0. A cell
// holds, for one bin, group and op: `ended`, the deltas of the group's steps that end in the bin
// (whole, wherever they started), the group's peak in the bin (the highest sum of its rates at one
// instant), the highest rate of one of its steps that overlaps the bin, the steps that start in
// it, and at level 0 the carry (the parts before the bin's start of the steps alive there). Level
// j's cells are merged from level j - 1's two halves (sums and maxima), so they do not depend on
// how the summaries were extended.
//
// A window [t1, t2) is read as: the cells of [a, b), a and b the level-0 bin edges inside it, cut
// into the largest aligned bins of the levels, and the steps alive at t1 or overlapping [t1, a), and
// alive at b or overlapping [b, t2), which give the parts of the steps across a, b and the window's
// edges. Every number equals the steps' own (JobStatsWindowQuery's path), up to the order of
// floating-point additions; totals of whole steps are exact. A window whose t1 and t2 are both
// summarised bin edges (the bin at t2 summarised too) reads no step: its totals are `ended` plus
// carry(t2) minus carry(t1), its step counts `started` plus alive(t1) (level 0's cells at t1, t2).
//
// A grid column [x, y) on summarised bin edges is `ended` over its bins plus carry(y) minus
// carry(x) (ColumnTotals): no step is read.
//
// With them, per level-0 bin, target and op, the log-binned heatmap z(t, k) of the series' rates
// over the bin (`jobstats/zsum`), which adds up over any set of targets.
//
// Sealing. A target's next step starts at its last collection, and imports go forward in time, so
// no step to come overlaps time before the earliest of the targets' last collections: that time
// is *sealed*, and Extend() summarises every level-0 bin that ends by it (at each import and
// collection). b is never past the seal; later steps are read.
//
// Thread-safety: one thread at a time (shares the view's reader).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "query/jobstats/jobstats_view.h"
#include "store/record_sink.h"

namespace xtfq {

// What a group holds over a window, for one op.
struct JobStatsSummaryPart {
  double total = 0, peak = 0, series_max = 0;
  uint64_t steps = 0;
};

struct JobStatsSummaryReport {
  bool extended = false;  // something was appended (the caller commits)
  uint64_t cells = 0;     // cells written
  int64_t sealed = 0;     // the time sealed to
  int bin_shift = 0;
  uint64_t steps_read = 0;
};

class JobStatsSummary {
 public:
  // The group keys that have summaries (by node, or by target with a series filter, a window
  // reads its steps: each key costs about as much space as the steps).
  static constexpr JobStatsKey kKeys[] = {JobStatsKey::kJob, JobStatsKey::kUid, JobStatsKey::kClass};
  static bool Summarises(JobStatsKey key);
  // "job, uid and class".
  static std::string KeyNames();

  // Summarises every sealed level-0 bin not yet summarised, for every key, into `sink` (the caller
  // commits). Each pass over the steps covers up to 16 level-0 bins, fewer when the store's steps
  // are dense: about `chunk_steps` steps a pass (every one is held, per key, for its cell's peak
  // until its bin is done), so memory follows chunk_steps, not the store. The cells do not depend
  // on it.
  static constexpr uint64_t kChunkSteps = uint64_t{1} << 20;
  static Result<JobStatsSummaryReport> Extend(JobStatsView& view, RecordSink& sink, uint64_t chunk_steps = kChunkSteps);
  // Recomputes every stored cell from the steps and compares them byte for byte (kCorrupt names the
  // first that differs). Ok when the store has none.
  static Status Verify(JobStatsView& view);

  // The summaries of `key`, or nullopt when there are none.
  static Result<std::optional<JobStatsSummary>> Load(JobStatsView& view, JobStatsKey key);
  // What a reader needs of level 0's cells: any (kCells: a window's interior), the carry
  // (ColumnTotals: a grid's columns), or the carry and the alive counts (a window read from cells
  // alone). Stores made before those fields have cells without them.
  enum class Need { kCells, kCarry, kAlive };
  // The summaries that answer rows of `by` (one key of kKeys) over every target: no filter but ops,
  // not `scan`, with cells that have what `need` asks. Otherwise nullopt, and why not in `*why` when
  // given (for the notes of --snap).
  static Result<std::optional<JobStatsSummary>> ForRows(JobStatsView& view, const std::vector<JobStatsKey>& by,
                                                        const JobStatsFilter& filter, bool scan,
                                                        Need need = Need::kCells, std::string* why = nullptr);
  // Why these cells cannot serve `need` (made before the field it reads), or nullopt when they can.
  std::optional<std::string> Lacks(Need need) const;

  int64_t sealed() const { return sealed_; }
  // Whether level 0's cells hold their carry (stores made before it do not), so that ColumnTotals
  // can answer (Lacks(Need::kCarry) says why not).
  bool has_carry() const { return carry_; }
  // Whether level 0's cells also count the steps alive at their start, so that a window on
  // summarised bin edges is read from cells alone (Window).
  bool has_alive() const { return alive_; }
  // Level 0's bins, in seconds.
  int64_t bin_seconds() const { return int64_t{1} << bin_shift_; }
  // The end of the last summarised bin: windows before it are read from the cells.
  int64_t summarised_to() const;

  // What the window [t1, t2) holds, per (group << 32 | op index) of the ops with `wanted[op]`.
  // `cells` and `steps_read` count what was read.
  using Parts = std::unordered_map<uint64_t, JobStatsSummaryPart>;
  Result<Parts> Window(int64_t t1, int64_t t2, const std::vector<char>& wanted, uint64_t& cells,
                       uint64_t& steps_read) const;

  // Whether ColumnTotals answers [x, y): the cells hold their carry, x < y are level-0 bin edges,
  // and the bin that starts at y is summarised (its cells hold the carry at y).
  bool FromCells(int64_t x, int64_t y) const;
  // Per group (its first series), the integral of its op `op` rate steps over each span [x, y)
  // (each one FromCells), from the cells alone: the `ended` of its bins, cut into the largest
  // aligned bins of the levels, plus the carry at y, minus the carry at x (level 0's cells there).
  // Equal to the steps' own integral up to rounding. A group's vector has one value per span.
  // `cells` counts the cells read.
  using Span = std::pair<int64_t, int64_t>;
  Result<std::unordered_map<uint32_t, std::vector<double>>> ColumnTotals(const std::vector<Span>& spans, uint32_t op,
                                                                         uint64_t& cells) const;
  // The edges of at most `cols` equal columns of whole level-0 bins that cover [t1, t2): from the
  // start of the bin holding t1, each the fewest bins that keep to `cols` (with 1: the window moved
  // outward onto bin edges).
  std::vector<int64_t> SnappedEdges(int64_t t1, int64_t t2, uint32_t cols) const;

 private:
  JobStatsSummary(JobStatsView& view, JobStatsKey key) : view_(&view), key_(key) {}
  // Per series, its group (the first series of the same key value).
  const std::vector<uint32_t>& GroupOf() const;
  // Why a store has none (Load gave nullopt), in words: no bin is sealed yet (the first level-0
  // bin ends after the earliest target's last collection), or they were not made (--no-grid).
  static Result<std::string> WhyNone(JobStatsView& view);
  // Calls fn(level j, its bin's first level-0 bin) for the largest aligned bins of the levels that
  // cut level-0 bins [ia, ib), in time order.
  Status EachPiece(int64_t ia, int64_t ib, const std::function<Status(int j, int64_t pos)>& fn) const;
  // Adds the cells of level-0 bins [ia, ib) (EachPiece) to `out` (totals, maxima, steps started);
  // `first0`, when given, also gets level 0's cells at ia when the first piece is one of them (and
  // is then set to nullptr), so that they are read once.
  using CellFn = std::function<void(uint64_t key, const std::byte* cell, uint32_t width)>;
  Status AddBins(int64_t ia, int64_t ib, const std::vector<char>& wanted, Parts& out, uint64_t& cells,
                 const CellFn** first0 = nullptr) const;
  // Window for t1, t2 on summarised bin edges (FromCells) with alive counts: from cells alone.
  Result<Parts> Aligned(int64_t t1, int64_t t2, const std::vector<char>& wanted, uint64_t& cells) const;

  JobStatsView* view_;
  JobStatsKey key_;
  int64_t sealed_ = 0;
  int bin_shift_ = 0;
  bool carry_ = false;
  bool alive_ = false;
  int64_t bins_ = 0;                      // level-0 bins summarised: those before bins_ << bin_shift_
  std::vector<const ArrayDesc*> levels_;  // level j's cells (nullptr: none)
  // Per series, its group (the first series of the same key value): made when first asked for
  // (hashing every series' key costs milliseconds).
  mutable std::vector<uint32_t> groups_;
};

}  // namespace xtfq
