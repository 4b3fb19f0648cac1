#include "query/darshan/darshan_signals.h"

#include <fmt/format.h>

#include <functional>
#include <unordered_map>

#include "index/process_tree.h"
#include "layouts/darshan_layout.h"
#include "store/endian.h"

namespace xtfq {

namespace {

using Value = DarshanSignals::Value;
using Line = DarshanSignals::Line;

// What a module contributes: the counters that feed the formulas.
struct ModuleSpec {
  std::string_view module;
  std::vector<std::string> reads, writes;  // summed
  std::string bytes_read, bytes_written, read_time, write_time;
  std::vector<std::string> originals;  // the record's original metrics, in order
  bool posix = false;
};

std::vector<ModuleSpec> Specs() {
  auto with = [](std::string p, std::vector<std::string> kinds, std::string op) {
    std::vector<std::string> out;
    for (const auto& k : kinds) out.push_back(p + k + op);
    return out;
  };
  std::vector<ModuleSpec> s;
  ModuleSpec posix{"POSIX",
                   {"POSIX_READS"},
                   {"POSIX_WRITES"},
                   "POSIX_BYTES_READ",
                   "POSIX_BYTES_WRITTEN",
                   "POSIX_F_READ_TIME",
                   "POSIX_F_WRITE_TIME",
                   {},
                   true};
  posix.originals = {"POSIX_BYTES_READ",   "POSIX_BYTES_WRITTEN", "POSIX_READS",      "POSIX_WRITES",
                     "POSIX_F_READ_TIME",  "POSIX_F_WRITE_TIME",  "POSIX_SEQ_READS",  "POSIX_SEQ_WRITES",
                     "POSIX_CONSEC_READS", "POSIX_CONSEC_WRITES", "POSIX_RW_SWITCHES"};
  for (const char* op : {"READ", "WRITE"}) {
    for (int b = 0; b < DarshanLayout::kSizeClasses; ++b) {
      posix.originals.push_back(fmt::format("POSIX_SIZE_{}_{}", op, DarshanLayout::SizeClassName(b)));
    }
  }
  for (const char* n :
       {"POSIX_FILE_NOT_ALIGNED", "POSIX_MEM_NOT_ALIGNED", "POSIX_FILE_ALIGNMENT", "POSIX_MEM_ALIGNMENT", "POSIX_OPENS",
        "POSIX_STATS", "POSIX_SEEKS", "POSIX_FSYNCS", "POSIX_FDSYNCS", "POSIX_F_META_TIME", "POSIX_FASTEST_RANK",
        "POSIX_FASTEST_RANK_BYTES", "POSIX_SLOWEST_RANK", "POSIX_SLOWEST_RANK_BYTES", "POSIX_F_VARIANCE_RANK_BYTES",
        "POSIX_F_VARIANCE_RANK_TIME", "POSIX_MAX_BYTE_READ", "POSIX_MAX_BYTE_WRITTEN"}) {
    posix.originals.emplace_back(n);
  }
  s.push_back(posix);
  ModuleSpec mpiio{"MPI-IO",
                   with("MPIIO_", {"INDEP_", "COLL_", "SPLIT_", "NB_"}, "READS"),
                   with("MPIIO_", {"INDEP_", "COLL_", "SPLIT_", "NB_"}, "WRITES"),
                   "MPIIO_BYTES_READ",
                   "MPIIO_BYTES_WRITTEN",
                   "MPIIO_F_READ_TIME",
                   "MPIIO_F_WRITE_TIME",
                   {},
                   false};
  ModuleSpec h5d{"H5D",
                 {"H5D_READS"},
                 {"H5D_WRITES"},
                 "H5D_BYTES_READ",
                 "H5D_BYTES_WRITTEN",
                 "H5D_F_READ_TIME",
                 "H5D_F_WRITE_TIME",
                 {},
                 false};
  ModuleSpec pnetcdf{"PNETCDF_VAR",
                     with("PNETCDF_VAR_", {"INDEP_", "COLL_", "NB_"}, "READS"),
                     with("PNETCDF_VAR_", {"INDEP_", "COLL_", "NB_"}, "WRITES"),
                     "PNETCDF_VAR_BYTES_READ",
                     "PNETCDF_VAR_BYTES_WRITTEN",
                     "PNETCDF_VAR_F_READ_TIME",
                     "PNETCDF_VAR_F_WRITE_TIME",
                     {},
                     false};
  ModuleSpec stdio{"STDIO",
                   {"STDIO_READS"},
                   {"STDIO_WRITES"},
                   "STDIO_BYTES_READ",
                   "STDIO_BYTES_WRITTEN",
                   "STDIO_F_READ_TIME",
                   "STDIO_F_WRITE_TIME",
                   {},
                   false};
  for (ModuleSpec* m : {&mpiio, &h5d, &pnetcdf, &stdio}) {
    m->originals = m->reads;
    m->originals.insert(m->originals.end(), m->writes.begin(), m->writes.end());
    for (const std::string* n : {&m->bytes_read, &m->bytes_written, &m->read_time, &m->write_time})
      m->originals.push_back(*n);
  }
  // darshan-parser's (slot) order.
  s.push_back(mpiio);
  s.push_back(h5d);
  s.push_back(pnetcdf);
  s.push_back(stdio);
  return s;
}

Value Add(Value a, Value b) { return a && b ? Value(*a + *b) : std::nullopt; }
Value Div(Value a, Value b) { return a && b && *b != 0 ? Value(*a / *b) : std::nullopt; }

// A record's counters by name, NA for -1.
class Counters {
 public:
  Counters(const Schema& schema, std::string array) : schema_(schema), array_(std::move(array)) {}
  Result<size_t> Field(const std::string& name) const {
    auto f = schema_.Find(name);
    if (!f) return Error(ErrorCode::kCorrupt, fmt::format("{}: no counter {}", array_, name));
    return *f;
  }
  Value Get(const std::byte* r, size_t f) const {
    const double v = schema_.GetDouble(r, f);
    return v == -1 ? std::nullopt : Value(v);
  }

