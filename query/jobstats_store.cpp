#include "query/jobstats_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <unordered_map>

#include "index/tn_tree.h"
#include "query/primitives.h"
#include "store/endian.h"

namespace xtfq {

namespace {
using L = JobStatsLayout;

uint64_t U64(const std::byte* r, uint32_t off) { return LoadLe<uint64_t>(r + off); }
int64_t I64(const std::byte* r, uint32_t off) { return LoadLe<int64_t>(r + off); }
uint32_t U32(const std::byte* r, uint32_t off) { return LoadLe<uint32_t>(r + off); }
double F64(const std::byte* r, uint32_t off) { return std::bit_cast<double>(LoadLe<uint64_t>(r + off)); }

constexpr std::pair<JobStatsKey, std::string_view> kKeys[] = {
    {JobStatsKey::kJob, "job"},       {JobStatsKey::kUid, "uid"},     {JobStatsKey::kNode, "node"},
    {JobStatsKey::kTarget, "target"}, {JobStatsKey::kOp, "op"},       {JobStatsKey::kClass, "class"},
    {JobStatsKey::kId, "id"}};

// The part of a step [t0, t1) of change `delta` inside [w1, w2): delta * overlap / (t1 - t0).
double Part(uint64_t delta, int64_t t0, int64_t t1, int64_t w1, int64_t w2) {
  const int64_t overlap = std::min(t1, w2) - std::max(t0, w1);
  if (overlap <= 0) return 0;
  if (overlap == t1 - t0) return static_cast<double>(delta);
  return static_cast<double>(delta) * static_cast<double>(overlap) / static_cast<double>(t1 - t0);
}
// The per-process array of target g (nullptr when g has no record there).
Result<const ArrayDesc*> OfTarget(Primitives& p, uint32_t g) {
  auto pa = p.ProcessArray(g);
  if (pa.ok()) return *pa;
  if (pa.error().code() == ErrorCode::kNotFound) return static_cast<const ArrayDesc*>(nullptr);
  return pa.error();
}
}  // namespace

Result<JobStatsKey> ParseJobStatsKey(std::string_view name) {
  for (const auto& [k, n] : kKeys) {
    if (n == name) return k;
  }
  return Error(ErrorCode::kInvalidArgument, fmt::format("'{}' is not a job_stats key (job, uid, node, target, op, class, id)", name));
}

std::string_view JobStatsKeyName(JobStatsKey k) {
  for (const auto& [key, n] : kKeys) {
    if (key == k) return n;
  }
  return "?";
}

bool JobStatsStore::Holds(const Store& store) { return store.catalogue().Find(L::kCollections) != nullptr; }

Result<std::unique_ptr<JobStatsStore>> JobStatsStore::Open(StoreReader& reader) {
  if (!Holds(reader.store())) {
    return Error(ErrorCode::kNotFound, fmt::format("{}: holds no job_stats (import snapshots with --format jobstats)", reader.store().name()));
  }
  std::unique_ptr<JobStatsStore> s(new JobStatsStore(reader));
  XTFQ_TRY(s->Load());
  return s;
}

Status JobStatsStore::Load() {
  std::unordered_map<uint64_t, std::string> strings;
  auto str = [&](uint64_t ref) -> Result<std::string> {
    if (auto it = strings.find(ref); it != strings.end()) return it->second;
    XTFQ_ASSIGN_OR_RETURN(std::string s, reader_.String(StringRef::Unpack(ref)));
    strings.emplace(ref, s);
    return s;
  };
  const Catalogue& cat = reader_.store().catalogue();
  for (auto [name, out] : {std::pair{L::kTargets, &targets_}, std::pair{L::kOps, &ops_}}) {
    if (const ArrayDesc* a = cat.Find(name)) {
      XTFQ_TRY(reader_.ForEach(*a, [&](const std::byte* r) -> Status {
        XTFQ_ASSIGN_OR_RETURN(std::string s, str(U64(r, 0)));
        out->push_back(std::move(s));
        return Ok();
      }));
    }
  }
  if (const ArrayDesc* a = cat.Find(L::kSeries)) {
    series_.reserve(a->record_count());
    XTFQ_TRY(reader_.ForEach(*a, [&](const std::byte* r) -> Status {
      JobStatsSeriesInfo s;
      s.first = I64(r, L::kSerT);
      s.target = U32(r, L::kSerTarget);
      s.cls = static_cast<JobIdClass>(r[L::kSerCls]);
      s.tmpl = static_cast<int8_t>(r[L::kSerTmpl]);
      s.quoted = r[L::kSerQuoted] != std::byte{0};
      s.uid = I64(r, L::kSerUid), s.gid = I64(r, L::kSerGid), s.pid = I64(r, L::kSerPid);
      XTFQ_ASSIGN_OR_RETURN(s.raw, str(U64(r, L::kSerRaw)));
      XTFQ_ASSIGN_OR_RETURN(s.job, str(U64(r, L::kSerJob)));
      XTFQ_ASSIGN_OR_RETURN(s.node, str(U64(r, L::kSerNode)));
      XTFQ_ASSIGN_OR_RETURN(s.exe, str(U64(r, L::kSerExe)));
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

uint64_t JobStatsStore::collections() const {
  const ArrayDesc* a = reader_.store().catalogue().Find(L::kCollections);
  return a == nullptr ? 0 : a->record_count();
}

uint64_t JobStatsStore::entries() const {
  const ArrayDesc* a = reader_.store().catalogue().Find(L::kEntries);
  return a == nullptr ? 0 : a->record_count();
}

Result<std::optional<std::pair<int64_t, int64_t>>> JobStatsStore::Span() {
  const ArrayDesc* a = reader_.store().catalogue().Find(L::kCollections);
  if (a == nullptr || a->record_count() == 0) return std::optional<std::pair<int64_t, int64_t>>();
  TnTree t(reader_.cache(), *a);
  std::vector<std::byte> r(a->schema.record_width());
  XTFQ_TRY(t.Record(0, r));
  const int64_t first = I64(r.data(), L::kColT);
  XTFQ_TRY(t.Record(a->record_count() - 1, r));
  return std::optional<std::pair<int64_t, int64_t>>(std::pair{first, I64(r.data(), L::kColT)});
}

Result<std::vector<char>> JobStatsStore::SelectSeries(const JobStatsFilter& f) const {
  if (!f.BySeries()) return std::vector<char>();
  std::vector<char> keep(series_.size(), 0);
  auto in = [](const std::vector<std::string>& v, const std::string& s) { return v.empty() || std::find(v.begin(), v.end(), s) != v.end(); };
  for (const std::string& c : f.classes) {
    bool known = false;
    for (size_t i = 0; i < kJobIdClasses; ++i) known |= JobIdClassName(static_cast<JobIdClass>(i)) == c;
    if (!known) {
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("'{}' is not a job id class (ok, missing_job, fqdn, truncated, system_uid, malformed)", c));
    }
  }
  for (size_t s = 0; s < series_.size(); ++s) {
    const JobStatsSeriesInfo& x = series_[s];
    keep[s] = in(f.jobs, x.job) && in(f.nodes, x.node) && in(f.ids, x.raw) &&
              in(f.classes, std::string(JobIdClassName(x.cls))) &&
              (f.uids.empty() || std::find(f.uids.begin(), f.uids.end(), x.uid) != f.uids.end());
  }
  return keep;
}

Result<std::vector<uint32_t>> JobStatsStore::SelectTargets(const JobStatsFilter& f, const std::vector<char>& series) const {
  std::vector<char> keep(targets_.size(), f.targets.empty() ? 1 : 0);
  for (const std::string& name : f.targets) {
    auto it = std::find(targets_.begin(), targets_.end(), name);
    if (it == targets_.end()) {
      return Error(ErrorCode::kNotFound, fmt::format("{}: no target '{}' (there are {})", reader_.store().name(), name, targets_.size()));
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

std::string JobStatsStore::GroupKey(const std::vector<JobStatsKey>& by, uint32_t s, uint32_t target, const std::string& op) const {
  std::string key;
  for (JobStatsKey k : by) {
    if (!key.empty()) key += '\x1f';
    const JobStatsSeriesInfo* x = s < series_.size() ? &series_[s] : nullptr;
    switch (k) {
      case JobStatsKey::kJob: key += x == nullptr || x->job.empty() ? "-" : x->job; break;
      case JobStatsKey::kUid: key += x == nullptr || x->uid == INT64_MIN ? "-" : std::to_string(x->uid); break;
      case JobStatsKey::kNode: key += x == nullptr || x->node.empty() ? "-" : x->node; break;
      case JobStatsKey::kTarget: key += targets_[target]; break;
      case JobStatsKey::kOp: key += op; break;
      case JobStatsKey::kClass: key += x == nullptr ? "-" : std::string(JobIdClassName(x->cls)); break;
      case JobStatsKey::kId: key += x == nullptr ? "-" : x->raw; break;
    }
  }
  return key;
}

Status JobStatsStore::Steps(const ArrayDesc& steps, int64_t t1, int64_t t2, const std::vector<uint32_t>& targets,
                            const std::vector<char>& series, bool scan, uint64_t& read,
                            const std::function<void(const std::byte*)>& fn) {
  std::vector<char> want(targets_.size(), 0);
  for (uint32_t g : targets) want[g] = 1;
  auto visit = [&](const std::byte* r) {
    ++read;
    const uint32_t g = U32(r, L::kStepTarget), s = U32(r, L::kStepSeries);
    if (g >= want.size() || !want[g] || (!series.empty() && (s >= series.size() || !series[s]))) return;
    if (std::min(I64(r, L::kStepT1), t2) - std::max(I64(r, L::kStepT0), t1) <= 0) return;
    fn(r);
  };
  if (scan || !steps.process_index) {
    // Every step from the first that ends after t1 (all of them when scanning): without a P
    // index the targets interleave, so no step before the end tells that the rest start later.
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
  Primitives p(reader_.cache(), steps, &reader_.store().catalogue());
  for (uint32_t g : targets) {
    XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* pa, OfTarget(p, g));
    if (pa == nullptr) continue;
    TnTree t(reader_.cache(), *pa);
    XTFQ_ASSIGN_OR_RETURN(uint64_t lo, t.LowerBound(t1 + 1));
    // A target's steps start no earlier than the ones before them: the first that starts at or
    // after t2 ends the window.
    XTFQ_TRY(t.ForEach(lo, t.size(), [&](const std::byte* r) -> Result<bool> {
      if (I64(r, L::kStepT0) >= t2) return false;
      visit(r);
      return true;
    }));
  }
  return Ok();
}

Result<JobStatsWindow> JobStatsStore::Window(int64_t t1, int64_t t2, const JobStatsFilter& filter,
                                             const std::vector<JobStatsKey>& by, bool scan) {
  if (t1 >= t2) return Error(ErrorCode::kInvalidArgument, fmt::format("the window {}:{} is empty", t1, t2));
  JobStatsWindow out;
  out.t1 = t1, out.t2 = t2;
  XTFQ_ASSIGN_OR_RETURN(std::vector<char> series, SelectSeries(filter));
  XTFQ_ASSIGN_OR_RETURN(std::vector<uint32_t> targets, SelectTargets(filter, series));
  for (const std::string& op : filter.ops) {
    if (std::find(ops_.begin(), ops_.end(), op) == ops_.end()) {
      return Error(ErrorCode::kNotFound, fmt::format("{}: no op '{}' in the store ({})", reader_.store().name(), op, fmt::join(ops_, " ")));
    }
  }
  const Catalogue& cat = reader_.store().catalogue();
  for (const std::string& op : ops_) {
    if ((filter.ops.empty() || std::find(filter.ops.begin(), filter.ops.end(), op) != filter.ops.end()) &&
        cat.Find(L::StepArrayName(op)) != nullptr) {
      out.ops.push_back(op);
    }
  }
  bool per_series = !series.empty();
  for (JobStatsKey k : by) per_series |= k != JobStatsKey::kTarget && k != JobStatsKey::kOp;
  std::unordered_map<std::string, size_t> index;
  auto group = [&](const std::string& key) -> JobStatsGroup& {
    auto [it, fresh] = index.emplace(key, out.groups.size());
    if (fresh) {
      JobStatsGroup g;
      size_t start = 0;
      for (size_t i = 0; i < by.size(); ++i) {
        const size_t end = key.find('\x1f', start);
        g.keys.push_back(key.substr(start, end == std::string::npos ? std::string::npos : end - start));
        start = end == std::string::npos ? key.size() : end + 1;
      }
      out.groups.push_back(std::move(g));
    }
    return out.groups[it->second];
  };
  out.indexed = !per_series && !scan;
  for (const std::string& op : out.ops) {
    const ArrayDesc& steps = *cat.Find(L::StepArrayName(op));
    if (per_series || scan || !steps.process_index) {
      XTFQ_TRY(Steps(steps, t1, t2, targets, series, scan, out.steps_read, [&](const std::byte* r) {
        const uint32_t s = U32(r, L::kStepSeries), g = U32(r, L::kStepTarget);
        JobStatsOpResult& o = group(GroupKey(by, s, g, op)).ops[op];
        o.total += Part(U64(r, L::kStepDelta), I64(r, L::kStepT0), I64(r, L::kStepT1), t1, t2);
        o.rate_max = std::max(o.rate_max, F64(r, L::kStepRate));
        ++o.steps;
      }));
      if (!steps.process_index && !scan) out.indexed = false;
      continue;
    }
    // From the TN tree of each target's steps: the steps ending in (t1, t2] count whole except
    // the first block, which may start before t1; the block ending first after t2 counts in
    // part when it starts before t2. Steps of one block share t0 and t1.
    Primitives p(reader_.cache(), steps, &cat);
    std::vector<std::byte> rec(steps.schema.record_width());
    for (uint32_t g : targets) {
      XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* pa, OfTarget(p, g));
      if (pa == nullptr) continue;
      TnTree t(reader_.cache(), *pa);
      XTFQ_ASSIGN_OR_RETURN(uint64_t lo, t.LowerBound(t1 + 1));
      if (lo == t.size()) continue;
      XTFQ_ASSIGN_OR_RETURN(uint64_t hi, t.LowerBound(t2 + 1));
      double total = 0, rate_max = 0;
      uint64_t count = 0;
      if (lo < hi) {
        XTFQ_ASSIGN_OR_RETURN(Summary whole, t.Aggregate(lo, hi));
        total = static_cast<double>(static_cast<uint64_t>(whole.fields[0].i_sum));
        rate_max = whole.fields[3].f_max, count = whole.count;
        XTFQ_TRY(t.Record(lo, rec));
        const int64_t a1 = I64(rec.data(), L::kStepT1), a0 = I64(rec.data(), L::kStepT0);
        if (a0 < t1) {
          XTFQ_ASSIGN_OR_RETURN(uint64_t a_end, t.LowerBound(a1 + 1));
          XTFQ_ASSIGN_OR_RETURN(Summary a, t.Aggregate(lo, a_end));
          const auto sum = static_cast<double>(static_cast<uint64_t>(a.fields[0].i_sum));
          total -= sum * static_cast<double>(t1 - a0) / static_cast<double>(a1 - a0);
        }
      }
      if (hi < t.size()) {
        XTFQ_TRY(t.Record(hi, rec));
        const int64_t b1 = I64(rec.data(), L::kStepT1), b0 = I64(rec.data(), L::kStepT0);
        if (b0 < t2) {
          XTFQ_ASSIGN_OR_RETURN(uint64_t b_end, t.LowerBound(b1 + 1));
          XTFQ_ASSIGN_OR_RETURN(Summary b, t.Aggregate(hi, b_end));
          total += Part(static_cast<uint64_t>(b.fields[0].i_sum), b0, b1, t1, t2);
          rate_max = std::max(rate_max, b.fields[3].f_max), count += b.count;
        }
      }
      if (count == 0) continue;
      JobStatsOpResult& o = group(GroupKey(by, UINT32_MAX, g, op)).ops[op];
      o.total += total, o.rate_max = std::max(o.rate_max, rate_max), o.steps += count;
    }
  }
  std::sort(out.groups.begin(), out.groups.end(), [](const JobStatsGroup& a, const JobStatsGroup& b) { return a.keys < b.keys; });
  return out;
}

Result<JobStatsHeatmap> JobStatsStore::Heatmap(int64_t t1, int64_t t2, int64_t step, const std::string& op, double base,
                                               const JobStatsFilter& filter, const std::vector<JobStatsKey>& by) {
  if (t1 >= t2) return Error(ErrorCode::kInvalidArgument, fmt::format("the window {}:{} is empty", t1, t2));
  if (step <= 0) return Error(ErrorCode::kInvalidArgument, "the heatmap step must be a positive number of seconds");
  if (!(base > 1) || !std::isfinite(base)) return Error(ErrorCode::kInvalidArgument, fmt::format("the base must be > 1 (got {})", base));
  JobStatsHeatmap out;
  out.t1 = t1, out.t2 = t2, out.step = step, out.base = base, out.op = op;
  const ArrayDesc* steps = reader_.store().catalogue().Find(L::StepArrayName(op));
  if (steps == nullptr) {
    return Error(ErrorCode::kNotFound, fmt::format("{}: no steps of op '{}' (ops: {})", reader_.store().name(), op, fmt::join(ops_, " ")));
  }
  XTFQ_ASSIGN_OR_RETURN(std::vector<char> series, SelectSeries(filter));
  XTFQ_ASSIGN_OR_RETURN(std::vector<uint32_t> targets, SelectTargets(filter, series));
  const std::vector<JobStatsKey> keys = by.empty() ? std::vector<JobStatsKey>{JobStatsKey::kTarget, JobStatsKey::kId} : by;
  const auto cells = static_cast<size_t>((t2 - t1 + step - 1) / step);
  // Each group's integral over each cell (the resampling that keeps integrals).
  std::unordered_map<std::string, std::vector<double>> integral;
  uint64_t read = 0;
  XTFQ_TRY(Steps(*steps, t1, t2, targets, series, false, read, [&](const std::byte* r) {
    std::vector<double>& v = integral[GroupKey(keys, U32(r, L::kStepSeries), U32(r, L::kStepTarget), op)];
    if (v.empty()) v.assign(cells, 0.0);
    const int64_t a0 = I64(r, L::kStepT0), a1 = I64(r, L::kStepT1);
    const int64_t s0 = std::max(a0, t1), s1 = std::min(a1, t2);
    const uint64_t delta = U64(r, L::kStepDelta);
    for (auto c = static_cast<size_t>((s0 - t1) / step); c < cells; ++c) {
      const int64_t c0 = t1 + static_cast<int64_t>(c) * step;
      if (c0 >= s1) break;
      v[c] += Part(delta, a0, a1, c0, std::min(c0 + step, t2));
    }
  }));
  out.groups = integral.size();
  std::map<std::pair<int64_t, int>, uint64_t> z;
  const double lb = std::log(base);
  for (const auto& [key, v] : integral) {
    for (size_t c = 0; c < cells; ++c) {
      if (v[c] <= 0) continue;
      const int64_t c0 = t1 + static_cast<int64_t>(c) * step;
      const double rate = v[c] / static_cast<double>(std::min(c0 + step, t2) - c0);
      auto k = static_cast<int>(std::floor(std::log(rate) / lb));
      // Correct the logarithm's rounding at bin edges: base^k <= rate < base^(k+1).
      if (std::pow(base, k) > rate) --k;
      else if (std::pow(base, k + 1) <= rate) ++k;
      ++z[{c0, k}];
    }
  }
  for (const auto& [tk, n] : z) out.cells.push_back({tk.first, tk.second, n});
  return out;
}

}  // namespace xtfq
