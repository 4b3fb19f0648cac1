#include "query/jobstats/jobstats_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "index/tn_tree.h"
#include "layouts/jobstats_layout.h"
#include "query/grid/grid_query.h"
#include "query/jobstats/rate_peak.h"
#include "store/endian.h"
#include "store/log_histogram.h"

namespace xtfq {

namespace {

using L = JobStatsLayout;

// Levels 0 .. kLevels - 1.
constexpr int kLevels = 40;
// Level-0 bins whose steps are gathered in one pass of the step arrays: at most kChunk, fewer
// when the store's steps are dense enough that a chunk would hold more than
// JobStatsSummary::kChunkSteps of them (Compute).
constexpr int64_t kChunk = 16;

struct Acc {
  double total = 0, peak = 0, series_max = 0;
  double carry = 0;    // the parts before the bin's start of the steps alive there
  uint64_t alive = 0;  // and how many they are
  uint64_t started = 0;
  uint32_t steps = 0;  // while level 0 is built (Compute): where the cell's RatePeak is
};
using Cells = std::unordered_map<uint64_t, Acc>;  // (group << 32) | op

// Merges half `c` into its parent `p`; the parent starts where its first half does, so it takes
// that half's carry and alive steps.
void Merge(Acc& p, const Acc& c, bool first_half) {
  p.total += c.total, p.peak = std::max(p.peak, c.peak), p.series_max = std::max(p.series_max, c.series_max);
  p.started += c.started;
  if (first_half) p.carry = c.carry, p.alive = c.alive;
}

// A cell of `width` bytes (a legacy cell has no carry, a carry cell no alive count).
Acc Decode(const std::byte* r, uint32_t width) {
  Acc a;
  a.total = LoadLe<double>(r + L::kSumEnded), a.peak = LoadLe<double>(r + L::kSumPeak);
  a.series_max = LoadLe<double>(r + L::kSumSeriesMax), a.started = LoadLe<uint64_t>(r + L::kSumStarted);
  if (width >= L::kCarrySumWidth) a.carry = LoadLe<double>(r + L::kSumCarry);
  if (width >= L::kSumWidth) a.alive = LoadLe<uint64_t>(r + L::kSumAlive);
  return a;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

std::string KeyName(JobStatsKey k) { return std::string(JobStatsKeyName(k)); }

// The collections: the first, the sealed time (the earliest of the targets' last collections),
// and the median gap between a target's consecutive collections among its first kGapSample. With
// the collections' P index each target's array gives its first and last collection in two record
// reads (an extension at every collection must not read every collection ever made); without it,
// every collection is read.
constexpr uint64_t kGapSample = 64;

struct Times {
  bool any = false;
  int64_t first = 0, sealed = 0, gap = 0;
};

Result<Times> CollectionTimes(JobStatsView& view) {
  Times out;
  StoreReader& reader = view.reader();
  const ArrayDesc* c = reader.catalogue().Find(L::kCollections);
  if (c == nullptr || c->record_count() == 0) return out;
  std::vector<int64_t> gaps;
  out.any = true, out.first = INT64_MAX, out.sealed = INT64_MAX;
  // One target: its first collections in order (at least one), and its last.
  const auto target = [&](const std::vector<int64_t>& ts, int64_t last) {
    out.first = std::min(out.first, ts.front()), out.sealed = std::min(out.sealed, last);
    for (size_t i = 1; i < ts.size() && i < kGapSample; ++i) {
      if (ts[i] > ts[i - 1]) gaps.push_back(ts[i] - ts[i - 1]);
    }
  };
  if (c->process_index) {
    for (const ArrayDesc* pa : GridQuery::ProcessArrays(reader.catalogue(), *c, INT64_MIN, INT64_MAX)) {
      const uint64_t n = pa->record_count();
      if (n == 0) continue;
      std::vector<int64_t> ts;
      XTFQ_TRY(reader.ForEachAt(*pa, 0, std::min(n, kGapSample), [&](const std::byte* r) -> Result<bool> {
        ts.push_back(I64At(r, L::kColT));
        return true;
      }));
      std::vector<std::byte> last(c->schema.record_width());
      XTFQ_TRY(TnTree(reader.cache(), *pa).Record(n - 1, last));
      target(ts, I64At(last.data(), L::kColT));
    }
  } else {
    std::map<int64_t, std::vector<int64_t>> by_target;
    XTFQ_TRY(reader.ForEach(*c, [&](const std::byte* r) -> Status {
      by_target[I64At(r, L::kColTarget)].push_back(I64At(r, L::kColT));
      return Ok();
    }));
    for (auto& [g, ts] : by_target) {
      std::sort(ts.begin(), ts.end());
      target(ts, ts.back());
    }
  }
  if (!gaps.empty()) {
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
    out.gap = gaps[gaps.size() / 2];
  }
  return out;
}

// Level 0's bins: the least power of two at least twice the usual gap (256 s without one).
int BinShiftFor(int64_t gap) {
  if (gap <= 0) return 8;
  int s = 0;
  while (s < 40 && (int64_t{1} << s) < 2 * gap) ++s;
  return s;
}

std::vector<uint32_t> Groups(const JobStatsView& view, JobStatsKey k) {
  std::unordered_map<std::string, uint32_t> first;
  std::vector<uint32_t> out(view.series().size());
  for (uint32_t s = 0; s < out.size(); ++s) out[s] = first.try_emplace(view.GroupKey({k}, s, 0, ""), s).first->second;
  return out;
}

// One key's cells being built: the open bin of each level above 0.
struct KeyState {
  JobStatsKey key;
  std::vector<uint32_t> groups;
  std::vector<Cells> open = std::vector<Cells>(kLevels);
};

// emit(key state, level, cell record).
using Emit = std::function<Status(const KeyState&, int, std::span<const std::byte>)>;

// Writes bin b of level j (its cells in (op, group) order: one op's cells are a run) and merges it
// into its parent, which it completes when it is the second half.
Status Finish(KeyState& ks, int j, int64_t b, const Cells& cells, int shift, const Emit& emit) {
  std::vector<std::pair<uint64_t, const Acc*>> sorted;
  sorted.reserve(cells.size());
  for (const auto& [k, a] : cells) sorted.emplace_back(k, &a);
  const auto op_first = [](uint64_t k) { return (k << 32) | (k >> 32); };
  std::sort(sorted.begin(), sorted.end(),
            [&](const auto& x, const auto& y) { return op_first(x.first) < op_first(y.first); });
  std::byte r[L::kSumWidth];
  for (const auto& [k, a] : sorted) {
    StoreLe<int64_t>(r + L::kSumT, b << (shift + j));
    StoreLe<uint32_t>(r + L::kSumGroup, static_cast<uint32_t>(k >> 32));
    StoreLe<uint32_t>(r + L::kSumOp, static_cast<uint32_t>(k));
    StoreLe<double>(r + L::kSumEnded, a->total);
    StoreLe<double>(r + L::kSumPeak, a->peak);
    StoreLe<double>(r + L::kSumSeriesMax, a->series_max);
    StoreLe<uint64_t>(r + L::kSumStarted, a->started);
    StoreLe<double>(r + L::kSumCarry, a->carry);
    StoreLe<uint64_t>(r + L::kSumAlive, a->alive);
    XTFQ_TRY(emit(ks, j, std::span<const std::byte>(r, sizeof r)));
  }
  if (j + 1 >= kLevels) return Ok();
  Cells& parent = ks.open[static_cast<size_t>(j + 1)];
  for (const auto& [k, a] : cells) Merge(parent[k], a, (b & 1) == 0);
  if ((b & 1) == 0) return Ok();
  Cells done = std::move(parent);
  parent.clear();
  return Finish(ks, j + 1, b >> 1, done, shift, emit);
}

// The step arrays of the ops (by op index), and the longest step of each that ends after `after`
// (a step ending later than t + longest starts after t).
struct OpSteps {
  uint32_t op;
  const ArrayDesc* array;
  int64_t longest = 0;
};

Result<std::vector<OpSteps>> StepArrays(JobStatsView& view, int64_t after) {
  std::vector<OpSteps> out;
  const Catalogue& cat = view.reader().catalogue();
  for (uint32_t o = 0; o < view.ops().size(); ++o) {
    const ArrayDesc* a = cat.Find(L::StepArrayName(view.ops()[o]));
    if (a == nullptr || a->record_count() == 0) continue;
    OpSteps s{o, a};
    // A block's t0 and t1 are its steps': the block array, when there is one, is the short pass.
    const ArrayDesc* b = cat.Find(L::BlockArrayName(view.ops()[o]));
    TnTree t(view.reader().cache(), b != nullptr ? *b : *a);
    XTFQ_ASSIGN_OR_RETURN(uint64_t lo, t.LowerBound(after + 1));
    XTFQ_TRY(t.ForEach(lo, t.size(), [&](const std::byte* r) -> Result<bool> {
      s.longest = std::max(s.longest, I64At(r, L::kStepT1) - I64At(r, L::kStepT0));
      return true;
    }));
    out.push_back(s);
  }
  return out;
}

// emit_z(heatmap cell record).
using EmitZ = std::function<Status(std::span<const std::byte>)>;

// The heatmap cells of level-0 bin b: per (target, op), the series by the log2 bin of their rate
// over b (their integral there, `integral` by (series << 32 | op), over the bin's length).
Status FinishZ(const JobStatsView& view, int64_t b, int shift, const std::unordered_map<uint64_t, double>& integral,
               const EmitZ& emit) {
  std::map<uint64_t, std::array<uint32_t, LogHistogram::kBins>> z;  // (op << 32 | target)
  for (const auto& [k, v] : integral) {
    if (!(v > 0)) continue;
    const auto series = static_cast<uint32_t>(k >> 32), op = static_cast<uint32_t>(k);
    const double rate = v / static_cast<double>(int64_t{1} << shift);
    auto& counts = z.try_emplace((uint64_t{op} << 32) | view.series()[series].target).first->second;
    ++counts[static_cast<size_t>(LogHistogram::FloatBin(rate, L::kZRateExponent))];
  }
  std::byte r[L::kZWidth];
  for (const auto& [k, counts] : z) {
    StoreLe<int64_t>(r + L::kZT, b << shift);
    StoreLe<uint32_t>(r + L::kZTarget, static_cast<uint32_t>(k));
    StoreLe<uint32_t>(r + L::kZOp, static_cast<uint32_t>(k >> 32));
    for (int i = 0; i < LogHistogram::kBins; ++i)
      StoreLe<uint32_t>(r + L::kZCounts + 4 * i, counts[static_cast<size_t>(i)]);
    XTFQ_TRY(emit(std::span<const std::byte>(r, sizeof r)));
  }
  return Ok();
}

// The cells of level-0 bins [from, to) of every key, from the steps, and of every level as its
// bins complete; with emit_z, the heatmap cells of each level-0 bin too.
Status Compute(JobStatsView& view, int shift, int64_t from, int64_t to, std::vector<KeyState>& keys, const Emit& emit,
               const EmitZ* emit_z, uint64_t& steps_read, uint64_t chunk_steps = JobStatsSummary::kChunkSteps) {
  if (from >= to) return Ok();
  XTFQ_ASSIGN_OR_RETURN(std::vector<OpSteps> ops, StepArrays(view, from << shift));
  const std::string& store = view.reader().store().name();
  // The steps of a bin, were they spread evenly over the collections' span.
  XTFQ_ASSIGN_OR_RETURN(auto span, view.Span());
  uint64_t steps = 0;
  for (const OpSteps& os : ops) steps += os.array->record_count();
  const double per_bin = span && span->second > span->first
                             ? static_cast<double>(steps) * static_cast<double>(int64_t{1} << shift) /
                                   static_cast<double>(span->second - span->first)
                             : 0;
  const int64_t chunk =
      std::clamp<int64_t>(static_cast<int64_t>(static_cast<double>(chunk_steps) / std::max(1.0, per_bin)), 1, kChunk);
  for (int64_t c0 = from; c0 < to; c0 += chunk) {
    const int64_t c1 = std::min(to, c0 + chunk);
    const int64_t lo = c0 << shift, hi = c1 << shift;
    std::vector<std::vector<Cells>> acc(keys.size(), std::vector<Cells>(static_cast<size_t>(c1 - c0)));
    // Each cell's steps, for its peak: at acc's cell's `steps` (one hash lookup a step and cell).
    std::vector<std::vector<std::vector<RatePeak>>> peaks(
        keys.size(), std::vector<std::vector<RatePeak>>(static_cast<size_t>(c1 - c0)));
    // Each series' integral over each bin, summed in the order of its steps (as the heatmap's
    // own path sums them: the same doubles).
    std::vector<std::unordered_map<uint64_t, double>> integral(emit_z != nullptr ? static_cast<size_t>(c1 - c0) : 0);
    for (const OpSteps& os : ops) {
      TnTree t(view.reader().cache(), *os.array);
      XTFQ_ASSIGN_OR_RETURN(uint64_t first, t.LowerBound(lo + 1));
      XTFQ_TRY(t.ForEach(first, t.size(), [&](const std::byte* r) -> Result<bool> {
        const int64_t t1 = I64At(r, L::kStepT1), t0 = I64At(r, L::kStepT0);
        if (t1 - os.longest >= hi) return false;  // this and every later step start after the chunk
        ++steps_read;
        if (t0 >= hi || t0 >= t1) return true;
        const uint32_t series = U32At(r, L::kStepSeries);
        if (series >= view.series().size()) {
          return Error(ErrorCode::kCorrupt, fmt::format("{}: a step of {} names series {} of {}", store, os.array->name,
                                                        series, view.series().size()));
        }
        const uint64_t delta = U64At(r, L::kStepDelta);
        const double rate = L::StepRate(r);
        // The bins [b0, b1) it overlaps; it ends in (start, end] of bin b1 - 1.
        const int64_t b0 = t0 >> shift, b1 = FloorDiv(t1 - 1, int64_t{1} << shift) + 1;
        for (int64_t b = std::max(b0, c0); b < std::min(b1, c1); ++b) {
          if (emit_z != nullptr) {
            integral[static_cast<size_t>(b - c0)][(uint64_t{series} << 32) | os.op] +=
                JobStatsView::Part(delta, t0, t1, b << shift, (b + 1) << shift);
          }
          for (size_t k = 0; k < keys.size(); ++k) {
            const uint64_t key = (uint64_t{keys[k].groups[series]} << 32) | os.op;
            std::vector<RatePeak>& bin_peaks = peaks[k][static_cast<size_t>(b - c0)];
            auto [it, fresh] = acc[k][static_cast<size_t>(b - c0)].try_emplace(key);
            Acc& a = it->second;
            if (fresh) a.steps = static_cast<uint32_t>(bin_peaks.size()), bin_peaks.emplace_back();
            if (b == b1 - 1) a.total += static_cast<double>(delta);
            a.series_max = std::max(a.series_max, rate);
            if (b == b0) {
              ++a.started;
            } else {
              a.carry += JobStatsView::Part(delta, t0, t1, t0, b << shift);  // alive at the bin's start
              ++a.alive;
            }
            bin_peaks[a.steps].Add(t0, t1, rate);
          }
        }
        return true;
      }));
    }
    for (int64_t b = c0; b < c1; ++b) {
      for (size_t k = 0; k < keys.size(); ++k) {
        Cells& cells = acc[k][static_cast<size_t>(b - c0)];
        for (auto& [key, a] : cells) {
          a.peak = peaks[k][static_cast<size_t>(b - c0)][a.steps].Max(b << shift, (b + 1) << shift);
        }
        XTFQ_TRY(Finish(keys[k], 0, b, cells, shift, emit));
      }
      if (emit_z != nullptr) XTFQ_TRY(FinishZ(view, b, shift, integral[static_cast<size_t>(b - c0)], *emit_z));
    }
  }
  return Ok();
}

// The stored summaries of a key: its last seal record and level arrays.
struct Stored {
  const ArrayDesc* seal = nullptr;
  int64_t sealed = 0, bins = 0;
  int shift = 0;
  std::vector<const ArrayDesc*> levels = std::vector<const ArrayDesc*>(kLevels, nullptr);
  // Level 0's cells: kSumWidth bytes (carry and alive), kCarrySumWidth in a store of summaries
  // made before `alive`, kLegacySumWidth before the carry (and such a store's new level-0 cells
  // too). The other levels' cells are kLegacySumWidth bytes.
  uint32_t level0 = L::kSumWidth;
  bool carry() const { return level0 >= L::kCarrySumWidth; }
  bool alive() const { return level0 >= L::kSumWidth; }
  uint32_t Width(int j) const { return j == 0 ? level0 : L::kLegacySumWidth; }
};

// The schema of cells `width` bytes wide.
const Schema& CellSchema(uint32_t width) {
  return width == L::kSumWidth        ? L::SummaryCellSchema()
         : width == L::kCarrySumWidth ? L::CarrySummaryCellSchema()
                                      : L::LegacySummaryCellSchema();
}

Result<Stored> LoadStored(StoreReader& reader, JobStatsKey key) {
  Stored s;
  const Catalogue& cat = reader.catalogue();
  s.seal = cat.Find(L::SummaryName(KeyName(key)));
  if (s.seal == nullptr) return s;
  const std::string& store = reader.store().name();
  if (!(s.seal->schema == L::SummarySealSchema()) || s.seal->record_count() == 0) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: {} is not a seal array", store, s.seal->name));
  }
  for (int j = 0; j < kLevels; ++j) s.levels[static_cast<size_t>(j)] = cat.Find(L::SummaryLevelName(KeyName(key), j));
  // Level 0's width says what its cells hold (a key with no cell yet gets them all).
  if (s.levels[0] != nullptr) {
    s.level0 = s.levels[0]->schema.record_width();
  } else if (std::any_of(s.levels.begin(), s.levels.end(), [](auto* a) { return a != nullptr; })) {
    s.level0 = L::kLegacySumWidth;  // (no build makes this: read as its other levels' width)
  }
  for (int j = 0; j < kLevels; ++j) {
    const ArrayDesc* a = s.levels[static_cast<size_t>(j)];
    if (a != nullptr && !(a->schema == CellSchema(s.Width(j)))) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: {} does not have the summary cell schema of its level ({} "
                                                    "bytes)",
                                                    store, a->name, s.Width(j)));
    }
  }
  std::vector<std::byte> r(L::kSealWidth);
  XTFQ_TRY(TnTree(reader.cache(), *s.seal).Record(s.seal->record_count() - 1, r));
  s.sealed = I64At(r.data(), L::kSealT);
  const int64_t shift = I64At(r.data(), L::kSealBinShift);
  s.bins = I64At(r.data(), L::kSealBins);
  if (shift < 0 || shift > 40 || s.bins > (s.sealed >> shift) + 1) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: {} seals {} bins of 2^{} s to {}", store, s.seal->name, s.bins, shift, s.sealed));
  }
  s.shift = static_cast<int>(shift);
  return s;
}

