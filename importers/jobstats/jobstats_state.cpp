#include "importers/jobstats/jobstats_state.h"

#include <fmt/format.h>

#include <bit>

#include "layouts/jobstats_layout.h"
#include "store/endian.h"

namespace xtfq {

namespace {
using L = JobStatsLayout;

}  // namespace

Result<JobStatsState> JobStatsState::Load(RecordSource& source) {
  JobStatsState st;
  const Catalogue& cat = source.catalogue();
  // Every record of an array, in order.
  auto all = [&](const ArrayDesc& a, const std::function<Status(const std::byte*)>& fn) {
    return source.ForEachAt(a, 0, a.record_count(), [&](const std::byte* r) -> Result<bool> {
      XTFQ_TRY(fn(r));
      return true;
    });
  };
  // Interned strings, by reference.
  auto str = [&](uint64_t ref) -> Result<std::string> {
    XTFQ_ASSIGN_OR_RETURN(std::string s, source.String(StringRef::Unpack(ref)));
    st.strings.emplace(s, ref);
    return s;
  };
  if (const ArrayDesc* a = cat.Find(L::kTargets)) {
    XTFQ_TRY(all(*a, [&](const std::byte* r) -> Status {
      XTFQ_ASSIGN_OR_RETURN(std::string name, str(U64At(r, 0)));
      st.target_ids.emplace(name, static_cast<uint32_t>(st.targets.size()));
      st.targets.push_back(Target{std::move(name)});
      return Ok();
    }));
  }
  if (const ArrayDesc* a = cat.Find(L::kOps)) {
    XTFQ_TRY(all(*a, [&](const std::byte* r) -> Status {
      XTFQ_ASSIGN_OR_RETURN(std::string name, str(U64At(r, 0)));
      st.op_ids.emplace(name, static_cast<uint32_t>(st.ops.size()));
      st.ops.push_back(std::move(name));
      return Ok();
    }));
  }
  if (const ArrayDesc* a = cat.Find(L::kSeries)) {
    XTFQ_TRY(all(*a, [&](const std::byte* r) -> Status {
      const uint32_t target = U32At(r, L::kSerTarget);
      if (target >= st.targets.size()) {
        return Error(ErrorCode::kCorrupt,
                     fmt::format("series {} names target {} of {}", st.series, target, st.targets.size()));
      }
      XTFQ_ASSIGN_OR_RETURN(std::string raw, str(U64At(r, L::kSerRaw)));
      for (uint32_t off : {L::kSerJob, L::kSerNode, L::kSerExe}) XTFQ_TRY(str(U64At(r, off)));
      st.series_ids.emplace(SeriesKey(target, raw), static_cast<uint32_t>(st.series++));
      return Ok();
    }));
  }
  for (const ArrayDesc& a : cat.arrays) {
    if (a.per_process() || !a.name.starts_with(L::kStepArrayPrefix)) continue;
    const std::string op = a.name.substr(L::kStepArrayPrefix.size());
    st.other_step_ops += L::IsLustreOp(op) ? 0 : 1;
    st.step_ops.emplace(op, StepArray{a.record_count(), a.schema.process_field().has_value()});
  }
  const ArrayDesc* cols = cat.Find(L::kCollections);
  const ArrayDesc* ents = cat.Find(L::kEntries);
  const ArrayDesc* cnts = cat.Find(L::kCounters);
  if (cols == nullptr || ents == nullptr || cnts == nullptr) return st;
  st.entries = ents->record_count(), st.counters = cnts->record_count();
  // Each target's last collection (the last record of its per-target array), its entries and
  // their counters.
  for (const ArrayDesc* col : cat.Children(cols->id, INT64_MIN, INT64_MAX)) {
    const ArrayDesc& pa = *col;
    if (pa.record_count() == 0) continue;
    if (pa.process < 0 || static_cast<uint64_t>(pa.process) >= st.targets.size()) {
      return Error(ErrorCode::kCorrupt, fmt::format("collections of target {} of {}", pa.process, st.targets.size()));
    }
    Target& tg = st.targets[static_cast<size_t>(pa.process)];
    uint64_t first = 0, n = 0;
    XTFQ_TRY(source.ForEachAt(pa, pa.record_count() - 1, pa.record_count(), [&](const std::byte* col) -> Result<bool> {
      tg.last_time = I64At(col, L::kColT);
      first = U64At(col, L::kColFirstEntry), n = U32At(col, L::kColEntries);
      return false;
    }));
    st.last_time = std::max(st.last_time, tg.last_time);
    if (first + n > ents->record_count()) {
      return Error(ErrorCode::kCorrupt, fmt::format("the last collection of target {} names entries [{}, {}) of {}",
                                                    pa.process, first, first + n, ents->record_count()));
    }
    XTFQ_TRY(source.ForEachAt(*ents, first, first + n, [&](const std::byte* e) -> Result<bool> {
      Previous prev;
      if ((U32At(e, L::kEntFlags) & L::kEntHasStart) != 0) prev.start_time = F64At(e, L::kEntStart);
      const uint64_t c0 = U64At(e, L::kEntFirstCounter), cn = U32At(e, L::kEntCounters);
      if (c0 + cn > cnts->record_count()) {
        return Error(ErrorCode::kCorrupt,
                     fmt::format("an entry names counters [{}, {}) of {}", c0, c0 + cn, cnts->record_count()));
      }
      XTFQ_TRY(source.ForEachAt(*cnts, c0, c0 + cn, [&](const std::byte* c) -> Result<bool> {
        prev.values.push_back({U32At(c, L::kCntOp), U64At(c, L::kCntSamples), U64At(c, L::kCntSum)});
        return true;
      }));
      tg.entries[U32At(e, L::kEntSeries)] = std::move(prev);
      return true;
    }));
  }
  return st;
}

Result<bool> JobStatsState::Holds(RecordSource& source, std::string_view target, int64_t t) const {
  const auto id = target_ids.find(target);
  const ArrayDesc* cols = source.catalogue().Find(L::kCollections);
  if (id == target_ids.end() || cols == nullptr) return false;
  const auto mine = source.catalogue().Children(cols->id, id->second, int64_t{id->second} + 1);
  if (mine.empty()) return false;
  const ArrayDesc& pa = *mine.front();
  // The first collection at or after t (collections of a target are in time order).
  auto time_at = [&](uint64_t k) -> Result<int64_t> {
    int64_t at = 0;
    XTFQ_TRY(source.ForEachAt(pa, k, k + 1, [&](const std::byte* r) -> Result<bool> {
      at = I64At(r, L::kColT);
      return false;
    }));
    return at;
  };
  uint64_t lo = 0, hi = pa.record_count();
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    XTFQ_ASSIGN_OR_RETURN(int64_t at, time_at(mid));
    if (at < t) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == pa.record_count()) return false;
  XTFQ_ASSIGN_OR_RETURN(int64_t at, time_at(lo));
  return at == t;
}

}  // namespace xtfq
