#include "importers/jobstats/jobstats_importer.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <map>
#include <numeric>

#include "importers/common/line_reader.h"
#include "layouts/jobstats_layout.h"
#include "store/endian.h"

namespace xtfq {

namespace {
using L = JobStatsLayout;

void Put64(std::byte* r, uint32_t off, uint64_t v) { StoreLe<uint64_t>(r + off, v); }
void Put32(std::byte* r, uint32_t off, uint32_t v) { StoreLe<uint32_t>(r + off, v); }
void PutF(std::byte* r, uint32_t off, double v) { StoreLe<uint64_t>(r + off, std::bit_cast<uint64_t>(v)); }

// "4K:1 8K:3": the buckets as label:count, space-separated.
std::string HistText(const JobStatsCounter& c) {
  std::string s;
  s.reserve(c.hist.size() * 12);
  char digits[24];
  for (const auto& [label, n] : c.hist) {
    if (!s.empty()) s += ' ';
    s += label;
    s += ':';
    s.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
  }
  return s;
}

// Duplicates within one dump: the last one stands. The index in `entries` of the last entry of
// each job id.
std::unordered_map<std::string_view, size_t> FindLastEntries(const std::vector<const JobStatsEntry*>& entries) {
  std::unordered_map<std::string_view, size_t> last;
  last.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) last[entries[i]->job_id] = i;
  return last;
}
}  // namespace

Result<JobStatsImporter> JobStatsImporter::Make(RecordSink& sink, JobStatsState& state, JobStatsImportOptions options) {
  XTFQ_ASSIGN_OR_RETURN(JobIdClassifier c, JobIdClassifier::Make(options.templates));
  return JobStatsImporter(sink, state, std::move(options), std::move(c));
}

bool JobStatsImporter::EpochTime(double t) { return std::isfinite(t) && t >= 1 && t <= JobStatsParser::kMaxTime; }

Result<double> JobStatsImporter::CollectionTime(File& in, std::optional<double> at) {
  if (at) {
    if (!EpochTime(*at)) {
      return Error(ErrorCode::kUsage,
                   fmt::format("--at {}: not an epoch time (seconds from 1 to {})", *at, JobStatsParser::kMaxTime));
    }
    return *at;
  }
  LineReader lines(in, size_t{16} << 20, size_t{16} << 10);  // the first lines only: not the whole file
  for (int i = 0; i < 64; ++i) {
    std::string line;
    XTFQ_ASSIGN_OR_RETURN(bool more, lines.Next(line));
    if (!more) break;
    std::optional<double> t;
    if (!JobStatsParser::CollectedAt(line, &t)) continue;
    if (!t || !EpochTime(*t)) {
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("{}:{}: '{}' does not give an epoch time (seconds from 1 to {})", in.name(), i + 1,
                               line.substr(0, 120), JobStatsParser::kMaxTime));
    }
    return *t;
  }
  if (auto t = JobStatsParser::TimeFromName(in.name())) {
    if (!EpochTime(*t)) {
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("{}: its name gives {}, not an epoch time (seconds from 1 to {})", in.name(), *t,
                               JobStatsParser::kMaxTime));
    }
    return *t;
  }
  return Error(ErrorCode::kInvalidArgument,
               fmt::format("{}: no collection time: snapshot_time is each entry's last update, not when the file was "
                           "read; give --at EPOCH, a '# collected_at: EPOCH' line, or a name ending in -EPOCH.txt or "
                           "an ISO 8601 stamp (xtfq collect writes both)",
                           in.name()));
}

Result<uint64_t> JobStatsImporter::Intern(std::string_view s) {
  auto it = state_->strings.find(s);
  if (it != state_->strings.end()) return it->second;
  XTFQ_ASSIGN_OR_RETURN(StringRef ref, sink_->AddString(s));
  state_->strings.emplace(std::string(s), ref.Pack());
  return ref.Pack();
}

Result<uint64_t> JobStatsImporter::InternHistogram(std::string_view text) {
  if (auto it = hist_texts_.find(text); it != hist_texts_.end()) return it->second;
  XTFQ_ASSIGN_OR_RETURN(StringRef ref, sink_->AddString(text));
  if (hist_texts_.size() >= kMaxHistTexts) hist_texts_.clear();
  hist_texts_.emplace(std::string(text), ref.Pack());
  return ref.Pack();
}