// Calls fn(cell) for the cells of `level` that start at t.
Status CellsAt(StoreReader& reader, const ArrayDesc& level, int64_t t,
               const std::function<void(const std::byte*)>& fn) {
  TnTree tree(reader.cache(), level);
  XTFQ_ASSIGN_OR_RETURN(uint64_t a, tree.LowerBound(t));
  return tree.ForEach(a, tree.size(), [&](const std::byte* r) -> Result<bool> {
    if (I64At(r, L::kSumT) != t) return false;
    fn(r);
    return true;
  });
}

// Calls fn(cell) for the cells of `level` that start at t, of the ops with wanted[op]: the whole
// bin when every op is wanted, else each op's run, found by bisection.
Status CellsOf(StoreReader& reader, const ArrayDesc& level, int64_t t, const std::vector<char>& wanted, bool all,
               const std::function<void(const std::byte*)>& fn) {
  if (all) return CellsAt(reader, level, t, fn);
  TnTree tree(reader.cache(), level);
  XTFQ_ASSIGN_OR_RETURN(uint64_t a, tree.LowerBound(t));
  XTFQ_ASSIGN_OR_RETURN(uint64_t e, tree.LowerBound(t + 1));
  std::vector<std::byte> r(level.schema.record_width());
  // The first cell of [lo, hi) whose op is at least o.
  const auto first_op = [&](uint64_t lo, uint64_t hi, uint32_t o) -> Result<uint64_t> {
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      XTFQ_TRY(tree.Record(mid, r));
      if (U32At(r.data(), L::kSumOp) < o) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  };
  uint64_t pos = a;
  for (uint32_t o = 0; o < wanted.size() && pos < e; ++o) {
    if (!wanted[o]) continue;
    XTFQ_ASSIGN_OR_RETURN(uint64_t lo, first_op(pos, e, o));
    XTFQ_ASSIGN_OR_RETURN(uint64_t hi, first_op(lo, e, o + 1));
    XTFQ_TRY(tree.ForEach(lo, hi, [&](const std::byte* c) -> Result<bool> {
      fn(c);
      return true;
    }));
    pos = hi;
  }
  return Ok();
}

}  // namespace

