#include "query/jobstats/jobstats_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <unordered_map>

#include "index/tn_tree.h"
#include "query/core/primitives.h"
#include "query/core/store_kind.h"
#include "store/endian.h"

namespace xtfq {

namespace {
using L = JobStatsLayout;

constexpr std::pair<JobStatsKey, std::string_view> kKeys[] = {
    {JobStatsKey::kJob, "job"},       {JobStatsKey::kUid, "uid"}, {JobStatsKey::kNode, "node"},
    {JobStatsKey::kTarget, "target"}, {JobStatsKey::kOp, "op"},   {JobStatsKey::kClass, "class"},
    {JobStatsKey::kId, "id"}};

}  // namespace

double JobStatsView::Part(uint64_t delta, int64_t t0, int64_t t1, int64_t w1, int64_t w2) {
  const int64_t overlap = std::min(t1, w2) - std::max(t0, w1);
  if (overlap <= 0) return 0;
  if (overlap == t1 - t0) return static_cast<double>(delta);
  return static_cast<double>(delta) * static_cast<double>(overlap) / static_cast<double>(t1 - t0);
}
Result<const ArrayDesc*> JobStatsView::StepsOf(const std::string& op) const {
  const Catalogue& cat = reader_.catalogue();
  if (const ArrayDesc* a = cat.Find(L::StepArrayName(op)); a != nullptr) return a;
  const std::string& store = reader_.store().name();
  bool any = false;
  for (const std::string& o : ops_) any = any || cat.Find(L::StepArrayName(o)) != nullptr;
  if (!any) {
    return Error(ErrorCode::kNotFound,
                 fmt::format("{}: no rate steps yet: {} collection{} of {} target{}, and a rate needs two collections "
                             "of a target (its first is a baseline) with a counter that changed",
                             store, collections(), collections() == 1 ? "" : "s", targets_.size(),
                             targets_.size() == 1 ? "" : "s"));
  }
  if (std::find(ops_.begin(), ops_.end(), op) == ops_.end()) {
    return Error(ErrorCode::kNotFound,
                 fmt::format("{}: no op '{}' in the store (ops: {})", store, op, fmt::join(ops_, " ")));
  }
  return Error(
      ErrorCode::kNotFound,
      fmt::format("{}: op '{}' has no rate steps: its counters never changed between two collections", store, op));
}

Result<const ArrayDesc*> JobStatsView::OfTarget(Primitives& p, uint32_t g) {
  auto pa = p.ProcessArray(g);
  if (pa.ok()) return *pa;
  if (pa.error().code() == ErrorCode::kNotFound) return static_cast<const ArrayDesc*>(nullptr);
  return pa.error();
}

Result<JobStatsKey> ParseJobStatsKey(std::string_view name) {
  for (const auto& [k, n] : kKeys) {
    if (n == name) return k;
  }
  return Error(ErrorCode::kUsage,
               fmt::format("'{}' is not a job_stats key (job, uid, node, target, op, class, id)", name));
}

std::string_view JobStatsKeyName(JobStatsKey k) {
  for (const auto& [key, n] : kKeys) {
    if (key == k) return n;
  }
  return "?";
}

bool JobStatsView::Holds(const Store& store) { return StoreContents::Of(store.catalogue()).jobstats; }

Result<std::unique_ptr<JobStatsView>> JobStatsView::Open(StoreReader& reader) {
  if (!Holds(reader.store())) {
    return Error(ErrorCode::kNotFound, fmt::format("{}: holds no job_stats (import snapshots with --format jobstats)",
                                                   reader.store().name()));
  }
  std::unique_ptr<JobStatsView> s(new JobStatsView(reader));
  XTFQ_TRY(s->Load());
  return s;
}

Status JobStatsView::Load() {
  std::unordered_map<uint64_t, std::string> strings;
  auto str = [&](uint64_t ref) -> Result<std::string> {
    if (auto it = strings.find(ref); it != strings.end()) return it->second;
    XTFQ_ASSIGN_OR_RETURN(std::string s, reader_.String(StringRef::Unpack(ref)));
    strings.emplace(ref, s);
    return s;
  };
  const Catalogue& cat = reader_.store().catalogue();
  for (const auto& named : {std::pair{L::kTargets, &targets_}, std::pair{L::kOps, &ops_}}) {
    std::vector<std::string>* out = named.second;  // not a structured binding: clang 14 cannot capture one
    if (const ArrayDesc* a = cat.Find(named.first)) {
      XTFQ_TRY(reader_.ForEach(*a, [&](const std::byte* r) -> Status {
        XTFQ_ASSIGN_OR_RETURN(std::string s, str(U64At(r, 0)));
        out->push_back(std::move(s));
        return Ok();
      }));
    }
  }
  if (const ArrayDesc* a = cat.Find(L::kSeries)) {
    series_.reserve(a->record_count());
    XTFQ_TRY(reader_.ForEach(*a, [&](const std::byte* r) -> Status {
      JobStatsSeriesInfo s;
      s.first = I64At(r, L::kSerT);
      s.target = U32At(r, L::kSerTarget);
      s.cls = static_cast<JobIdClass>(r[L::kSerCls]);
      s.tmpl = static_cast<int8_t>(r[L::kSerTmpl]);
      s.quoted = r[L::kSerQuoted] != std::byte{0};
      s.uid = I64At(r, L::kSerUid), s.gid = I64At(r, L::kSerGid), s.pid = I64At(r, L::kSerPid);
      XTFQ_ASSIGN_OR_RETURN(s.raw, str(U64At(r, L::kSerRaw)));
      XTFQ_ASSIGN_OR_RETURN(s.job, str(U64At(r, L::kSerJob)));
      XTFQ_ASSIGN_OR_RETURN(s.node, str(U64At(r, L::kSerNode)));
      XTFQ_ASSIGN_OR_RETURN(s.exe, str(U64At(r, L::kSerExe)));
      if (s.target >= targets_.size()) {
        return Error(ErrorCode::kCorrupt, fmt::format("{}: series {} names target {} of {}", reader_.store().name(),
                                                      series_.size(), s.target, targets_.size()));
      }
      series_.push_back(std::move(s));
      return Ok();
    }));
  }
  return Ok();
}

uint64_t JobStatsView::collections() const {
  const ArrayDesc* a = reader_.store().catalogue().Find(L::kCollections);
  return a == nullptr ? 0 : a->record_count();
}

uint64_t JobStatsView::entries() const {
  const ArrayDesc* a = reader_.store().catalogue().Find(L::kEntries);
  return a == nullptr ? 0 : a->record_count();
}

Result<std::optional<std::pair<int64_t, int64_t>>> JobStatsView::Span() {
  const ArrayDesc* a = reader_.store().catalogue().Find(L::kCollections);
  if (a == nullptr || a->record_count() == 0) return std::optional<std::pair<int64_t, int64_t>>();
  TnTree t(reader_.cache(), *a);
  std::vector<std::byte> r(a->schema.record_width());
  XTFQ_TRY(t.Record(0, r));
  const int64_t first = I64At(r.data(), L::kColT);
  XTFQ_TRY(t.Record(a->record_count() - 1, r));
  return std::optional<std::pair<int64_t, int64_t>>(std::pair{first, I64At(r.data(), L::kColT)});
}

Result<std::vector<JobStatsView::TargetCollections>> JobStatsView::Collections() {
  std::vector<TargetCollections> out(targets_.size());
  const Catalogue& cat = reader_.catalogue();
  const ArrayDesc* a = cat.Find(L::kCollections);
  if (a == nullptr || a->record_count() == 0) return out;
  Primitives p(reader_.cache(), *a, &cat);
  std::vector<std::byte> r(a->schema.record_width());
  for (uint32_t g = 0; g < out.size(); ++g) {
    XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* pa, OfTarget(p, g));
    if (pa == nullptr || pa->record_count() == 0) continue;
    TnTree t(reader_.cache(), *pa);
    out[g].count = pa->record_count();
    XTFQ_TRY(t.Record(0, r));
    out[g].first = I64At(r.data(), L::kColT);
    XTFQ_TRY(t.Record(pa->record_count() - 1, r));
    out[g].last = I64At(r.data(), L::kColT);
  }
  return out;
}

