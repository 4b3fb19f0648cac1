#include "query/darshan/darshan_counter_window.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "layouts/darshan_layout.h"
#include "store/endian.h"

namespace xtfq {

namespace {

// A counter of the module's records, by darshan-parser's name: its offset and type.
struct Counter {
  uint32_t offset = 0;
  bool real = false;  // f64 (else i64)
  double Read(const std::byte* r) const { return real ? F64At(r, offset) : static_cast<double>(I64At(r, offset)); }
};

std::optional<Counter> Find(const Schema& s, const std::string& name) {
  for (const Field& f : s.fields()) {
    if (f.name == name) return Counter{f.offset, f.type == FieldType::kF64};
  }
  return std::nullopt;
}

// The counters one operation (read or write) of a module takes from a record.
struct OpCounters {
  std::vector<Counter> ops;  // summed: the operation count
  std::optional<Counter> bytes, start, end, time, seq, consec;
  std::array<std::optional<Counter>, DarshanLayout::kSizeClasses> size_classes;
};

// Estimated sums in doubles, rounded once at the end.
struct Sums {
  double ops = 0, bytes = 0, busy = 0, seq = 0, consec = 0;
  std::array<double, DarshanLayout::kSizeClasses> size_classes{};
  bool seq_known = true, consec_known = true, size_classes_known = true;
  DarshanOpStats Rounded() const {
    DarshanOpStats o;
    o.seq_known = seq_known, o.consec_known = consec_known, o.size_classes_known = size_classes_known;
    o.ops = static_cast<uint64_t>(std::llround(ops)), o.bytes = std::llround(bytes), o.busy = busy;
    o.seq = std::llround(seq), o.consec = std::llround(consec);
    for (size_t b = 0; b < size_classes.size(); ++b) o.size_classes[b] = std::llround(size_classes[b]);
    return o;
  }
};

Result<OpCounters> CountersOf(const Schema& s, const std::string& module, bool read) {
  const std::string m = module == "MPI-IO" ? "MPIIO" : module;
  const std::string rw = read ? "READ" : "WRITE";
  OpCounters c;
  std::vector<std::string> op_names;
  if (module == "MPI-IO") {
    for (const char* kind : {"INDEP", "COLL", "SPLIT", "NB"}) op_names.push_back(fmt::format("MPIIO_{}_{}S", kind, rw));
  } else {
    op_names.push_back(fmt::format("{}_{}S", m, rw));
  }
  for (const std::string& n : op_names) {
    if (auto k = Find(s, n)) c.ops.push_back(*k);
  }
  c.bytes = Find(s, fmt::format("{}_BYTES_{}", m, read ? "READ" : "WRITTEN"));
  c.start = Find(s, fmt::format("{}_F_{}_START_TIMESTAMP", m, rw));
  c.end = Find(s, fmt::format("{}_F_{}_END_TIMESTAMP", m, rw));
  c.time = Find(s, fmt::format("{}_F_{}_TIME", m, rw));
  c.seq = Find(s, fmt::format("{}_SEQ_{}S", m, rw));
  c.consec = Find(s, fmt::format("{}_CONSEC_{}S", m, rw));
  for (int b = 0; b < DarshanLayout::kSizeClasses; ++b) {
    const std::string bin(DarshanLayout::SizeClassName(b));
    c.size_classes[static_cast<size_t>(b)] = module == "MPI-IO" ? Find(s, fmt::format("MPIIO_SIZE_{}_AGG_{}", rw, bin))
                                                                : Find(s, fmt::format("{}_SIZE_{}_{}", m, rw, bin));
  }
  if (c.ops.empty() || !c.bytes || !c.start || !c.end) {
    return Error(ErrorCode::kUnsupported,
                 fmt::format("the {} records have no {} counts, bytes and timestamps to estimate a window from", module,
                             read ? "read" : "write"));
  }
  return c;
}

}  // namespace

double DarshanCounterWindow::Share(double a, double b, int64_t w1, int64_t w2) {
  const double lo = w1 == INT64_MIN ? -INFINITY : static_cast<double>(w1) / 1e9;
  const double hi = w2 == INT64_MAX ? INFINITY : static_cast<double>(w2) / 1e9;
  if (!(b > a)) return a >= lo && a < hi ? 1.0 : 0.0;
  const double overlap = std::min(b, hi) - std::max(a, lo);
  return overlap <= 0 ? 0.0 : std::min(1.0, overlap / (b - a));
}

Status DarshanCounterWindow::ForEachActivity(StoreReader& reader, const DarshanLogInfo& info, const std::string& module,
                                             const std::function<void(const DarshanCounterActivity&)>& fn) {
  const ArrayDesc* a = reader.store().catalogue().Find(DarshanLayout::ArrayName(info.log, module));
  if (a == nullptr) {
    // Say which modules the log does have records of, so the user can ask for one.
    std::vector<std::string> have;
    for (const char* m : {"POSIX", "MPI-IO", "STDIO"}) {
      if (reader.store().catalogue().Find(DarshanLayout::ArrayName(info.log, m)) != nullptr) have.push_back(m);
    }
    return Error(ErrorCode::kNotFound,
                 fmt::format("{}: log {} has no {} records ({}){}", reader.store().name(), info.log, module,
                             have.empty() ? "no POSIX, MPI-IO or STDIO records at all"
                                          : fmt::format("it has {}", fmt::join(have, ", ")),
                             have.empty() ? "" : "; give --module"));
  }
  const Schema& s = a->schema;
  std::array<OpCounters, 2> ops;
  for (int op = 0; op < 2; ++op) {
    auto c = CountersOf(s, module, op == 0);
    if (!c.ok()) return c.error().Within(fmt::format("{}: log {}", reader.store().name(), info.log));
    ops[static_cast<size_t>(op)] = std::move(*c);
  }
  const std::optional<Counter> rank_field = Find(s, "rank"), id_field = Find(s, "id");
  if (!rank_field || !id_field)
    return Error(ErrorCode::kCorrupt, fmt::format("{}: {} has no id or rank field", reader.store().name(), a->name));
  return reader.ForEach(*a, [&](const std::byte* r) -> Status {
    DarshanCounterActivity x;
    x.rank = I64At(r, rank_field->offset);
    x.id = U64At(r, id_field->offset);
    for (size_t op = 0; op < 2; ++op) {
      const OpCounters& c = ops[op];
      double n = 0;
      for (const Counter& k : c.ops) n += k.Read(r);
      if (n <= 0) continue;
      x.op = static_cast<int>(op);
      x.start = c.start->Read(r), x.end = c.end->Read(r);
      x.ops = n, x.bytes = c.bytes->Read(r);
      x.busy = c.time ? c.time->Read(r) : 0, x.seq = c.seq ? c.seq->Read(r) : 0;
      x.consec = c.consec ? c.consec->Read(r) : 0;
      for (size_t b = 0; b < x.size_classes.size(); ++b)
        x.size_classes[b] = c.size_classes[b] ? c.size_classes[b]->Read(r) : 0;
      fn(x);
    }
    return Ok();
  });
}

Result<DarshanWindowStats> DarshanCounterWindow::Compute(StoreReader& reader, const DarshanLogInfo& info,
                                                         const DarshanWindowSpec& spec) {
  std::array<Sums, 2> total;
  std::map<int64_t, std::array<Sums, 2>> ranks;
  std::map<uint64_t, std::array<Sums, 2>> files;
  DarshanWindowStats out;
  out.indexed = false;
  out.estimated = true;
  out.exact = true;
  XTFQ_TRY(ForEachActivity(reader, info, spec.module, [&](const DarshanCounterActivity& x) {
    if (x.rank < spec.p1 || x.rank >= spec.p2 || (spec.files && !spec.files->count(x.id))) return;
    const double share = Share(x.start, x.end, spec.t1, spec.t2);
    if (share > 0 && share < 1) out.exact = false;
    if (share <= 0) return;
    auto add = [&](Sums& y) {
      y.ops += share * x.ops, y.bytes += share * x.bytes, y.busy += share * x.busy;
      y.seq += share * x.seq, y.consec += share * x.consec;
      for (size_t b = 0; b < y.size_classes.size(); ++b) y.size_classes[b] += share * x.size_classes[b];
    };
    const size_t op = static_cast<size_t>(x.op);
    add(total[op]);
    if (spec.per_rank && x.rank >= 0) add(ranks[x.rank][op]);
    if (spec.per_file) add(files[x.id][op]);
  }));
  // What the module's records count at all: the rest is unknown, not 0.
  if (const ArrayDesc* a = reader.store().catalogue().Find(DarshanLayout::ArrayName(info.log, spec.module))) {
    for (size_t op = 0; op < 2; ++op) {
      auto c = CountersOf(a->schema, spec.module, op == 0);
      if (!c.ok()) continue;
      Sums known;
      known.seq_known = c->seq.has_value(), known.consec_known = c->consec.has_value();
      known.size_classes_known = std::all_of(c->size_classes.begin(), c->size_classes.end(),
                                             [](const std::optional<Counter>& k) { return k.has_value(); });
      auto mark = [&](Sums& y) {
        y.seq_known = known.seq_known, y.consec_known = known.consec_known;
        y.size_classes_known = known.size_classes_known;
      };
      mark(total[op]);
      for (auto& [rank, x] : ranks) mark(x[op]);
      for (auto& [id, x] : files) mark(x[op]);
    }
  }
  out.read = total[0].Rounded(), out.write = total[1].Rounded();
  for (const auto& [rank, x] : ranks) out.ranks[rank] = {x[0].Rounded(), x[1].Rounded()};
  for (const auto& [id, x] : files) out.files[id] = {x[0].Rounded(), x[1].Rounded()};
  return out;
}

}  // namespace xtfq