 private:
  const Schema& schema_;
  std::string array_;
};

// A module whose array the log has: its spec and the fields of its counters.
struct Prepared {
  const ModuleSpec* spec;
  const ArrayDesc* array;
  std::vector<size_t> reads, writes;
  size_t bytes_read, bytes_written, read_time, write_time;
  std::vector<size_t> originals;
};

// Finds each module's array in the store and the fields of the counters its spec names.
Result<std::vector<Prepared>> PrepareModules(StoreReader& reader, const DarshanLogInfo& info,
                                             const std::vector<ModuleSpec>& specs) {
  std::vector<Prepared> mods;
  for (const ModuleSpec& spec : specs) {
    const ArrayDesc* a = reader.store().catalogue().Find(DarshanLayout::ArrayName(info.log, spec.module));
    if (a == nullptr) continue;
    Prepared p{&spec, a, {}, {}, 0, 0, 0, 0, {}};
    const Counters c(a->schema, a->name);
    for (const auto& n : spec.reads) {
      XTFQ_ASSIGN_OR_RETURN(size_t f, c.Field(n));
      p.reads.push_back(f);
    }
    for (const auto& n : spec.writes) {
      XTFQ_ASSIGN_OR_RETURN(size_t f, c.Field(n));
      p.writes.push_back(f);
    }
    XTFQ_ASSIGN_OR_RETURN(p.bytes_read, c.Field(spec.bytes_read));
    XTFQ_ASSIGN_OR_RETURN(p.bytes_written, c.Field(spec.bytes_written));
    XTFQ_ASSIGN_OR_RETURN(p.read_time, c.Field(spec.read_time));
    XTFQ_ASSIGN_OR_RETURN(p.write_time, c.Field(spec.write_time));
    for (const auto& n : spec.originals) {
      XTFQ_ASSIGN_OR_RETURN(size_t f, c.Field(n));
      p.originals.push_back(f);
    }
    mods.push_back(std::move(p));
  }
  return mods;
}

// The per-record basics every level needs.
struct Basics {
  Value reads = 0.0, writes = 0.0, bytes_read, bytes_written, read_time, write_time;
};

Basics ReadBasics(const Prepared& p, const Counters& c, const std::byte* r) {
  Basics b;
  for (size_t f : p.reads) b.reads = Add(b.reads, c.Get(r, f));
  for (size_t f : p.writes) b.writes = Add(b.writes, c.Get(r, f));
  b.bytes_read = c.Get(r, p.bytes_read), b.bytes_written = c.Get(r, p.bytes_written);
  b.read_time = c.Get(r, p.read_time), b.write_time = c.Get(r, p.write_time);
  return b;
}

// Module sums over records, skipping NA.
struct Totals {
  double reads = 0, writes = 0, bytes_read = 0, bytes_written = 0, read_time = 0, write_time = 0;
  void Add(const Basics& b) {
    for (auto [sum, v] : {std::pair{&reads, b.reads},
                          {&writes, b.writes},
                          {&bytes_read, b.bytes_read},
                          {&bytes_written, b.bytes_written},
                          {&read_time, b.read_time},
                          {&write_time, b.write_time}}) {
      if (v) *sum += *v;
    }
  }
};

// The sums of each module (in the order of the prepared modules) and of the job.
struct Sums {
  std::vector<Totals> modules;
  Totals job;
};

// What the phases of Compute share: the store read, where the lines go, and the rank range.
struct Context {
  StoreReader& reader;
  DarshanSignals::Sink& sink;
  std::optional<std::pair<int64_t, int64_t>> ranks;