Result<ArrayId> JobStatsImporter::Array(std::string_view name, const Schema& schema) {
  if (auto it = arrays_.find(name); it != arrays_.end()) return it->second;
  std::optional<ArrayId> id = sink_->FindArrayId(name);
  if (!id) {
    XTFQ_ASSIGN_OR_RETURN(ArrayId created, sink_->CreateArray(name, schema));
    id = created;
  }
  arrays_.emplace(std::string(name), *id);
  return *id;
}

Result<JobStatsImporter::OpSteps*> JobStatsImporter::StepArrays(uint32_t op, const std::string& name) {
  if (op >= step_arrays_.size()) step_arrays_.resize(op + 1);
  OpSteps& o = step_arrays_[op];
  if (o.steps != ArrayId(0)) return &o;
  auto [it, fresh] = state_->step_ops.try_emplace(name);
  if (fresh && !L::IsLustreOp(name)) ++state_->other_step_ops;
  o.array = &it->second;
  // An array of the legacy layout is found, never created: it keeps its schema.
  XTFQ_ASSIGN_OR_RETURN(o.steps,
                        Array(L::StepArrayName(name), o.array->legacy ? L::LegacyStepSchema() : L::StepSchema()));
  if (!o.array->legacy) {
    XTFQ_ASSIGN_OR_RETURN(o.blocks, Array(L::BlockArrayName(name), L::BlockSchema()));
  }
  return &o;
}

Status JobStatsImporter::AppendBlocks(uint32_t g, int64_t t0, int64_t t1) {
  std::sort(blocks_.begin(), blocks_.end());
  std::vector<uint32_t> order;
  for (uint32_t op : blocks_) {
    OpSteps& o = step_arrays_[op];
    // A block's steps by series (an entry is read once per collection: one step a series), so
    // that a reader finds a series' step in a block by bisection.
    const size_t width = o.blocks == ArrayId(0) ? L::kLegacyStepWidth : L::kStepWidth;
    const std::byte* st = o.steps_of_block.data();
    order.resize(o.count);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return LoadLe<uint32_t>(st + a * width + L::kStepSeries) < LoadLe<uint32_t>(st + b * width + L::kStepSeries);
    });
    const uint64_t first = o.array->records;
    for (uint32_t i : order) XTFQ_TRY(sink_->Append(o.steps, std::span(st + i * width, width)));
    o.array->records += o.count;
    if (o.blocks != ArrayId(0)) {
      std::byte b[L::kBlockWidth] = {};
      Put64(b, L::kStepT1, static_cast<uint64_t>(t1));
      Put32(b, L::kStepTarget, g);
      Put32(b, L::kBlockSteps, o.count);
      Put64(b, L::kStepT0, static_cast<uint64_t>(t0));
      Put32(b, L::kStepFlags, o.flags);
      Put64(b, L::kStepDelta, o.delta);
      Put64(b, L::kStepSamples, o.samples);
      Put64(b, L::kStepSum, o.sum);
      PutF(b, L::kStepRate, o.rate);
      Put64(b, L::kBlockFirst, first);
      XTFQ_TRY(sink_->Append(o.blocks, b));
    }
    o.Clear();
  }
  blocks_.clear();
  return Ok();
}

void JobStatsImporter::DropBlocks() {
  for (uint32_t op : blocks_) step_arrays_[op].Clear();
  blocks_.clear();
}

bool JobStatsImporter::StepsKept(const std::string& op) const {
  return state_->step_ops.contains(op) || L::IsLustreOp(op) || state_->other_step_ops < L::kMaxOtherOpArrays;
}

Result<uint32_t> JobStatsImporter::NameId(std::string_view array, const std::string& name,
                                          JobStatsState::StringMap<uint32_t>& ids, size_t count) {
  if (auto it = ids.find(name); it != ids.end()) return it->second;
  XTFQ_ASSIGN_OR_RETURN(ArrayId a, Array(array, array == L::kTargets ? L::TargetSchema() : L::OpSchema()));
  XTFQ_ASSIGN_OR_RETURN(uint64_t ref, Intern(name));
  std::byte r[8];
  Put64(r, 0, ref);
  XTFQ_TRY(sink_->Append(a, r));
  const auto id = static_cast<uint32_t>(count);
  ids.emplace(name, id);
  return id;
}