bool JobStatsSummary::Summarises(JobStatsKey key) {
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

std::string JobStatsSummary::KeyNames() {
  std::vector<std::string> names;
  for (JobStatsKey k : kKeys) names.push_back(KeyName(k));
  const std::string last = names.back();
  names.pop_back();
  return fmt::format("{} and {}", fmt::join(names, ", "), last);
}

int64_t JobStatsSummary::summarised_to() const { return bins_ << bin_shift_; }

Result<JobStatsSummaryReport> JobStatsSummary::Extend(JobStatsView& view, RecordSink& sink, uint64_t chunk_steps) {
  JobStatsSummaryReport rep;
  XTFQ_ASSIGN_OR_RETURN(Times times, CollectionTimes(view));
  if (!times.any) return rep;
  StoreReader& reader = view.reader();
  const std::string& store = reader.store().name();
  std::vector<KeyState> keys;
  std::vector<Stored> stored;
  for (JobStatsKey k : kKeys) {
    XTFQ_ASSIGN_OR_RETURN(Stored s, LoadStored(reader, k));
    stored.push_back(s);
    keys.push_back(KeyState{k, Groups(view, k)});
  }
  // Every key is extended in the same commit, so all are sealed alike.
  for (const Stored& s : stored) {
    if ((s.seal == nullptr) != (stored[0].seal == nullptr) || s.bins != stored[0].bins || s.shift != stored[0].shift) {
      return Error(ErrorCode::kCorrupt,
                   fmt::format("{}: the job_stats summaries are sealed to different times", store));
    }
  }
  const int shift = stored[0].seal != nullptr ? stored[0].shift : BinShiftFor(times.gap);
  const int64_t from = stored[0].seal != nullptr ? stored[0].bins : times.first >> shift;
  const int64_t to = times.sealed >> shift;
  rep.sealed = times.sealed, rep.bin_shift = shift;
  if (to <= from) return rep;
  rep.extended = true;
  // The open bins of each level: their first half, when it is complete, from the level below.
  for (size_t k = 0; k < keys.size(); ++k) {
    for (int j = 1; j < kLevels && (from >> (j - 1)) > 0; ++j) {
      if (((from >> (j - 1)) & 1) == 0) continue;
      const ArrayDesc* below = stored[k].levels[static_cast<size_t>(j - 1)];
      if (below == nullptr) continue;  // no cell yet
      const int64_t first = ((from >> (j - 1)) - 1) << (shift + j - 1);
      Cells& open = keys[k].open[static_cast<size_t>(j)];
      XTFQ_TRY(CellsAt(reader, *below, first, [&](const std::byte* r) {
        Merge(open[(uint64_t{U32At(r, L::kSumGroup)} << 32) | U32At(r, L::kSumOp)], Decode(r, stored[k].Width(j - 1)),
              true);
      }));
    }
  }
  std::vector<std::vector<std::optional<ArrayId>>> ids(keys.size(), std::vector<std::optional<ArrayId>>(kLevels));
  const Emit emit = [&](const KeyState& ks, int j, std::span<const std::byte> rec) -> Status {
    const size_t k = static_cast<size_t>(&ks - keys.data());
    std::optional<ArrayId>& id = ids[k][static_cast<size_t>(j)];
    if (!id) {
      const std::string name = L::SummaryLevelName(KeyName(ks.key), j);
      id = sink.FindArrayId(name);
      if (!id) {
        XTFQ_ASSIGN_OR_RETURN(ArrayId made, sink.CreateArray(name, CellSchema(stored[k].Width(j))));
        id = made;
      }
    }
    ++rep.cells;
    return sink.Append(*id, rec.first(stored[k].Width(j)));
  };
  std::optional<ArrayId> z_id;
  const EmitZ emit_z = [&](std::span<const std::byte> rec) -> Status {
    if (!z_id) {
      z_id = sink.FindArrayId(L::kZSummary);
      if (!z_id) {
        XTFQ_ASSIGN_OR_RETURN(ArrayId made, sink.CreateArray(L::kZSummary, L::ZCellSchema()));
        z_id = made;
      }
    }
    ++rep.cells;
    return sink.Append(*z_id, rec);
  };
  XTFQ_TRY(Compute(view, shift, from, to, keys, emit, &emit_z, rep.steps_read, chunk_steps));
  uint64_t steps = 0;
  for (const std::string& op : view.ops()) {
    if (const ArrayDesc* a = reader.catalogue().Find(L::StepArrayName(op)); a != nullptr) steps += a->record_count();
  }
  std::byte r[L::kSealWidth];
  StoreLe<int64_t>(r + L::kSealT, times.sealed);
  StoreLe<int64_t>(r + L::kSealBinShift, shift);
  StoreLe<int64_t>(r + L::kSealBins, to);
  StoreLe<uint64_t>(r + L::kSealSteps, steps);
  for (const KeyState& ks : keys) {
    const std::string name = L::SummaryName(KeyName(ks.key));
    std::optional<ArrayId> id = sink.FindArrayId(name);
    if (!id) {
      XTFQ_ASSIGN_OR_RETURN(ArrayId made, sink.CreateArray(name, L::SummarySealSchema()));
      id = made;
    }
    XTFQ_TRY(sink.Append(*id, std::span<const std::byte>(r, sizeof r)));
  }
  return rep;
}

Status JobStatsSummary::Verify(JobStatsView& view) {
  StoreReader& reader = view.reader();
  const std::string& store = reader.store().name();
  XTFQ_ASSIGN_OR_RETURN(Times times, CollectionTimes(view));
  std::vector<KeyState> keys;
  std::vector<Stored> stored;
  for (JobStatsKey k : kKeys) {
    XTFQ_ASSIGN_OR_RETURN(Stored s, LoadStored(reader, k));
    if (s.seal == nullptr) continue;
    if (!times.any || s.sealed > times.sealed || (s.bins << s.shift) > s.sealed) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: {} is sealed to {}, past what the collections seal ({})",
                                                    store, s.seal->name, s.sealed, times.sealed));
    }
    if (!stored.empty() && (s.bins != stored[0].bins || s.shift != stored[0].shift)) {
      return Error(ErrorCode::kCorrupt,
                   fmt::format("{}: the job_stats summaries are sealed to different times", store));
    }
    stored.push_back(s);
    keys.push_back(KeyState{k, Groups(view, k)});
  }
  if (stored.empty()) return Ok();
  std::vector<std::vector<std::optional<ChainCursor>>> cursors(keys.size());
  for (auto& c : cursors) c.resize(kLevels);
  std::vector<std::vector<uint64_t>> seen(keys.size(), std::vector<uint64_t>(kLevels, 0));
  // The next stored record of `array` (cursor and count kept by the caller) equals `rec`.
  const auto same = [&](const ArrayDesc* array, std::optional<ChainCursor>& cursor, uint64_t& n,
                        std::span<const std::byte> rec, const std::string& name) -> Status {
    bool more = false;
    if (array != nullptr) {
      if (!cursor) cursor.emplace(reader.Records(*array));
      XTFQ_ASSIGN_OR_RETURN(more, n == 0 ? cursor->First() : cursor->Next());
    }
    if (!more || !std::equal(rec.begin(), rec.end(), cursor->entry())) {
      return Error(ErrorCode::kCorrupt,
                   fmt::format("{}: {} cell {} differs from the steps it summarises", store, name, n));
    }
    ++n;
    return Ok();
  };
  const Emit compare = [&](const KeyState& ks, int j, std::span<const std::byte> rec) -> Status {
    const size_t k = static_cast<size_t>(&ks - keys.data()), jj = static_cast<size_t>(j);
    return same(stored[k].levels[jj], cursors[k][jj], seen[k][jj], rec.first(stored[k].Width(j)),
                L::SummaryLevelName(KeyName(ks.key), j));
  };
  const ArrayDesc* z = reader.catalogue().Find(L::kZSummary);
  if (z != nullptr && !(z->schema == L::ZCellSchema())) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: {} does not have the heatmap cell schema", store, z->name));
  }
  std::optional<ChainCursor> z_cursor;
  uint64_t z_seen = 0;
  const EmitZ compare_z = [&](std::span<const std::byte> rec) -> Status {
    return same(z, z_cursor, z_seen, rec, std::string(L::kZSummary));
  };
  uint64_t read = 0;
  XTFQ_TRY(
      Compute(view, stored[0].shift, times.first >> stored[0].shift, stored[0].bins, keys, compare, &compare_z, read));
  for (size_t k = 0; k < keys.size(); ++k) {
    for (int j = 0; j < kLevels; ++j) {
      const ArrayDesc* level = stored[k].levels[static_cast<size_t>(j)];
      if (level != nullptr && level->record_count() != seen[k][static_cast<size_t>(j)]) {
        return Error(ErrorCode::kCorrupt, fmt::format("{}: {} holds {} cells; the steps make {}", store, level->name,
                                                      level->record_count(), seen[k][static_cast<size_t>(j)]));
      }
    }
  }
  if (z != nullptr && z->record_count() != z_seen) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: {} holds {} cells; the steps make {}", store, z->name, z->record_count(), z_seen));
  }
  return Ok();
}