  Status Emit(Line::Kind kind, std::string_view module, int64_t rank, uint64_t id, std::string_view group,
              std::string_view name, Value v) const {
    return sink.Emit(Line{kind, std::string(module), rank, id, std::string(group), std::string(name), v});
  }
};

// Visits the records of a module: all of its array, or with a rank range those of its per-rank
// arrays in the range.
Status ForEachRecord(const Context& ctx, const Prepared& p, const std::function<Status(const std::byte*)>& fn) {
  if (!ctx.ranks) return ctx.reader.ForEach(*p.array, fn);
  if (!p.array->process_index) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("{}: {} has no P index (imported with --no-process-index)",
                                                          ctx.reader.store().name(), p.array->name));
  }
  ProcessTree tree(ctx.reader.cache(), ctx.reader.store().catalogue(), *p.array);
  XTFQ_ASSIGN_OR_RETURN(std::vector<const ArrayDesc*> procs,
                        tree.Range(std::max<int64_t>(ctx.ranks->first, 0), ctx.ranks->second));
  for (const ArrayDesc* pa : procs) XTFQ_TRY(ctx.reader.ForEach(*pa, fn));
  return Ok();
}

// Sums the basics of every record, per module and for the job.
Result<Sums> SumRecords(const Context& ctx, const std::vector<Prepared>& mods) {
  Sums sums;
  sums.modules.resize(mods.size());
  for (size_t m = 0; m < mods.size(); ++m) {
    const Counters c(mods[m].array->schema, mods[m].array->name);
    XTFQ_TRY(ForEachRecord(ctx, mods[m], [&](const std::byte* r) {
      const Basics b = ReadBasics(mods[m], c, r);
      sums.modules[m].Add(b);
      sums.job.Add(b);
      return Ok();
    }));
  }
  return sums;
}

Status EmitJob(const Context& ctx, const Totals& job) {
  for (auto [name, v] : {std::pair<const char*, double>{"total_bytes_read", job.bytes_read},
                         {"total_bytes_written", job.bytes_written},
                         {"total_reads", job.reads},
                         {"total_writes", job.writes}}) {
    XTFQ_TRY(ctx.Emit(Line::Kind::kJob, "", 0, 0, "", name, v));
  }
  return Ok();
}

// A module's aggregates, then its performance metrics.
Status EmitModule(const Context& ctx, std::string_view mod, const Totals& t) {
  for (auto [name, v] : {std::pair<const char*, double>{"total_bytes_read", t.bytes_read},
                         {"total_bytes_written", t.bytes_written},
                         {"total_reads", t.reads},
                         {"total_writes", t.writes},
                         {"total_read_time", t.read_time},
                         {"total_write_time", t.write_time}}) {
    XTFQ_TRY(ctx.Emit(Line::Kind::kModuleAgg, mod, 0, 0, "", name, v));
  }
  const Value perf[] = {Div(Value(t.bytes_read / 1048576.0), t.read_time),
                        Div(Value(t.bytes_written / 1048576.0), t.write_time),
                        Div(t.reads, t.read_time),
                        Div(t.writes, t.write_time),
                        Div(t.bytes_read, t.reads),
                        Div(t.bytes_written, t.writes)};
  const char* perf_names[] = {"read_bw", "write_bw", "read_iops", "write_iops", "avg_read_size", "avg_write_size"};
  for (size_t i = 0; i < 6; ++i) XTFQ_TRY(ctx.Emit(Line::Kind::kModulePerf, mod, 0, 0, "", perf_names[i], perf[i]));
  return Ok();
}

using Names = std::unordered_map<uint64_t, std::string>;
using Mounts = std::vector<std::pair<std::string, std::string>>;  // (mount point, file system type)

// The log's mount table: a line per mount, its point and type separated by a tab.
Mounts ParseMounts(const std::string& text) {
  Mounts mounts;
  for (size_t at = 0; at < text.size();) {
    const size_t nl = text.find('\n', at), tab = text.find('\t', at);
    if (nl == std::string::npos || tab == std::string::npos || tab > nl) break;
    mounts.emplace_back(text.substr(at, tab - at), text.substr(tab + 1, nl - tab - 1));
    at = nl + 1;
  }
  return mounts;
}