Result<uint32_t> JobStatsImporter::TargetId(const std::string& name) {
  const size_t before = state_->target_ids.size();
  XTFQ_ASSIGN_OR_RETURN(uint32_t id, NameId(L::kTargets, name, state_->target_ids, state_->targets.size()));
  if (state_->target_ids.size() != before) state_->targets.push_back(JobStatsState::Target{name});
  return id;
}

Result<uint32_t> JobStatsImporter::OpId(const std::string& name) {
  const size_t before = state_->op_ids.size();
  XTFQ_ASSIGN_OR_RETURN(uint32_t id, NameId(L::kOps, name, state_->op_ids, state_->ops.size()));
  if (state_->op_ids.size() != before) state_->ops.push_back(name);
  return id;
}

Result<uint32_t> JobStatsImporter::OpAt(size_t k, const std::string& name) {
  if (k < op_at_.size() && op_at_[k] < state_->ops.size() && state_->ops[op_at_[k]] == name) return op_at_[k];
  XTFQ_ASSIGN_OR_RETURN(uint32_t op, OpId(name));
  if (k >= op_at_.size()) op_at_.resize(k + 1, UINT32_MAX);
  op_at_[k] = op;
  return op;
}

Result<uint32_t> JobStatsImporter::SeriesId(uint32_t target, const JobStatsEntry& e, int64_t t, bool* created) {
  JobStatsState::SeriesKey(target, e.job_id, series_key_);
  if (auto it = state_->series_ids.find(std::string_view(series_key_)); it != state_->series_ids.end()) {
    *created = false;
    return it->second;
  }
  *created = true;
  XTFQ_ASSIGN_OR_RETURN(ArrayId a, Array(L::kSeries, L::SeriesSchema()));
  const JobIdFields f = classifier_.Classify(e.job_id);
  std::byte r[L::kSerWidth] = {};
  Put64(r, L::kSerT, static_cast<uint64_t>(t));
  Put32(r, L::kSerTarget, target);
  r[L::kSerCls] = static_cast<std::byte>(f.cls);
  r[L::kSerTmpl] = static_cast<std::byte>(static_cast<int8_t>(f.template_index));
  r[L::kSerQuoted] = static_cast<std::byte>(e.quoted ? 1 : 0);
  Put64(r, L::kSerUid, static_cast<uint64_t>(f.uid.value_or(INT64_MIN)));
  Put64(r, L::kSerGid, static_cast<uint64_t>(f.gid.value_or(INT64_MIN)));
  Put64(r, L::kSerPid, static_cast<uint64_t>(f.pid.value_or(INT64_MIN)));
  const std::pair<uint32_t, const std::string*> strings[] = {
      {L::kSerRaw, &e.job_id}, {L::kSerJob, &f.job}, {L::kSerNode, &f.node}, {L::kSerExe, &f.exe}};
  for (const auto& [off, s] : strings) {
    XTFQ_ASSIGN_OR_RETURN(uint64_t ref, Intern(*s));
    Put64(r, off, ref);
  }
  XTFQ_TRY(sink_->Append(a, r));
  const auto id = static_cast<uint32_t>(state_->series++);
  state_->series_ids.emplace(series_key_, id);
  return id;
}

Result<JobStatsImportStats> JobStatsImporter::Import(File& in) {
  XTFQ_ASSIGN_OR_RETURN(JobStatsParsed parsed, Parse(in, options_.target, options_.at));
  return Import(std::move(parsed));
}

Result<JobStatsParsed> JobStatsImporter::Parse(File& in, const std::string& target, std::optional<double> at) {
  JobStatsParsed p;
  p.name = in.name();
  XTFQ_ASSIGN_OR_RETURN(double when, CollectionTime(in, at));
  p.time = static_cast<int64_t>(std::llround(when));
  XTFQ_ASSIGN_OR_RETURN(p.summary, JobStatsParser::Parse(in, target, [&](JobStatsEntry& e) {
                          p.entries.push_back(std::move(e));
                          return Ok();
                        }));
  return p;
}