Result<std::optional<JobStatsSummary>> JobStatsSummary::Load(JobStatsView& view, JobStatsKey key) {
  if (!Summarises(key)) return std::optional<JobStatsSummary>();
  XTFQ_ASSIGN_OR_RETURN(Stored s, LoadStored(view.reader(), key));
  if (s.seal == nullptr) return std::optional<JobStatsSummary>();
  JobStatsSummary out(view, key);
  out.sealed_ = s.sealed, out.bin_shift_ = s.shift, out.bins_ = s.bins;
  out.levels_ = s.levels;
  out.carry_ = s.carry(), out.alive_ = s.alive();
  return std::optional<JobStatsSummary>(std::move(out));
}

Result<std::optional<JobStatsSummary>> JobStatsSummary::ForRows(JobStatsView& view, const std::vector<JobStatsKey>& by,
                                                                const JobStatsFilter& filter, bool scan, Need need,
                                                                std::string* why) {
  using Sum = std::optional<JobStatsSummary>;
  std::string reason;
  if (by.size() != 1) {
    reason = fmt::format("the summaries answer rows of one key ({})", KeyNames());
  } else if (by[0] == JobStatsKey::kTarget) {
    reason = "rows by target have no summaries (they read the targets' blocks)";
  } else if (scan) {
    reason = "--scan reads every step";
  } else if (!Summarises(by[0])) {
    reason = fmt::format("rows by {} read the steps (summaries are by {})", KeyName(by[0]), KeyNames());
  } else if (filter.BySeries() || !filter.targets.empty()) {
    reason = "a filter by job, uid, node, class, id or target reads the steps of its series";
  } else {
    XTFQ_ASSIGN_OR_RETURN(Sum sum, Load(view, by[0]));
    if (sum) {
      std::optional<std::string> lacks = sum->Lacks(need);
      if (!lacks) return sum;
      reason = std::move(*lacks);
    } else if (why != nullptr) {
      XTFQ_ASSIGN_OR_RETURN(reason, WhyNone(view));
    }
  }
  if (why != nullptr) *why = std::move(reason);
  return Sum();
}

