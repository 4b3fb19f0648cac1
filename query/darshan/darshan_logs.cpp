#include "query/darshan/darshan_logs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "index/tn_tree.h"
#include "query/darshan/darshan_counter_window.h"
#include "query/darshan/darshan_source_file.h"
#include "store/endian.h"

namespace xtfq {

namespace {
int64_t I(const Schema& s, const std::byte* r, size_t f) {
  return std::visit([](auto v) { return static_cast<int64_t>(v); }, s.Get(r, f));
}
}  // namespace

namespace {

// DarshanLogInfo::data_last of `i`.
Status DataLast(StoreReader& reader, DarshanLogInfo& i) {
  const Catalogue& cat = reader.store().catalogue();
  bool dxt = false;
  for (const char* name : {"DXT_POSIX.read", "DXT_POSIX.write", "DXT_MPIIO.read", "DXT_MPIIO.write"}) {
    const ArrayDesc* d = cat.Find(DarshanLayout::ArrayName(i.log, name));
    if (d == nullptr || d->record_count() == 0 || !d->schema.time_field()) continue;
    std::vector<std::byte> last(d->schema.record_width());
    XTFQ_TRY(TnTree(reader.cache(), *d).Record(d->record_count() - 1, last));
    i.data_last = std::max(i.data_last, d->schema.Time(last.data()));
    dxt = true;
  }
  if (dxt || i.end_sec > i.start_sec) return Ok();
  for (const char* module : {"POSIX", "MPI-IO", "STDIO"}) {
    const std::string m = module;
    const ArrayDesc* h = cat.Find(DarshanLayout::ArrayName(i.log, m == "MPI-IO" ? "HEATMAP.MPIIO" : "HEATMAP." + m));
    if (h != nullptr && h->record_count() > 0 && h->schema == DarshanLayout::HeatmapSchema()) {
      std::vector<std::byte> last(h->schema.record_width());
      XTFQ_TRY(TnTree(reader.cache(), *h).Record(h->record_count() - 1, last));
      const double width = LoadLe<double>(last.data() + DarshanLayout::kHeatOffsetWidth);
      i.data_last = std::max(i.data_last, LoadLe<int64_t>(last.data() + DarshanLayout::kHeatOffsetT) +
                                              static_cast<int64_t>(std::ceil(width * 1e9)));
    }
    const ArrayDesc* c = cat.Find(DarshanLayout::ArrayName(i.log, m));
    if (c == nullptr || c->record_count() == 0) continue;
    XTFQ_TRY(DarshanCounterWindow::ForEachActivity(reader, i, m, [&](const DarshanCounterActivity& a) {
      if (std::isfinite(a.end) && a.end > 0 && a.end < 1e9) {
        i.data_last = std::max(i.data_last, static_cast<int64_t>(std::ceil(a.end * 1e9)));
      }
    }));
  }
  return Ok();
}

}  // namespace

Result<std::vector<DarshanLogInfo>> DarshanLogs::List(StoreReader& reader) {
  std::vector<DarshanLogInfo> out;
  const ArrayDesc* a = reader.store().catalogue().Find(DarshanLayout::kLogs);
  if (a == nullptr) return out;
  const Schema& s = a->schema;
  if (!(s == DarshanLayout::LogSchema())) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: {} does not have the Darshan log schema", reader.store().name(),
                                                  DarshanLayout::kLogs));
  }
  ChainCursor c = reader.Records(*a);
  XTFQ_ASSIGN_OR_RETURN(bool more, c.First());
  for (; more;) {
    const std::byte* r = c.entry();
    DarshanLogInfo i;
    i.log = I(s, r, 0), i.job = I(s, r, 1), i.uid = I(s, r, 2), i.start_sec = I(s, r, 3), i.start_nsec = I(s, r, 4);
    i.end_sec = I(s, r, 5), i.end_nsec = I(s, r, 6), i.nprocs = I(s, r, 7), i.format_minor = I(s, r, 8);
    i.partial = static_cast<uint64_t>(I(s, r, 9));
    i.source = static_cast<DarshanLayout::SourceKind>(I(s, r, 10));
    i.source_bytes = static_cast<uint64_t>(I(s, r, 11));
    std::string* strings[] = {&i.exe, &i.metadata, &i.mounts, &i.file};
    for (size_t k = 0; k < 4; ++k) {
      XTFQ_ASSIGN_OR_RETURN(*strings[k], reader.String(StringRef::Unpack(static_cast<uint64_t>(I(s, r, 12 + k)))));
    }
    out.push_back(std::move(i));
    XTFQ_ASSIGN_OR_RETURN(more, c.Next());
  }
  return out;
}