Result<JobStatsImportStats> JobStatsImporter::Import(const JobStatsParsed& parsed) {
  JobStatsImportStats stats;
  const int64_t t = parsed.time;
  stats.time = t;
  const std::string& file = parsed.name;
  if (t < state_->last_time) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: collected at {} but the store already holds a collection at {}; job_stats are "
                             "imported in collection order (give the snapshots in one import, or start a new store)",
                             file, t, state_->last_time));
  }
  const std::vector<JobStatsEntry>& entries = parsed.entries;
  const JobStatsParser::Summary& sum = parsed.summary;
  refused_.clear();
  first_refused_ = nullptr;
  for (const JobStatsProblem& p : sum.problems) stats.problems.push_back(p.message);  // names file and line
  for (const JobStatsProblem& p : sum.warnings) stats.warnings.push_back(p.message);
  // Group by target in order of appearance; entries outside any target name (a plain cat without
  // --target) are refused as a whole.
  std::vector<std::string> targets;
  for (const std::string& name : sum.targets) {
    if (std::find(targets.begin(), targets.end(), name) == targets.end()) targets.push_back(name);
  }
  std::map<std::string, std::vector<const JobStatsEntry*>> by_target;
  bool since_boot = false;
  for (const JobStatsEntry& e : entries) {
    if (e.target.empty()) {
      return Error(
          ErrorCode::kInvalidArgument,
          fmt::format("{}:{}: an entry without a target (a plain cat of job_stats): give --target NAME", file, e.line));
    }
    if (std::find(targets.begin(), targets.end(), e.target) == targets.end()) targets.push_back(e.target);
    by_target[e.target].push_back(&e);
    since_boot |= e.since_boot;
  }
  for (const std::string& target : targets) {
    if (target.empty()) continue;
    XTFQ_TRY(ImportTarget(file, target, std::move(by_target[target]), t, since_boot, stats));
  }
  if (first_refused_ != nullptr) {
    stats.warnings.push_back(fmt::format(
        "{}: line {}: op '{}' and {} more op names have no rate steps: a store keeps rate steps for Lustre's own ops "
        "and for at most {} other op names, and it has {} (their counters are kept in {})",
        file, first_refused_->line, first_refused_->op, refused_.size() - 1, L::kMaxOtherOpArrays,
        state_->other_step_ops, L::kCounters));
  }
  state_->last_time = std::max(state_->last_time, t);
  return stats;
}

Status JobStatsImporter::ImportTarget(const std::string& file, const std::string& target,
                                      std::vector<const JobStatsEntry*> entries, int64_t t, bool since_boot,
                                      JobStatsImportStats& stats) {
  XTFQ_ASSIGN_OR_RETURN(uint32_t g, TargetId(target));
  DropBlocks();  // what a collection that failed part way gathered
  if (t == state_->targets[g].last_time) {
    // The store already holds this target's collection at t: the same snapshot again (a collector
    // restarted after committing it, or a file imported twice). Skipped, and reported.
    stats.held.push_back(target);
    return Ok();
  }
  if (t < state_->targets[g].last_time) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: target {} collected at {}, before its previous collection at {}", file, target, t,
                             state_->targets[g].last_time));
  }
  std::unordered_map<std::string_view, size_t> last = FindLastEntries(entries);
  TargetImport ti;
  ti.g = g, ti.t = t;
  XTFQ_ASSIGN_OR_RETURN(ti.entry_array, Array(L::kEntries, L::EntrySchema()));
  XTFQ_ASSIGN_OR_RETURN(ti.counter_array, Array(L::kCounters, L::CounterSchema()));
  XTFQ_ASSIGN_OR_RETURN(ti.collection_array, Array(L::kCollections, L::CollectionSchema()));
  JobStatsState::Target& tg = state_->targets[g];
  ti.baseline = tg.last_time == std::numeric_limits<int64_t>::min();
  ti.t0 = tg.last_time;
  ti.now.reserve(entries.size());
  ti.first_entry = state_->entries, ti.first_counter = state_->counters;
  for (size_t i = 0; i < entries.size(); ++i) {
    const JobStatsEntry& e = *entries[i];
    if (last[e.job_id] != i) {
      ++ti.duplicates;
      continue;
    }
    ++ti.kept;
    XTFQ_TRY(ImportEntry(ti, e, stats));
  }
  XTFQ_TRY(AppendBlocks(g, ti.t0, t));
  XTFQ_TRY(AppendCollection(ti, file, since_boot));
  tg.entries = std::move(ti.now);
  tg.last_time = t;
  stats.collections += 1, stats.entries += ti.kept, stats.duplicates += ti.duplicates;
  stats.counters += state_->counters - ti.first_counter;
  return Ok();
}