std::optional<std::string> JobStatsSummary::Lacks(Need need) const {
  if (need != Need::kCells && !carry_) {
    return std::string(
        "the store's summaries were made before their cells kept the carry (re-import the snapshots to read from "
        "them)");
  }
  if (need == Need::kAlive && !alive_) {
    return std::string(
        "the store's summaries were made before their cells counted the steps alive at a bin's start (re-import the "
        "snapshots to read windows from them alone)");
  }
  return std::nullopt;
}

Result<std::string> JobStatsSummary::WhyNone(JobStatsView& view) {
  XTFQ_ASSIGN_OR_RETURN(Times times, CollectionTimes(view));
  if (times.any) {
    const int shift = BinShiftFor(times.gap);
    const int64_t bin = int64_t{1} << shift, end = (FloorDiv(times.first, bin) + 1) * bin;
    if (end > times.sealed) {
      return fmt::format(
          "no bin is summarised yet: the first bin of {} s ends at {}, after the earliest last collection of a "
          "target ({})",
          bin, end, times.sealed);
    }
  }
  return std::string("the store has no job_stats summaries (import and collect make them, unless --no-grid)");
}

const std::vector<uint32_t>& JobStatsSummary::GroupOf() const {
  if (groups_.size() != view_->series().size()) groups_ = Groups(*view_, key_);
  return groups_;
}