Result<DarshanLogInfo> DarshanLogs::Find(StoreReader& reader, std::optional<int64_t> log, std::optional<int64_t> job) {
  XTFQ_ASSIGN_OR_RETURN(std::vector<DarshanLogInfo> logs, List(reader));
  // The logs to choose from: a few named, the rest counted (info --brief lists them all).
  constexpr size_t kNamed = 5;
  std::string listed;
  for (size_t k = 0; k < logs.size() && k < kNamed; ++k) {
    const DarshanLogInfo& l = logs[k];
    listed += fmt::format("{}log {} (job {}, {})", listed.empty() ? "" : ", ", l.log, l.job, l.file);
  }
  if (logs.size() > kNamed) {
    listed += fmt::format(" and {} more: xtfq info --brief {} lists them", logs.size() - kNamed, reader.store().name());
  }
  if (logs.empty()) {
    return Error(ErrorCode::kNotFound, fmt::format("{}: the store holds no Darshan log", reader.store().name()));
  }
  std::vector<const DarshanLogInfo*> hits;
  for (const auto& l : logs) {
    if ((!log || l.log == *log) && (!job || l.job == *job)) hits.push_back(&l);
  }
  if (hits.size() == 1) {
    // (only for the log found: a query's time frame needs it, a list of logs does not)
    DarshanLogInfo found = *hits.front();
    XTFQ_TRY(DataLast(reader, found));
    return found;
  }
  if (log && job && hits.empty()) {
    for (const auto& l : logs) {
      if (l.log == *log) {
        return Error(ErrorCode::kUsage, fmt::format("{}: log {} is job {}, not job {}; give one of --log and --job",
                                                    reader.store().name(), *log, l.job, *job));
      }
    }
  }
  const std::string what = log ? fmt::format("log {}", *log) : job ? fmt::format("job {}", *job) : "a log";
  // Several logs and nothing to choose one by is a command line that lacks --log: a usage error.
  return Error(hits.empty() ? ErrorCode::kNotFound : ErrorCode::kUsage,
               fmt::format("{}: {} {}; give --log N (the store has {})", reader.store().name(), what,
                           hits.empty() ? "is not there" : "is ambiguous", listed));
}

Result<std::unordered_map<uint64_t, std::string>> DarshanLogs::Names(StoreReader& reader, const DarshanLogInfo& info) {
  std::unordered_map<uint64_t, std::string> names;
  const ArrayDesc* a = reader.store().catalogue().Find(DarshanLayout::ArrayName(info.log, "names"));
  if (a == nullptr) return names;
  XTFQ_TRY(reader.ForEach(*a, [&](const std::byte* r) -> Status {
    XTFQ_ASSIGN_OR_RETURN(std::string n, reader.String(StringRef::Unpack(LoadLe<uint64_t>(r + 8))));
    names.try_emplace(LoadLe<uint64_t>(r), std::move(n));
    return Ok();
  }));
  return names;
}

double DarshanLogs::RunSeconds(const DarshanLogInfo& info) {
  if (info.format_minor == 41) {
    return (static_cast<double>(info.end_sec) + static_cast<double>(info.end_nsec) / 1e9) -
           (static_cast<double>(info.start_sec) + static_cast<double>(info.start_nsec) / 1e9);
  }
  return static_cast<double>(info.end_sec - info.start_sec + 1);
}

std::vector<std::string> DarshanLogs::WindowModules(StoreReader& reader, const DarshanLogInfo& info) {
  std::vector<std::string> out;
  const Catalogue& cat = reader.catalogue();
  for (const char* m : {"POSIX", "MPI-IO", "STDIO"}) {
    const std::string dxt = m == std::string_view("POSIX")    ? "DXT_POSIX"
                            : m == std::string_view("MPI-IO") ? "DXT_MPIIO"
                                                              : "";
    const std::string heat = m == std::string_view("MPI-IO") ? "HEATMAP.MPIIO" : fmt::format("HEATMAP.{}", m);
    const bool has = cat.Find(DarshanLayout::ArrayName(info.log, m)) != nullptr ||
                     cat.Find(DarshanLayout::ArrayName(info.log, heat)) != nullptr ||
                     (!dxt.empty() && (cat.Find(DarshanLayout::ArrayName(info.log, dxt + ".read")) != nullptr ||
                                       cat.Find(DarshanLayout::ArrayName(info.log, dxt + ".write")) != nullptr));
    if (has) out.push_back(m);
  }
  return out;
}

std::string DarshanLogs::ChooseModule(StoreReader& reader, const DarshanLogInfo& info, const std::string& given,
                                      std::string* note) {
  if (!given.empty()) return given;
  const std::vector<std::string> have = WindowModules(reader, info);
  if (have.empty() || have.front() == "POSIX") return "POSIX";
  if (note != nullptr) {
    *note = fmt::format("module {}: log {} has no POSIX data (it has {}; --module chooses)", have.front(), info.log,
                        fmt::join(have, ", "));
  }
  return have.front();
}

std::vector<std::string> DarshanLogs::PartialModules(const DarshanLogInfo& l) {
  std::vector<std::string> out;
  for (int slot = 0; slot < DarshanLayout::kModuleSlots; ++slot) {
    if ((l.partial >> slot) & 1) {
      const std::string_view n = DarshanLayout::ModuleName(slot);
      out.push_back(n.empty() ? fmt::format("slot {}", slot) : std::string(n));
    }
  }
  return out;
}

std::vector<std::string> DarshanLogs::HeaderDoubts(const DarshanLogInfo& info) {
  std::vector<std::string> out;
  constexpr int64_t kMaxProcesses = int64_t{1} << 24;  // no machine has run an MPI job of more
  if (info.nprocs < 1 || info.nprocs > kMaxProcesses) {
    out.push_back(fmt::format("{} processes ({})", info.nprocs, info.nprocs < 1 ? "none" : "more than 2^24"));
  }
  if (info.end_sec == 0 && info.start_sec > 0) {
    out.push_back("no end time (0: a job killed before it wrote its log leaves none)");
  } else if (info.end_sec < info.start_sec) {
    out.push_back(fmt::format("an end time before its start (run {} s)", info.end_sec - info.start_sec));
  }
  return out;
}

Result<std::unique_ptr<File>> DarshanLogs::Source(StoreReader& reader, const DarshanLogInfo& info) {
  XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* src, reader.Array(DarshanLayout::kSource));
  return std::unique_ptr<File>(
      new DarshanSourceFile(reader, *src, info.log, info.source_bytes,
                            fmt::format("{} (log {}: {})", reader.store().name(), info.log, info.file)));
}

}  // namespace xtfq