Result<bool> JobStatsView::HasSteps(const std::string& op, uint32_t g) {
  const Catalogue& cat = reader_.catalogue();
  const ArrayDesc* a = cat.Find(L::StepArrayName(op));
  if (a == nullptr) return false;
  const TargetIndex index = IndexOf(*a);
  if (index.array == nullptr) {
    bool found = false;
    XTFQ_TRY(TnTree(reader_.cache(), *a).ForEach(0, a->record_count(), [&](const std::byte* r) -> Result<bool> {
      found = U32At(r, L::kStepTarget) == g;
      return !found;
    }));
    return found;
  }
  Primitives p(reader_.cache(), *index.array, &cat);
  XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* pa, OfTarget(p, g));
  return pa != nullptr && pa->record_count() > 0;
}

JobStatsView::TargetIndex JobStatsView::IndexOf(const ArrayDesc& steps) const {
  const std::string_view op = std::string_view(steps.name).substr(L::kStepArrayPrefix.size());
  if (const ArrayDesc* b = reader_.catalogue().Find(L::BlockArrayName(op)); b != nullptr && b->process_index) {
    return {b, true};
  }
  // The legacy layout: the steps are their own index (a block is the run of one t1).
  if (steps.process_index) return {&steps, false};
  return {};
}

Result<uint64_t> JobStatsView::VerifyBlocks() {
  const Catalogue& cat = reader_.catalogue();
  const std::string& store = reader_.store().name();
  uint64_t checked = 0;
  for (const std::string& op : ops_) {
    const ArrayDesc* blocks = cat.Find(L::BlockArrayName(op));
    if (blocks == nullptr) continue;
    const ArrayDesc* steps = cat.Find(L::StepArrayName(op));
    if (steps == nullptr || steps->schema.process_field()) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: array {} without a step array {} of the block layout", store,
                                                    blocks->name, L::StepArrayName(op)));
    }
    TnTree all(reader_.cache(), *steps);
    uint64_t next = 0, block = 0;
    XTFQ_TRY(
        TnTree(reader_.cache(), *blocks).ForEach(0, blocks->record_count(), [&](const std::byte* b) -> Result<bool> {
          const uint64_t first = U64At(b, L::kBlockFirst), n = U32At(b, L::kBlockSteps);
          auto bad = [&](const std::string& what) {
            return Error(ErrorCode::kCorrupt, fmt::format("{}: {} record {} (steps [{}, {}) of {}): {}", store,
                                                          blocks->name, block, first, first + n, steps->name, what));
          };
          if (first != next || n == 0 || first + n > steps->record_count()) {
            return bad(fmt::format("the blocks do not tile the {} steps: this one should start at {} and hold some",
                                   steps->record_count(), next));
          }
          uint32_t flags = 0;
          uint64_t delta = 0, samples = 0, sum = 0;
          double rate = 0;
          bool same = true, ordered = true;
          int64_t last_series = -1;
          XTFQ_TRY(all.ForEach(first, first + n, [&](const std::byte* r) -> Result<bool> {
            ordered = ordered && int64_t{U32At(r, L::kStepSeries)} > last_series;
            last_series = U32At(r, L::kStepSeries);
            same = same && I64At(r, L::kStepT1) == I64At(b, L::kStepT1) &&
                   I64At(r, L::kStepT0) == I64At(b, L::kStepT0) && U32At(r, L::kStepTarget) == U32At(b, L::kStepTarget);
            flags |= U32At(r, L::kStepFlags), delta += U64At(r, L::kStepDelta), samples += U64At(r, L::kStepSamples);
            sum += U64At(r, L::kStepSum), rate = std::max(rate, L::StepRate(r));
            return true;
          }));
          if (!same) return bad("a step of another target or of other times");
          if (!ordered) return bad("its steps are not in increasing series order");
          if (flags != U32At(b, L::kStepFlags) || delta != U64At(b, L::kStepDelta) ||
              samples != U64At(b, L::kStepSamples) || sum != U64At(b, L::kStepSum) || rate != F64At(b, L::kStepRate)) {
            return bad(fmt::format("its flags, sums or rate ({} {} {} {} {}) are not its steps' ({} {} {} {} {})",
                                   U32At(b, L::kStepFlags), U64At(b, L::kStepDelta), U64At(b, L::kStepSamples),
                                   U64At(b, L::kStepSum), F64At(b, L::kStepRate), flags, delta, samples, sum, rate));
          }
          next = first + n, ++block;
          return true;
        }));
    if (next != steps->record_count()) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: the blocks of {} cover steps [0, {}) of its {}", store,
                                                    blocks->name, next, steps->record_count()));
    }
    checked += next;
  }
  return checked;
}