std::vector<int64_t> JobStatsSummary::SnappedEdges(int64_t t1, int64_t t2, uint32_t cols) const {
  const int64_t bin = bin_seconds();
  const int64_t x = FloorDiv(t1, bin), bins = std::max<int64_t>(1, FloorDiv(t2 - 1, bin) + 1 - x);
  const int64_t n = std::max<int64_t>(1, cols);
  const int64_t per = (bins + n - 1) / n, w = (bins + per - 1) / per;
  std::vector<int64_t> edges;
  for (int64_t c = 0; c <= w; ++c) edges.push_back((x + c * per) * bin);
  return edges;
}

bool JobStatsSummary::FromCells(int64_t x, int64_t y) const {
  const int64_t mask = (int64_t{1} << bin_shift_) - 1;
  return carry_ && x < y && (x & mask) == 0 && (y & mask) == 0 && (y >> bin_shift_) < bins_;
}

Result<std::unordered_map<uint32_t, std::vector<double>>> JobStatsSummary::ColumnTotals(const std::vector<Span>& spans,
                                                                                        uint32_t op,
                                                                                        uint64_t& cells) const {
  std::unordered_map<uint32_t, std::vector<double>> out;
  std::vector<char> wanted(view_->ops().size(), 0);
  if (op >= wanted.size()) return out;
  wanted[op] = 1;
  // Per edge: the carry of each group alive there (from level 0's cells that start at it).
  std::map<int64_t, std::unordered_map<uint32_t, double>> carry;
  const auto row = [&](uint32_t g) -> std::vector<double>& {
    std::vector<double>& v = out[g];
    if (v.empty()) v.resize(spans.size(), 0.0);
    return v;
  };
  const auto read = [&](const ArrayDesc& level, int64_t t, const std::function<void(uint32_t, const Acc&)>& fn) {
    return CellsOf(view_->reader(), level, t, wanted, false, [&](const std::byte* r) {
      ++cells;
      fn(U32At(r, L::kSumGroup), Decode(r, level.schema.record_width()));
    });
  };
  for (size_t c = 0; c < spans.size(); ++c) {
    const int64_t x = spans[c].first, y = spans[c].second;  // not a structured binding: lambdas below use x
    if (!FromCells(x, y)) {
      return Error(ErrorCode::kInvalidArgument, fmt::format("[{}, {}) is not on summarised bins", x, y));
    }
    const int64_t ia = x >> bin_shift_;
    XTFQ_TRY(EachPiece(ia, y >> bin_shift_, [&](int j, int64_t pos) -> Status {
      // (a first piece of level 0 gives the carry at the span's start too)
      std::unordered_map<uint32_t, double>* at = j == 0 && pos == ia ? &carry[x] : nullptr;
      const ArrayDesc* level = levels_[static_cast<size_t>(j)];
      if (level == nullptr) return Ok();
      return read(*level, pos << bin_shift_, [&](uint32_t g, const Acc& a) {
        row(g)[c] += a.total;
        if (at != nullptr && a.carry != 0) (*at)[g] = a.carry;
      });
    }));
  }
  // The carry at edge t: level 0's cells there (read once).
  const auto carry_at = [&](int64_t t) -> Result<const std::unordered_map<uint32_t, double>*> {
    auto it = carry.find(t);
    if (it != carry.end()) return &it->second;
    it = carry.try_emplace(t).first;
    if (const ArrayDesc* level0 = levels_[0]; level0 != nullptr) {
      XTFQ_TRY(read(*level0, t, [&](uint32_t g, const Acc& a) {
        if (a.carry != 0) it->second[g] = a.carry;
      }));
    }
    return &it->second;
  };
  for (size_t c = 0; c < spans.size(); ++c) {
    XTFQ_ASSIGN_OR_RETURN(const auto* end, carry_at(spans[c].second));
    for (const auto& [g, v] : *end) row(g)[c] += v;
    XTFQ_ASSIGN_OR_RETURN(const auto* start, carry_at(spans[c].first));
    for (const auto& [g, v] : *start) row(g)[c] -= v;
  }
  return out;
}