// A record's header: its file's name and the mount that holds it, where the log names them.
DarshanSignals::Record RecordHeader(std::string_view mod, int64_t rank, uint64_t id, const Names& names,
                                    const Mounts& mounts) {
  DarshanSignals::Record rec{std::string(mod), rank, id, "(null)", "UNKNOWN", "UNKNOWN"};
  if (auto n = names.find(id); n != names.end()) {
    rec.file_name = n->second;
    for (const auto& [path, type] : mounts) {
      if (rec.file_name.compare(0, path.size(), path) == 0) {
        rec.mount_pt = path, rec.fs_type = type;
        break;
      }
    }
  }
  return rec;
}

// One record while its signals are emitted: its module, counters and identity.
struct RecordAt {
  const Context& ctx;
  const Prepared& p;
  const Counters& c;
  const std::byte* r;
  int64_t rank;
  uint64_t id;

  Status Signal(std::string_view group, std::string_view name, Value v) const {
    return ctx.Emit(Line::Kind::kRecordSignal, p.spec->module, rank, id, group, fmt::format("SIGNAL_{}", name), v);
  }
  // A POSIX counter by the name after "POSIX_".
  Value Posix(const char* n) const { return c.Get(r, *p.array->schema.Find(fmt::format("POSIX_{}", n))); }
};

// A POSIX record's sequential and consecutive operations (NA for the other modules).
struct Patterns {
  Value seq_r, seq_w, con_r, con_w;
};

// The POSIX-only signals: access patterns, metadata, alignment, small I/O, reuse and rank imbalance.
Status EmitPosixSignals(const RecordAt& at, const Basics& b, Value ops, const Patterns& pat) {
  XTFQ_TRY(at.Signal("Access Patterns", "SEQ_READ_RATIO", Div(pat.seq_r, b.reads)));
  XTFQ_TRY(at.Signal("Access Patterns", "SEQ_WRITE_RATIO", Div(pat.seq_w, b.writes)));
  XTFQ_TRY(at.Signal("Access Patterns", "CONSEC_READ_RATIO", Div(pat.con_r, b.reads)));
  XTFQ_TRY(at.Signal("Access Patterns", "CONSEC_WRITE_RATIO", Div(pat.con_w, b.writes)));
  Value meta_ops = 0.0;
  for (const char* n : {"OPENS", "STATS", "SEEKS", "FSYNCS", "FDSYNCS"}) meta_ops = Add(meta_ops, at.Posix(n));
  const Value meta_time = at.Posix("F_META_TIME");
  XTFQ_TRY(at.Signal("Metadata", "META_OPS", meta_ops));
  XTFQ_TRY(at.Signal("Metadata", "META_INTENSITY", Div(meta_ops, ops)));
  XTFQ_TRY(at.Signal("Metadata", "META_FRACTION", Div(meta_time, Add(Add(meta_time, b.read_time), b.write_time))));
  const Value unaligned = at.Posix("FILE_NOT_ALIGNED");
  XTFQ_TRY(at.Signal("Alignment", "UNALIGNED_READ_RATIO", Div(unaligned, b.reads)));
  XTFQ_TRY(at.Signal("Alignment", "UNALIGNED_WRITE_RATIO", Div(unaligned, b.writes)));
  const Schema& s = at.p.array->schema;
  for (const char* op : {"READ", "WRITE"}) {
    Value small = 0.0;
    for (int bin = 0; bin < 3; ++bin) {
      small =
          Add(small, at.c.Get(at.r, *s.Find(fmt::format("POSIX_SIZE_{}_{}", op, DarshanLayout::SizeClassName(bin)))));
    }
    XTFQ_TRY(at.Signal("Small I/O", fmt::format("SMALL_{}_RATIO", op),
                       Div(small, std::string_view(op) == "READ" ? b.reads : b.writes)));
  }
  const Value max_byte = at.Posix("MAX_BYTE_READ");
  const Value extent = Add(max_byte, 1.0);
  XTFQ_TRY(at.Signal("Data Reuse (proxy from MAX_BYTE_READ+1)", "REUSE_PROXY",
                     extent && *extent > 1 ? Div(b.bytes_read, extent) : std::nullopt));
  const Value bytes = Add(b.bytes_read, b.bytes_written);
  const bool rlim = at.rank == -1 && bytes && *bytes > 0;
  XTFQ_TRY(at.Signal("Rank Imbalance", "RANK_IMBALANCE_RATIO",
                     rlim ? Div(at.Posix("SLOWEST_RANK_BYTES"), at.Posix("FASTEST_RANK_BYTES")) : std::nullopt));
  return at.Signal("Rank Imbalance", "BW_VARIANCE_PROXY", rlim ? at.Posix("F_VARIANCE_RANK_BYTES") : std::nullopt);
}