uint64_t JobStatsView::TargetIndex::Steps(const Summary& s) const {
  return blocks ? static_cast<uint64_t>(s.fields[L::kBlockStepsAggregate].i_sum) : s.count;
}

Result<std::vector<char>> JobStatsView::SelectSeries(const JobStatsFilter& f) const {
  if (!f.BySeries()) return std::vector<char>();
  if (selected_ && selected_->first == f) return selected_->second;
  std::vector<char> keep(series_.size(), 0);
  auto in = [](const std::vector<std::string>& v, const std::string& s) {
    return v.empty() || std::find(v.begin(), v.end(), s) != v.end();
  };
  for (const std::string& c : f.classes) {
    bool known = false;
    for (size_t i = 0; i < kJobIdClasses; ++i) known |= JobIdClassName(static_cast<JobIdClass>(i)) == c;
    if (!known) {
      return Error(
          ErrorCode::kInvalidArgument,
          fmt::format("'{}' is not a job id class (ok, missing_job, fqdn, truncated, system_uid, malformed)", c));
    }
  }
  for (size_t s = 0; s < series_.size(); ++s) {
    const JobStatsSeriesInfo& x = series_[s];
    keep[s] = in(f.jobs, x.job) && in(f.nodes, x.node) && in(f.ids, x.raw) &&
              in(f.classes, std::string(JobIdClassName(x.cls))) &&
              (f.uids.empty() || std::find(f.uids.begin(), f.uids.end(), x.uid) != f.uids.end());
  }
  selected_.emplace(f, keep);
  return keep;
}