Status JobStatsImporter::ImportEntry(TargetImport& ti, const JobStatsEntry& e, JobStatsImportStats& stats) {
  EntrySteps es;
  bool created = false;
  XTFQ_ASSIGN_OR_RETURN(es.series, SeriesId(ti.g, e, ti.t, &created));
  stats.new_series += created ? 1 : 0;
  JobStatsState::Previous cur;
  cur.start_time = e.start_time;
  cur.values.reserve(e.counters.size());
  const uint64_t entry_counters = state_->counters;
  const JobStatsState::Target& tg = state_->targets[ti.g];
  auto prev_it = ti.baseline ? tg.entries.end() : tg.entries.find(es.series);
  es.prev = prev_it == tg.entries.end() ? nullptr : &prev_it->second;
  es.start_changed = es.prev != nullptr && es.prev->start_time && e.start_time && *es.prev->start_time != *e.start_time;
  for (size_t k = 0; k < e.counters.size(); ++k) {
    const JobStatsCounter& c = e.counters[k];
    const uint64_t sum = c.sum.value_or(0);
    const bool nonzero = c.samples != 0 || sum != 0 || c.min.value_or(0) != 0 || c.max.value_or(0) != 0 ||
                         c.sumsq.value_or(0) != 0 || !c.hist.empty();
    if (!nonzero) continue;  // Lustre's implicit zero
    XTFQ_ASSIGN_OR_RETURN(uint32_t op, OpAt(k, c.op));
    XTFQ_TRY(AppendCounter(ti, es.series, op, c));
    cur.values.push_back({op, c.samples, sum});
    if (ti.baseline) continue;
    XTFQ_TRY(AddStep(ti, es, op, c, stats));
  }
  XTFQ_TRY(AppendEntry(ti, es.series, e, entry_counters));
  ti.now[es.series] = std::move(cur);
  return Ok();
}

Status JobStatsImporter::AppendCounter(const TargetImport& ti, uint32_t series, uint32_t op, const JobStatsCounter& c) {
  std::byte r[L::kCntWidth] = {};
  Put64(r, L::kCntT, static_cast<uint64_t>(ti.t));
  Put32(r, L::kCntSeries, series);
  Put32(r, L::kCntOp, op);
  r[L::kCntUnit] = static_cast<std::byte>(L::UnitCode(c.unit));
  r[L::kCntHas] = static_cast<std::byte>((c.min ? 1 : 0) | (c.max ? 2 : 0) | (c.sum ? 4 : 0) | (c.sumsq ? 8 : 0));
  Put64(r, L::kCntSamples, c.samples);
  Put64(r, L::kCntMin, c.min.value_or(0));
  Put64(r, L::kCntMax, c.max.value_or(0));
  Put64(r, L::kCntSum, c.sum.value_or(0));
  Put64(r, L::kCntSumsq, c.sumsq.value_or(0));
  uint64_t hist = ~uint64_t{0};
  if (!c.hist.empty()) {
    XTFQ_ASSIGN_OR_RETURN(hist, InternHistogram(HistText(c)));
  }
  Put64(r, L::kCntHist, hist);
  XTFQ_TRY(sink_->Append(ti.counter_array, r));
  ++state_->counters;
  return Ok();
}