Status JobStatsSummary::EachPiece(int64_t ia, int64_t ib, const std::function<Status(int j, int64_t pos)>& fn) const {
  for (int64_t pos = ia; pos < ib;) {
    int j = 0;
    while (j + 1 < kLevels && (pos & ((int64_t{1} << (j + 1)) - 1)) == 0 && pos + (int64_t{1} << (j + 1)) <= ib) ++j;
    XTFQ_TRY(fn(j, pos));
    pos += int64_t{1} << j;
  }
  return Ok();
}

Status JobStatsSummary::AddBins(int64_t ia, int64_t ib, const std::vector<char>& wanted, Parts& out, uint64_t& cells,
                                const CellFn** first0) const {
  const bool all = std::count(wanted.begin(), wanted.end(), 1) == static_cast<std::ptrdiff_t>(view_->ops().size());
  return EachPiece(ia, ib, [&](int j, int64_t pos) -> Status {
    const ArrayDesc* level = levels_[static_cast<size_t>(j)];
    if (level == nullptr) return Ok();
    const CellFn* also = first0 != nullptr && j == 0 && pos == ia ? *first0 : nullptr;
    if (also != nullptr) *first0 = nullptr;
    const uint32_t width = level->schema.record_width();
    return CellsOf(view_->reader(), *level, pos << bin_shift_, wanted, all, [&](const std::byte* r) {
      const uint32_t o = U32At(r, L::kSumOp);
      ++cells;
      if (o >= wanted.size() || !wanted[o]) return;
      const uint64_t key = (uint64_t{U32At(r, L::kSumGroup)} << 32) | o;
      const Acc c = Decode(r, width);
      JobStatsSummaryPart& p = out[key];
      p.total += c.total, p.peak = std::max(p.peak, c.peak), p.series_max = std::max(p.series_max, c.series_max);
      p.steps += c.started;
      if (also != nullptr) (*also)(key, r, width);
    });
  });
}

