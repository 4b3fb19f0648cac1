#include "importers/darshan/darshan_accumulator.h"

#include <algorithm>
#include <string>

namespace xtfq {

namespace {

// The counter prefix of each module darshan-util keeps an accumulator for; MAX_BYTE_* only for
// the first and third.
// and, for --total, whether a negative sum is set to -1 and whether a record whose first common
// value is 0 adds no common values (darshan_log_agg_*).
struct Kept {
  std::string_view module, prefix;
  bool offsets, clamp, skip_unset;
};
constexpr Kept kKept[] = {{"POSIX", "POSIX_", true, true, false},
                          {"MPI-IO", "MPIIO_", false, false, true},
                          {"STDIO", "STDIO_", true, false, false},
                          {"DFS", "DFS_", false, true, false},
                          {"DAOS", "DAOS_", false, true, false}};

bool In(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// How --total folds in the int counter `name` (without its module prefix).
DarshanAccumulatorFold IntFold(std::string_view name) {
  using F = DarshanAccumulatorFold;
  if (In(name, {"MODE", "RENAMED_FROM", "MEM_ALIGNMENT", "FILE_ALIGNMENT", "CHUNK_SIZE", "OBJ_OTYPE", "ARRAY_CELL_SIZE",
                "ARRAY_CHUNK_SIZE"})) {
    return F::kLast;
  }
  if (In(name, {"MAX_BYTE_READ", "MAX_BYTE_WRITTEN"})) return F::kMax;
  if (In(name, {"STRIDE1_STRIDE", "ACCESS1_ACCESS"})) return F::kCommon;
  if (In(name, {"MAX_READ_TIME_SIZE", "MAX_WRITE_TIME_SIZE", "FASTEST_RANK", "FASTEST_RANK_BYTES", "SLOWEST_RANK",
                "SLOWEST_RANK_BYTES", "NB_OPS"}) ||
      name.starts_with("STRIDE") || name.starts_with("ACCESS")) {
    return F::kNone;
  }
  return F::kSum;
}

DarshanAccumulatorFold FloatFold(std::string_view name) {
  using F = DarshanAccumulatorFold;
  if (In(name, {"F_READ_TIME", "F_WRITE_TIME", "F_META_TIME"})) return F::kSum;
  if (name.ends_with("_START_TIMESTAMP")) return F::kEarliest;
  if (name.ends_with("_END_TIMESTAMP")) return F::kLatest;
  if (In(name, {"F_MAX_READ_TIME", "F_MAX_WRITE_TIME"})) return F::kMaxTime;
  if (name == "F_FASTEST_RANK_TIME") return F::kFastest;
  if (name == "F_SLOWEST_RANK_TIME") return F::kSlowest;
  if (name.starts_with("F_VARIANCE_")) return F::kZero;
  return F::kSum;
}

// Two's-complement addition, as the C counters wrap.
int64_t Add64(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

}  // namespace

std::optional<DarshanAccumulator> DarshanAccumulator::For(std::string_view module,
                                                          const std::vector<std::string_view>& names, size_t ints) {
  const Kept* kept = nullptr;
  for (const Kept& k : kKept) {
    if (k.module == module) kept = &k;
  }
  if (kept == nullptr) return std::nullopt;
  DarshanAccumulator a;
  a.offsets_ = kept->offsets;
  auto slot = [&](std::string_view counter, Slot& out) {
    const std::string name = std::string(kept->prefix) + std::string(counter);
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) return false;
    const auto i = static_cast<size_t>(it - names.begin());
    out = i < ints ? Slot{i, false} : Slot{i - ints, true};
    return true;
  };
  bool found = slot("BYTES_READ", a.bytes_read_) && slot("BYTES_WRITTEN", a.bytes_written_) &&
               slot("F_META_TIME", a.meta_) && slot("F_READ_TIME", a.read_) && slot("F_WRITE_TIME", a.write_) &&
               slot("F_SLOWEST_RANK_TIME", a.slowest_);
  if (a.offsets_) found = found && slot("MAX_BYTE_READ", a.max_read_) && slot("MAX_BYTE_WRITTEN", a.max_written_);
  // The byte counts and offsets are int counters, the times float ones.
  for (const Slot* s : {&a.bytes_read_, &a.bytes_written_}) found = found && !s->real;
  for (const Slot* s : {&a.meta_, &a.read_, &a.write_, &a.slowest_}) found = found && s->real;
  if (a.offsets_) found = found && !a.max_read_.real && !a.max_written_.real;
  for (const auto& [counter, out] : {std::pair<std::string_view, Slot*>{"FASTEST_RANK", &a.fastest_rank_},
                                     {"FASTEST_RANK_BYTES", &a.fastest_bytes_},
                                     {"SLOWEST_RANK", &a.slowest_rank_},
                                     {"SLOWEST_RANK_BYTES", &a.slowest_bytes_},
                                     {"F_FASTEST_RANK_TIME", &a.fastest_}}) {
    found = found && slot(counter, *out) && out->real == counter.starts_with("F_");
  }
  if (!found) return std::nullopt;
  a.clamp_ = kept->clamp;
  a.skip_unset_ = kept->skip_unset;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string_view name = names[i].substr(kept->prefix.size());
    if (i < ints) {
      a.int_rules_.push_back({IntFold(name), 0});
      continue;
    }
    Rule rule{FloatFold(name), 0};
    if (rule.fold == Fold::kMaxTime) {
      Slot size;
      if (!slot(name == "F_MAX_READ_TIME" ? "MAX_READ_TIME_SIZE" : "MAX_WRITE_TIME_SIZE", size) || size.real) {
        return std::nullopt;
      }
      rule.size_at = size.index;
    }
    a.float_rules_.push_back(rule);
  }
  a.total_.ints.assign(ints, 0);
  a.total_.floats.assign(names.size() - ints, 0.0);
  return a;
}

void DarshanAccumulator::Add(const DarshanCounterRecord& r) {
  auto integer = [&](Slot s) { return r.ints[s.index]; };
  auto real = [&](Slot s) { return r.floats[s.index]; };
  const int64_t read = integer(bytes_read_), written = integer(bytes_written_);
  FoldIn(r);
  ++records_;
  total_bytes_ += read + written;
  const bool shared = r.rank < 0;
  if (shared) {
    shared_time_ += real(slowest_);
  } else {
    // darshan-util's associations, so that the last digit matches.
    Rank& k = ranks_[r.rank];
    k.io += (real(meta_) + real(read_)) + real(write_);
    k.md += real(meta_);
    k.rw += real(read_) + real(write_);
  }
  auto [it, fresh] = file_index_.try_emplace(r.id, files_.size());
  if (fresh) files_.emplace_back();
  File& f = files_[it->second];
  f.read += read;
  f.written += written;
  // darshan-util: -1 ("not kept") for MPI-IO, DFS and DAOS, and it stays -1 once seen.
  const int64_t offset = offsets_ ? std::max(integer(max_read_), integer(max_written_)) : -1;
  f.max_offset = offset == -1 ? -1 : std::max(f.max_offset, offset);
  f.processes = shared || f.processes == -1 ? -1 : f.processes + 1;
}

void DarshanAccumulator::FoldIn(const DarshanCounterRecord& r) {
  if (records_ == 0) total_.id = r.id;
  one_file_ = total_.id == r.id;
  if (!one_file_) total_.id = 0;
  std::vector<int64_t>& t = total_.ints;
  for (size_t i = 0; i < int_rules_.size(); ++i) {
    const int64_t v = r.ints[i];
    switch (int_rules_[i].fold) {
      case Fold::kSum:
        t[i] = Add64(t[i], v);
        if (clamp_ && t[i] < 0) t[i] = -1;
        break;
      case Fold::kLast:
        t[i] = v;
        break;
      case Fold::kMax:
        t[i] = std::max(t[i], v);
        break;
      case Fold::kCommon:
        FoldCommon(r.ints, i);
        break;
      default:
        break;
    }
  }
  std::vector<double>& f = total_.floats;
  for (size_t i = 0; i < float_rules_.size(); ++i) {
    const double v = r.floats[i];
    switch (float_rules_[i].fold) {
      case Fold::kSum:
        f[i] += v;
        break;
      case Fold::kEarliest:
        if (v > 0 && (f[i] == 0 || v < f[i])) f[i] = v;
        break;
      case Fold::kLatest:
        if (v > f[i]) f[i] = v;
        break;
      case Fold::kMaxTime:
        if (v > f[i]) {
          f[i] = v;
          t[float_rules_[i].size_at] = r.ints[float_rules_[i].size_at];
        }
        break;
      case Fold::kFastest:
        FoldRank(r, true);
        break;
      case Fold::kSlowest:
        FoldRank(r, false);
        break;
      case Fold::kZero:
        f[i] = 0;
        break;
      default:
        break;
    }
  }
}

// The fastest or slowest rank of the records, while they all name one file: a shared record
// brings its own, any other its rank, bytes and (READ + WRITE) + META time.
void DarshanAccumulator::FoldRank(const DarshanCounterRecord& r, bool fastest) {
  const Slot rank = fastest ? fastest_rank_ : slowest_rank_, bytes = fastest ? fastest_bytes_ : slowest_bytes_;
  const Slot time = fastest ? fastest_ : slowest_;
  int64_t& agg_rank = total_.ints[rank.index];
  int64_t& agg_bytes = total_.ints[bytes.index];
  double& agg_time = total_.floats[time.index];
  if (!one_file_) {
    agg_rank = -1, agg_bytes = -1, agg_time = 0.0;
    return;
  }
  int64_t in_rank = r.rank, in_bytes = r.ints[bytes_read_.index] + r.ints[bytes_written_.index];
  double in_time = (r.floats[read_.index] + r.floats[write_.index]) + r.floats[meta_.index];
  if (r.rank == -1) {
    in_rank = r.ints[rank.index], in_bytes = r.ints[bytes.index], in_time = r.floats[time.index];
  }
  if (records_ == 0 || (fastest ? in_time < agg_time : in_time > agg_time)) {
    agg_rank = in_rank, agg_bytes = in_bytes, agg_time = in_time;
  }
}

// darshan-util's merge of a record's four common values (at i..i+3, their counts at i+4..i+7)
// into the total's, replayed step by step, since the order it leaves them in is what is printed:
// values already there gain the counts; each new value, up to the first 0, goes in before the
// first entry with a smaller count (or an equal count and a value no greater), the entries after
// it follow, and four are kept.
void DarshanAccumulator::FoldCommon(const std::vector<int64_t>& in, size_t i) {
  std::vector<int64_t>& a = total_.ints;
  if (skip_unset_ && in[i] == 0) return;
  auto at = [&](size_t k) { return i + k < a.size() ? a[i + k] : 0; };
  std::array<bool, 4> done{};
  for (size_t j = 0; j < 4; ++j) {
    for (size_t k = 0; k < 4; ++k) {
      if (a[i + k] == in[i + j]) a[i + k + 4] = Add64(a[i + k + 4], in[i + j + 4]), done[j] = true;
    }
  }
  for (size_t j = 0; j < 4; ++j) {
    if (done[j]) continue;
    const int64_t v = in[i + j], c = in[i + j + 4];
    if (v == 0) break;
    // A C int, as darshan-util keeps it.
    int total = static_cast<int>(c);
    for (size_t k = 0; k < 4; ++k) {
      if (a[i + k] == v) {
        total = static_cast<int>(Add64(a[i + k + 4], c));
        break;
      }
    }
    std::array<int64_t, 4> values{}, counts{};
    size_t n = 0, k = 0;
    for (; k < 4 && (a[i + k + 4] > total || (a[i + k + 4] == total && a[i + k] > v)); ++k, ++n) {
      values[n] = a[i + k], counts[n] = a[i + k + 4];
    }
    if (n == 4) break;
    values[n] = v, counts[n] = c, ++n;
    // Past the fourth value this reads on into the counts and the counters after them, as the C
    // code does; past the record's end, zeros.
    for (; n < 4; ++k) {
      if (i + k >= a.size()) break;
      if (at(k) != v) values[n] = at(k), counts[n] = at(k + 4), ++n;
    }
    std::copy(values.begin(), values.end(), a.begin() + static_cast<ptrdiff_t>(i));
    std::copy(counts.begin(), counts.end(), a.begin() + static_cast<ptrdiff_t>(i + 4));
  }
}

DarshanModulePerf DarshanAccumulator::Emit() const {
  DarshanModulePerf p;
  p.records = records_;
  p.total_bytes = total_bytes_;
  for (const auto& [rank, k] : ranks_) {
    if (rank >= 0 && k.io > p.slowest_rank_io_time) {
      p.slowest_rank = rank;
      p.slowest_rank_io_time = k.io;
      p.slowest_rank_meta_only_time = k.md;
      p.slowest_rank_rw_only_time = k.rw;
    }
  }
  p.time_by_slowest = shared_time_;
  p.agg_time_by_slowest = p.slowest_rank_io_time + shared_time_;
  if (p.agg_time_by_slowest != 0) {
    p.agg_perf_by_slowest = (static_cast<double>(total_bytes_) / 1048576.0) / p.agg_time_by_slowest;
  }
  // total, read_only, write_only, read_write, unique, shared, and partly shared (added to shared).
  std::array<DarshanFileCategory, 7> c{};
  auto add = [](DarshanFileCategory& cat, const File& f) {
    ++cat.count;
    cat.bytes += f.read + f.written;
    cat.max_offset = f.max_offset == -1 ? -1 : std::max(cat.max_offset, f.max_offset);
  };
  for (const File& f : files_) {
    add(c[0], f);
    if (f.read > 0 && f.written == 0) add(c[1], f);
    if (f.written > 0 && f.read == 0) add(c[2], f);
    if (f.read > 0 && f.written > 0) add(c[3], f);
    add(c[f.processes == 1 ? 4 : f.processes == -1 ? 5 : 6], f);
  }
  for (size_t i = 0; i < 6; ++i) p.files[i] = c[i];
  p.files[5].count += c[6].count;
  p.files[5].bytes += c[6].bytes;
  p.files[5].max_offset += c[6].max_offset;
  return p;
}

}  // namespace xtfq