Status JobStatsImporter::AddStep(const TargetImport& ti, EntrySteps& es, uint32_t op, const JobStatsCounter& c,
                                 JobStatsImportStats& stats) {
  OpSteps* steps = op < step_arrays_.size() && step_arrays_[op].steps != ArrayId(0) ? &step_arrays_[op] : nullptr;
  if (steps == nullptr && !StepsKept(c.op)) {
    if (refused_.insert(c.op).second && (first_refused_ == nullptr || c.line < first_refused_->line))
      first_refused_ = &c;
    return Ok();
  }
  // The step of this (series, op) since the previous collection.
  const uint64_t sum = c.sum.value_or(0);
  uint64_t v_samples = 0, v_sum = 0;
  if (es.prev != nullptr) {
    for (const auto& pv : es.prev->values) {
      if (pv.op == op) v_samples = pv.samples, v_sum = pv.sum;
    }
  }
  uint32_t flags = 0;
  uint64_t d_samples = 0, d_sum = 0;
  if (es.prev == nullptr) {
    flags = L::kStepNew, d_samples = c.samples, d_sum = sum;
  } else if (es.start_changed) {
    flags = L::kStepStartChanged, d_samples = c.samples, d_sum = sum;
  } else if (c.samples < v_samples || sum < v_sum) {
    flags = L::kStepReset, d_samples = c.samples, d_sum = sum;
  } else {
    d_samples = c.samples - v_samples, d_sum = sum - v_sum;
  }
  if ((flags & (L::kStepReset | L::kStepStartChanged)) != 0 && !es.reset_counted)
    ++stats.resets, es.reset_counted = true;
  if (d_samples == 0 && d_sum == 0) return Ok();
  const bool bytes = L::CountsBytes(c.op, c.unit);
  const uint64_t delta = bytes ? d_sum : d_samples;
  if (steps == nullptr) {
    XTFQ_ASSIGN_OR_RETURN(steps, StepArrays(op, c.op));
  }
  const double rate = static_cast<double>(delta) / static_cast<double>(ti.t - ti.t0);
  if (steps->count++ == 0) blocks_.push_back(op);
  steps->flags |= flags | (bytes ? L::kStepBytes : 0);
  steps->delta += delta, steps->samples += d_samples, steps->sum += d_sum;
  steps->rate = std::max(steps->rate, rate);
  std::byte st[L::kLegacyStepWidth] = {};  // the legacy layout's rate at kStepRate
  Put64(st, L::kStepT1, static_cast<uint64_t>(ti.t));
  Put32(st, L::kStepTarget, ti.g);
  Put32(st, L::kStepSeries, es.series);
  Put64(st, L::kStepT0, static_cast<uint64_t>(ti.t0));
  Put32(st, L::kStepFlags, flags | (bytes ? L::kStepBytes : 0));
  Put64(st, L::kStepDelta, delta);
  Put64(st, L::kStepSamples, d_samples);
  Put64(st, L::kStepSum, d_sum);
  PutF(st, L::kStepRate, rate);
  const size_t width = steps->blocks == ArrayId(0) ? L::kLegacyStepWidth : L::kStepWidth;
  steps->steps_of_block.insert(steps->steps_of_block.end(), st, st + width);
  ++stats.steps;
  return Ok();
}

Status JobStatsImporter::AppendEntry(const TargetImport& ti, uint32_t series, const JobStatsEntry& e,
                                     uint64_t first_counter) {
  std::byte r[L::kEntWidth] = {};
  Put64(r, L::kEntT, static_cast<uint64_t>(ti.t));
  Put32(r, L::kEntSeries, series);
  Put32(r, L::kEntFlags,
        (e.quoted ? L::kEntQuoted : 0) | (e.since_boot ? L::kEntSinceBoot : 0) | (e.start_time ? L::kEntHasStart : 0) |
            (e.elapsed_time ? L::kEntHasElapsed : 0));
  PutF(r, L::kEntSnapshot, e.snapshot_time);
  PutF(r, L::kEntStart, e.start_time.value_or(0));
  PutF(r, L::kEntElapsed, e.elapsed_time.value_or(0));
  Put64(r, L::kEntFirstCounter, first_counter);
  Put32(r, L::kEntCounters, static_cast<uint32_t>(state_->counters - first_counter));
  Put32(r, L::kEntLine, static_cast<uint32_t>(std::min<uint64_t>(e.line, UINT32_MAX)));
  XTFQ_TRY(sink_->Append(ti.entry_array, r));
  ++state_->entries;
  return Ok();
}

Status JobStatsImporter::AppendCollection(const TargetImport& ti, const std::string& file, bool since_boot) {
  std::byte r[L::kColWidth] = {};
  Put64(r, L::kColT, static_cast<uint64_t>(ti.t));
  Put64(r, L::kColTarget, ti.g);
  Put64(r, L::kColFirstEntry, ti.first_entry);
  Put32(r, L::kColEntries, ti.kept);
  Put32(r, L::kColFlags, (since_boot ? L::kColSinceBoot : 0) | (ti.kept == 0 ? L::kColEmpty : 0));
  Put64(r, L::kColFirstCounter, ti.first_counter);
  Put32(r, L::kColCounters, static_cast<uint32_t>(state_->counters - ti.first_counter));
  Put32(r, L::kColDuplicates, ti.duplicates);
  XTFQ_ASSIGN_OR_RETURN(uint64_t name_ref, Intern(file));
  Put64(r, L::kColFile, name_ref);
  XTFQ_TRY(sink_->Append(ti.collection_array, r));
  return Ok();
}

}  // namespace xtfq