// A record's derived signals: performance metrics, the POSIX-only groups, and whether it is shared.
Status EmitRecordSignals(const RecordAt& at) {
  const Basics b = ReadBasics(at.p, at.c, at.r);
  const Value ops = Add(b.reads, b.writes);
  Patterns pat;
  if (at.p.spec->posix) {
    pat.seq_r = at.Posix("SEQ_READS"), pat.seq_w = at.Posix("SEQ_WRITES");
    pat.con_r = at.Posix("CONSEC_READS"), pat.con_w = at.Posix("CONSEC_WRITES");
  }
  const std::string_view kPerf = "Performance Metrics";
  XTFQ_TRY(at.Signal(kPerf, "READ_BW", Div(Div(b.bytes_read, 1048576.0), b.read_time)));
  XTFQ_TRY(at.Signal(kPerf, "WRITE_BW", Div(Div(b.bytes_written, 1048576.0), b.write_time)));
  XTFQ_TRY(at.Signal(kPerf, "READ_IOPS", Div(b.reads, b.read_time)));
  XTFQ_TRY(at.Signal(kPerf, "WRITE_IOPS", Div(b.writes, b.write_time)));
  XTFQ_TRY(at.Signal(kPerf, "AVG_READ_SIZE", Div(b.bytes_read, b.reads)));
  XTFQ_TRY(at.Signal(kPerf, "AVG_WRITE_SIZE", Div(b.bytes_written, b.writes)));
  XTFQ_TRY(at.Signal(kPerf, "SEQ_RATIO", Div(Add(pat.seq_r, pat.seq_w), ops)));
  XTFQ_TRY(at.Signal(kPerf, "CONSEC_RATIO", Div(Add(pat.con_r, pat.con_w), ops)));
  if (at.p.spec->posix) XTFQ_TRY(EmitPosixSignals(at, b, ops, pat));
  return at.Signal("Shared", "IS_SHARED", at.rank == -1 ? 1.0 : 0.0);
}

// Each record of a module: its header, its original metrics, then its signals.
Status EmitRecords(const Context& ctx, const Prepared& p, const Names& names, const Mounts& mounts) {
  const std::string_view mod = p.spec->module;
  const Counters c(p.array->schema, p.array->name);
  const Schema& s = p.array->schema;
  return ForEachRecord(ctx, p, [&](const std::byte* r) -> Status {
    const uint64_t id = LoadLe<uint64_t>(r);
    const int64_t rank = LoadLe<int64_t>(r + 8);
    XTFQ_TRY(ctx.sink.Begin(RecordHeader(mod, rank, id, names, mounts)));
    for (size_t i = 0; i < p.originals.size(); ++i) {
      XTFQ_TRY(ctx.Emit(Line::Kind::kRecordMetric, mod, rank, id, "", s.fields()[p.originals[i]].name,
                        c.Get(r, p.originals[i])));
    }
    return EmitRecordSignals(RecordAt{ctx, p, c, r, rank, id});
  });
}

}  // namespace

std::string DarshanSignals::Format(Value v) {
  if (!v) return "NA";
  std::string s = fmt::format("{}", *v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // "nan" and "inf" contain n
  return s;
}

Status DarshanSignals::Compute(StoreReader& reader, const DarshanLogInfo& info, Sink& sink,
                               std::optional<std::pair<int64_t, int64_t>> ranks) {
  const std::vector<ModuleSpec> specs = Specs();
  XTFQ_ASSIGN_OR_RETURN(const std::vector<Prepared> mods, PrepareModules(reader, info, specs));
  const Context ctx{reader, sink, ranks};
  XTFQ_ASSIGN_OR_RETURN(const Sums sums, SumRecords(ctx, mods));
  XTFQ_TRY(EmitJob(ctx, sums.job));
  // Names and mounts for the record headers.
  XTFQ_ASSIGN_OR_RETURN(const Names names, DarshanLogs::Names(reader, info));
  const Mounts mounts = ParseMounts(info.mounts);
  for (size_t m = 0; m < mods.size(); ++m) {
    XTFQ_TRY(EmitModule(ctx, mods[m].spec->module, sums.modules[m]));
    if (ranks) continue;  // rank ranges: module levels only
    XTFQ_TRY(EmitRecords(ctx, mods[m], names, mounts));
  }
  return Ok();
}

}  // namespace xtfq