Result<std::vector<uint32_t>> JobStatsView::SelectTargets(const JobStatsFilter& f,
                                                          const std::vector<char>& series) const {
  std::vector<char> keep(targets_.size(), f.targets.empty() ? 1 : 0);
  for (const std::string& name : f.targets) {
    auto it = std::find(targets_.begin(), targets_.end(), name);
    if (it == targets_.end()) {
      return Error(ErrorCode::kNotFound,
                   fmt::format("{}: no target '{}' (there are {})", reader_.store().name(), name, targets_.size()));
    }
    keep[static_cast<size_t>(it - targets_.begin())] = 1;
  }
  if (!series.empty()) {
    std::vector<char> touched(targets_.size(), 0);
    for (size_t s = 0; s < series.size(); ++s) {
      if (series[s]) touched[series_[s].target] = 1;
    }
    for (size_t g = 0; g < keep.size(); ++g) keep[g] &= touched[g];
  }
  std::vector<uint32_t> out;
  for (uint32_t g = 0; g < keep.size(); ++g) {
    if (keep[g]) out.push_back(g);
  }
  return out;
}

std::string JobStatsView::GroupKey(const std::vector<JobStatsKey>& by, uint32_t s, uint32_t target,
                                   const std::string& op) const {
  std::string key;
  for (JobStatsKey k : by) {
    if (!key.empty()) key += '\x1f';
    const JobStatsSeriesInfo* x = s < series_.size() ? &series_[s] : nullptr;
    switch (k) {
      case JobStatsKey::kJob:
        key += x == nullptr || x->job.empty() ? "-" : x->job;
        break;
      case JobStatsKey::kUid:
        key += x == nullptr || x->uid == INT64_MIN ? "-" : std::to_string(x->uid);
        break;
      case JobStatsKey::kNode:
        key += x == nullptr || x->node.empty() ? "-" : x->node;
        break;
      case JobStatsKey::kTarget:
        key += targets_[target];
        break;
      case JobStatsKey::kOp:
        key += op;
        break;
      case JobStatsKey::kClass:
        key += x == nullptr ? "-" : std::string(JobIdClassName(x->cls));
        break;
      case JobStatsKey::kId:
        key += x == nullptr ? "-" : x->raw;
        break;
    }
  }
  return key;
}

Status JobStatsView::Steps(const ArrayDesc& steps, int64_t t1, int64_t t2, const std::vector<uint32_t>& targets,
                           const std::vector<char>& series, bool scan, uint64_t& read,
                           const std::function<void(const std::byte*)>& fn) {
  return Walk(steps, t1, t2, targets, series, scan, false, read, fn);
}