Result<JobStatsSummary::Parts> JobStatsSummary::Aligned(int64_t t1, int64_t t2, const std::vector<char>& wanted,
                                                        uint64_t& cells) const {
  Parts out;
  // The steps alive at t1 (their parts before t1 are not the window's; they are its steps too)
  // and at t2 (their parts before t2 are), from level 0's cells there: those at t1 as the bins'
  // first piece reads them, when it is of level 0.
  const auto alive = [&](double sign) -> CellFn {
    return [&out, sign](uint64_t key, const std::byte* r, uint32_t width) {
      const Acc c = Decode(r, width);
      if (c.alive == 0) return;
      JobStatsSummaryPart& p = out[key];
      p.total += sign * c.carry;
      if (sign < 0) p.steps += c.alive;
    };
  };
  const CellFn at_t1 = alive(-1.0), at_t2 = alive(1.0);
  const CellFn* first0 = &at_t1;
  XTFQ_TRY(AddBins(t1 >> bin_shift_, t2 >> bin_shift_, wanted, out, cells, &first0));
  const ArrayDesc* level0 = levels_[0];
  if (level0 == nullptr) return out;
  const uint32_t width = level0->schema.record_width();
  for (const auto& point : {std::pair{t1, first0}, std::pair{t2, &at_t2}}) {
    const auto fn = point.second;  // not a structured binding: the lambda below uses it
    if (fn == nullptr) continue;   // read with the bins
    XTFQ_TRY(CellsOf(view_->reader(), *level0, point.first, wanted, false, [&](const std::byte* r) {
      const uint32_t o = U32At(r, L::kSumOp);
      ++cells;
      if (o < wanted.size() && wanted[o]) (*fn)((uint64_t{U32At(r, L::kSumGroup)} << 32) | o, r, width);
    }));
  }
  return out;
}

Result<JobStatsSummary::Parts> JobStatsSummary::Window(int64_t t1, int64_t t2, const std::vector<char>& wanted,
                                                       uint64_t& cells, uint64_t& steps_read) const {
  Parts out;
  if (t1 >= t2) return out;
  if (alive_ && FromCells(t1, t2)) return Aligned(t1, t2, wanted, cells);
  GroupOf();
  const int64_t base = int64_t{1} << bin_shift_;
  // The bins [ia, ib) of the cells: whole level-0 bins inside the window and summarised.
  const int64_t ia = FloorDiv(t1 - 1, base) + 1, ib = std::min(FloorDiv(t2, base), bins_);
  const bool middle = ia < ib;
  const int64_t a = middle ? ia << bin_shift_ : t2, b = middle ? ib << bin_shift_ : t2;
  std::unordered_map<uint64_t, RatePeak> left, right;
  const Catalogue& cat = view_->reader().catalogue();
  std::vector<uint32_t> targets(view_->targets().size());
  for (uint32_t g = 0; g < targets.size(); ++g) targets[g] = g;
  for (uint32_t o = 0; o < view_->ops().size(); ++o) {
    if (o >= wanted.size() || !wanted[o]) continue;
    const ArrayDesc* steps = cat.Find(L::StepArrayName(view_->ops()[o]));
    if (steps == nullptr) continue;
    // [t1, a): every step overlapping it, and every step alive at t1. A step that ends in (a, b] is
    // whole in the cells: take off its part before t1.
    XTFQ_TRY(view_->Steps(*steps, t1, std::max(a, t1 + 1), targets, {}, false, steps_read, [&](const std::byte* r) {
      const uint64_t key = (uint64_t{groups_[U32At(r, L::kStepSeries)]} << 32) | o;
      const int64_t s0 = I64At(r, L::kStepT0), s1 = I64At(r, L::kStepT1);
      const uint64_t delta = U64At(r, L::kStepDelta);
      const double rate = L::StepRate(r);
      JobStatsSummaryPart& p = out[key];
      if (middle && s1 > a && s1 <= b) {
        p.total -= JobStatsView::Part(delta, s0, s1, s0, t1);
      } else {
        p.total += JobStatsView::Part(delta, s0, s1, t1, a);
      }
      p.series_max = std::max(p.series_max, rate);
      if (!middle || s0 < a) ++p.steps;  // (a step starting at a is a cell's)
      left[key].Add(s0, s1, rate);
    }));
    if (!middle) continue;
    // [b, t2): the steps overlapping it, and every step alive at b. They end after b, so the cells
    // hold none of them: their part in [a, t2) (the part before a is the left end's); those that
    // started before b are counted already.
    XTFQ_TRY(view_->Steps(*steps, b, std::max(t2, b + 1), targets, {}, false, steps_read, [&](const std::byte* r) {
      const int64_t s0 = I64At(r, L::kStepT0), s1 = I64At(r, L::kStepT1);
      if (s0 >= t2) return;  // alive at b = t2, after the window
      const uint64_t key = (uint64_t{groups_[U32At(r, L::kStepSeries)]} << 32) | o;
      const double rate = L::StepRate(r);
      JobStatsSummaryPart& p = out[key];
      p.total += JobStatsView::Part(U64At(r, L::kStepDelta), s0, s1, a, t2);
      p.series_max = std::max(p.series_max, rate);
      if (s0 >= b) ++p.steps;
      right[key].Add(s0, s1, rate);
    }));
  }
  // [a, b): the largest aligned bins of the levels.
  XTFQ_TRY(AddBins(ia, ib, wanted, out, cells));
  for (const auto& [key, peak] : left) out[key].peak = std::max(out[key].peak, peak.Max(t1, a));
  for (const auto& [key, peak] : right) out[key].peak = std::max(out[key].peak, peak.Max(b, t2));
  return out;
}

}  // namespace xtfq