Status JobStatsView::Walk(const ArrayDesc& steps, int64_t t1, int64_t t2, const std::vector<uint32_t>& targets,
                          const std::vector<char>& series, bool scan, bool whole_blocks, uint64_t& read,
                          const std::function<void(const std::byte*)>& fn) {
  std::vector<char> want(targets_.size(), 0);
  for (uint32_t g : targets) want[g] = 1;
  auto visit = [&](const std::byte* r) {
    ++read;
    const uint32_t g = U32At(r, L::kStepTarget), s = U32At(r, L::kStepSeries);
    if (g >= want.size() || !want[g] || (!series.empty() && (s >= series.size() || !series[s]))) return;
    if (std::min(I64At(r, L::kStepT1), t2) - std::max(I64At(r, L::kStepT0), t1) <= 0) return;
    fn(r);
  };
  const TargetIndex index = IndexOf(steps);
  if (scan || index.array == nullptr) return InTimeOrder(steps, t1, scan, visit);
  // Per target, the series the filter keeps there, in order (none: all of them).
  std::vector<std::vector<uint32_t>> chosen(targets_.size());
  for (uint32_t s = 0; s < series.size() && s < series_.size(); ++s) {
    if (series[s]) chosen[series_[s].target].push_back(s);
  }
  TnTree all(reader_.cache(), steps);
  std::vector<std::byte> rec(steps.schema.record_width());
  return TargetBlocks(index, t1, t2, targets, [&](const std::byte* b) -> Status {
    if (whole_blocks || !index.blocks) {  // (series is empty with whole_blocks: b's kStepSeries is not one)
      visit(b);
      return Ok();
    }
    const uint64_t first = U64At(b, L::kBlockFirst), n = U32At(b, L::kBlockSteps);
    const std::vector<uint32_t>& mine = chosen[U32At(b, L::kStepTarget)];
    if (series.empty() || mine.size() * static_cast<uint64_t>(std::bit_width(n) + 1) * 4 >= n) {
      return all.ForEach(first, first + n, [&](const std::byte* r) -> Result<bool> {
        visit(r);
        return true;
      });
    }
    // A few series of many: each one's step found by bisection (a block's steps are in series
    // order, one a series: docs/format.md, J0).
    uint64_t lo = first;
    const uint64_t end = first + n;
    for (uint32_t s : mine) {
      uint64_t a = lo, z = end;
      while (a < z) {
        const uint64_t m = a + (z - a) / 2;
        XTFQ_TRY(all.Record(m, rec));
        ++read;
        if (U32At(rec.data(), L::kStepSeries) < s) {
          a = m + 1;
        } else {
          z = m;
        }
      }
      if (a == end) break;
      XTFQ_TRY(all.Record(a, rec));
      if (U32At(rec.data(), L::kStepSeries) == s) {
        visit(rec.data()), ++a;
      } else {
        ++read;
      }
      lo = a;
    }
    return Ok();
  });
}

Status JobStatsView::Blocks(const ArrayDesc& steps, int64_t t1, int64_t t2, const std::vector<uint32_t>& targets,
                            bool scan, uint64_t& read, const std::function<void(const std::byte*)>& fn) {
  return Walk(steps, t1, t2, targets, {}, scan, true, read, fn);
}

Status JobStatsView::InTimeOrder(const ArrayDesc& steps, int64_t t1, bool scan,
                                 const std::function<void(const std::byte*)>& visit) {
  // Every step from the first that ends after t1 (all of them when scanning): without a P index
  // the targets interleave, so no step before the end tells that the rest start later.
  TnTree t(reader_.cache(), steps);
  uint64_t lo = 0;
  if (!scan) {
    XTFQ_ASSIGN_OR_RETURN(lo, t.LowerBound(t1 + 1));
  }
  return t.ForEach(lo, t.size(), [&](const std::byte* r) -> Result<bool> {
    visit(r);
    return true;
  });
}

Status JobStatsView::TargetBlocks(const TargetIndex& index, int64_t t1, int64_t t2,
                                  const std::vector<uint32_t>& targets,
                                  const std::function<Status(const std::byte*)>& fn) {
  Primitives p(reader_.cache(), *index.array, &reader_.store().catalogue());
  for (uint32_t g : targets) {
    XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* pa, OfTarget(p, g));
    if (pa == nullptr) continue;
    TnTree t(reader_.cache(), *pa);
    XTFQ_ASSIGN_OR_RETURN(uint64_t lo, t.LowerBound(t1 + 1));
    // A target's blocks start no earlier than the ones before them: the first that starts at or
    // after t2 ends the window.
    XTFQ_TRY(t.ForEach(lo, t.size(), [&](const std::byte* r) -> Result<bool> {
      if (I64At(r, L::kStepT0) >= t2) return false;
      XTFQ_TRY(fn(r));
      return true;
    }));
  }
  return Ok();
}

}  // namespace xtfq
