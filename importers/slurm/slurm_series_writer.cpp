#include "importers/slurm/slurm_series_writer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <ctime>
#include <numeric>
#include <set>
#include <tuple>

#include "store/endian.h"

namespace xtfq {

namespace {

using L = SlurmLayout;

std::optional<int64_t> StepId(std::string_view s) {
  if (s == "batch") return L::kBatchStep;
  if (s == "extern") return -4;
  if (s == "interactive") return -6;
  if (s.starts_with('-')) {  // the influxdb plugin sends the batch step as -5
    const auto n = SlurmSeriesWriter::Number(s.substr(1));
    return n ? std::optional<int64_t>(-*n) : std::nullopt;
  }
  return SlurmSeriesWriter::Number(s);
}

uint8_t KindOf(std::string_view kind) {
  if (kind == "Tasks") return L::kTasks;
  if (kind == "Network") return L::kNetwork;
  if (kind == "Filesystem") return L::kFilesystem;
  if (kind == "Energy") return L::kEnergy;
  return L::kOtherKind;
}

// A value of column `c` of row `r` as a u64, i64 or f64, whatever the file's type.
uint64_t AsU64(const SlurmDataset& d, uint64_t r, int c) {
  if (c < 0) return 0;
  const uint64_t b = d.Bits(r, c);
  switch (d.fields[static_cast<size_t>(c)].type) {
    case 'f': {
      const double v = std::bit_cast<double>(b);
      return v >= 0 && v < 1.8e19 ? static_cast<uint64_t>(v) : 0;
    }
    case 'i':
      return static_cast<uint64_t>(std::max<int64_t>(0, static_cast<int64_t>(b)));
    default:
      return b;
  }
}
double AsF64(const SlurmDataset& d, uint64_t r, int c) {
  if (c < 0) return 0;
  const uint64_t b = d.Bits(r, c);
  switch (d.fields[static_cast<size_t>(c)].type) {
    case 'f':
      return std::bit_cast<double>(b);
    case 'i':
      return static_cast<double>(static_cast<int64_t>(b));
    default:
      return static_cast<double>(b);
  }
}

// The flags row r of d has by its place: row 0 (Slurm zeroes its deltas), or a repeat of the row
// before it (the same EpochTime).
uint32_t Place(const SlurmDataset& d, uint64_t r, int epoch) {
  if (r == 0) return L::kRowFirst;
  return AsU64(d, r, epoch) == AsU64(d, r - 1, epoch) ? L::kRowRepeat : 0;
}

// Bytes from a value Slurm divided by 2^shift: exact when it is a whole number, else rounded with
// kRowInexact set in `flags`.
uint64_t Scaled(double v, int shift, uint32_t& flags) {
  const double x = std::ldexp(v, shift);
  if (!(x >= 0) || x >= 1.8e19) {
    flags |= L::kRowInexact;
    return 0;
  }
  const double r = std::nearbyint(x);
  if (r != x) flags |= L::kRowInexact;
  return static_cast<uint64_t>(r);
}

}  // namespace

std::optional<int> SlurmSeriesWriter::ParseVersion(std::string_view v) {
  const size_t dot = v.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto major = Number(v.substr(0, dot)), minor = Number(v.substr(dot + 1));
  if (!major || !minor || *major > 99 || *minor > 99 || v.size() - dot - 1 != 2) return std::nullopt;
  return static_cast<int>(*major * 100 + *minor);
}

SlurmSeriesWriter::SlurmSeriesWriter(RecordSink& sink, RecordSource* existing, std::string_view slurm_version)
    : sink_(sink), next_series_(0), cumulative_fs_(ParseVersion(slurm_version).value_or(2205) < 2511) {
  if (existing == nullptr) return;
  if (const ArrayDesc* a = existing->catalogue().Find(L::kSeries))
    next_series_ = static_cast<uint32_t>(a->record_count());
}

Result<uint64_t> SlurmSeriesWriter::Str(std::string_view s) {
  if (s.empty()) return uint64_t{0};
  auto it = strings_.find(std::string(s));
  if (it != strings_.end()) return it->second;
  XTFQ_ASSIGN_OR_RETURN(StringRef ref, sink_.AddString(s));
  strings_.emplace(std::string(s), ref.Pack());
  return ref.Pack();
}

void SlurmSeriesWriter::Head(std::byte* p, const SlurmDataset& d, uint64_t r, uint32_t series, int epoch, int elapsed,
                             uint32_t flags) {
  StoreLe<int64_t>(p + L::kT, static_cast<int64_t>(AsU64(d, r, epoch)));
  StoreLe<uint32_t>(p + L::kSeriesId, series);
  StoreLe<uint32_t>(p + L::kRow, static_cast<uint32_t>(r));
  StoreLe<int64_t>(p + L::kElapsed, elapsed < 0 ? INT64_MIN : static_cast<int64_t>(AsU64(d, r, elapsed)));
  StoreLe<uint32_t>(p + L::kFlags, flags);
  // The seconds its deltas accrued over: since the row before it (0 for row 0, a repeat, or a
  // time that went back).
  const uint64_t t = AsU64(d, r, epoch), before = r == 0 ? t : AsU64(d, r - 1, epoch);
  StoreLe<uint32_t>(p + L::kInterval,
                    t > before ? static_cast<uint32_t>(std::min<uint64_t>(t - before, UINT32_MAX)) : 0);
}

std::optional<int64_t> SlurmSeriesWriter::Number(std::string_view s) {
  if (s.empty() || s.size() > 18 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoll(std::string(s));
}

Status SlurmSeriesWriter::Add(const std::string& path, uint8_t source, std::string_view what,
                              const std::vector<SlurmDataset>& datasets, ImportReport& report) {
  uint64_t rows = 0, dups = 0;
  std::vector<std::string> dup_of;  // the files the duplicates were first read from
  std::set<int64_t> jobs;
  for (const SlurmDataset& d : datasets) {
    jobs.insert(d.job);
    const std::string& step_text = d.step;
    const std::optional<int64_t> step = StepId(step_text);
    if (!step) {
      return Error(ErrorCode::kInvalidArgument, fmt::format("{}: {}: step '{}' is not a number, batch, extern or "
                                                            "interactive",
                                                            path, d.path, step_text));
    }
    const uint8_t kind = KindOf(d.kind);
    int64_t task = -1;
    if (kind == L::kTasks) {
      const auto t = SlurmSeriesWriter::Number(d.task);
      if (!t) {
        return Error(ErrorCode::kInvalidArgument,
                     fmt::format("{}: {}: a Tasks dataset not named by a task id", path, d.path));
      }
      task = *t;
    }
    const int epoch = d.Column("EpochTime");
    if (epoch < 0 && d.rows > 0)
      return Error(ErrorCode::kInvalidArgument, fmt::format("{}: {}: no EpochTime field", path, d.path));
    const int elapsed = d.Column("ElapsedTime");
    uint16_t flags = 0;
    if (source == L::kMerged && !d.step_nodes) flags |= L::kSerNoStepNodes;
    // A series read before with the same rows (a merged file repeats its node-step files).
    const std::string key = fmt::format("{}/{}/{}/{}/{}", d.job, *step, d.node, d.kind, d.task);
    auto it = seen_.find(key);
    bool duplicate = false;
    if (it != seen_.end()) {
      const SlurmDataset& e = *it->second.second;
      bool same = e.rows == d.rows && e.fields.size() == d.fields.size() && e.values == d.values;
      for (size_t i = 0; same && i < d.fields.size(); ++i) same = e.fields[i].name == d.fields[i].name;
      if (same) {
        duplicate = true;
        flags |= L::kSerDuplicate;
        ++dups;
        if (std::find(dup_of.begin(), dup_of.end(), it->second.first) == dup_of.end())
          dup_of.push_back(it->second.first);
      } else {
        report.warnings.push_back(
            fmt::format("{}: {}: job {} step {} node {} {} {} was read before from {} with other "
                        "rows; both are kept",
                        path, d.path, d.job, step_text, d.node, d.kind, d.task, it->second.first));
      }
    }
    const uint32_t id = next_series_++;
    if (!duplicate) {
      XTFQ_TRY(AddRows(d, d.job, id, kind, flags));
      if (it == seen_.end()) seen_.emplace(key, std::make_pair(path, &d));
    }
    rows += d.rows;
    ++counts_.series;
    counts_.rows += duplicate ? 0 : d.rows;
    if (flags & L::kSerSysfsSwap) ++counts_.swapped;
    if (flags & L::kSerCumulative) ++counts_.cumulative;
    if (flags & L::kSerNoStepNodes) ++counts_.no_step_nodes;
    // The series record.
    std::byte rec[L::kSerWidth] = {};
    StoreLe<int64_t>(rec + L::kSerJob, d.job);
    StoreLe<int64_t>(rec + L::kSerStep, *step);
    StoreLe<int64_t>(rec + L::kSerTask, task);
    const int64_t start = d.rows == 0 ? INT64_MIN
                                      : static_cast<int64_t>(AsU64(d, 0, epoch)) -
                                            (elapsed < 0 ? 0 : static_cast<int64_t>(AsU64(d, 0, elapsed)));
    StoreLe<int64_t>(rec + L::kSerStart, start);
    StoreLe<int32_t>(rec + L::kSerNodeIndex, static_cast<int32_t>(d.node_index.value_or(-1)));
    StoreLe<int32_t>(rec + L::kSerNtasks, static_cast<int32_t>(d.ntasks.value_or(-1)));
    StoreLe<int32_t>(rec + L::kSerCpusPerTask, static_cast<int32_t>(d.cpus_per_task.value_or(-1)));
    StoreLe<uint8_t>(rec + L::kSerKind, kind);
    StoreLe<uint8_t>(rec + L::kSerSource, source);
    StoreLe<uint16_t>(rec + L::kSerFlags, flags);
    StoreLe<uint32_t>(rec + L::kSerRows, static_cast<uint32_t>(d.rows));
    StoreLe<int32_t>(rec + L::kSerStepNodes, static_cast<int32_t>(d.step_nodes.value_or(-1)));
    XTFQ_ASSIGN_OR_RETURN(uint64_t node, Str(d.node));
    XTFQ_ASSIGN_OR_RETURN(uint64_t dpath, Str(d.path));
    XTFQ_ASSIGN_OR_RETURN(uint64_t fname, Str(path));
    XTFQ_ASSIGN_OR_RETURN(uint64_t stext, Str(d.start_time));
    StoreLe<uint64_t>(rec + L::kSerNode, node);
    StoreLe<uint64_t>(rec + L::kSerPath, dpath);
    StoreLe<uint64_t>(rec + L::kSerFile, fname);
    StoreLe<uint64_t>(rec + L::kSerStartText, stext);
    series_records_.insert(series_records_.end(), rec, rec + L::kSerWidth);
  }
  counts_.duplicates += dups;
  std::string note = fmt::format("{}: {} of job{} {}: {} series, {} rows", path, what, jobs.size() == 1 ? "" : "s",
                                 fmt::join(jobs, ", "), datasets.size(), rows);
  if (dups > 0)
    note += fmt::format("; {} of them the same as read from {}: stored once", dups, fmt::join(dup_of, ", "));
  // The node group's "Start Time" is the writer's local time without a zone: against the first
  // sample's start (EpochTime - ElapsedTime, UTC) it gives the writer's UTC offset.
  for (const SlurmDataset& d : datasets) {
    const int epoch = d.Column("EpochTime"), elapsed = d.Column("ElapsedTime");
    if (d.start_time.empty() || d.rows == 0 || epoch < 0 || elapsed < 0) continue;
    std::tm tm{};
    const char* end = strptime(d.start_time.c_str(), "%a %b %d %H:%M:%S %Y", &tm);
    if (end == nullptr || *end != '\0') break;
    const int64_t local = static_cast<int64_t>(timegm(&tm));
    const int64_t start = static_cast<int64_t>(AsU64(d, 0, epoch)) - static_cast<int64_t>(AsU64(d, 0, elapsed));
    const int64_t offset = (local - start) / 60;
    note += fmt::format("; Start Time \"{}\" is UTC{}{:02}:{:02} of the samples' clock", d.start_time,
                        offset < 0 ? "-" : "+", std::abs(offset) / 60, std::abs(offset) % 60);
    break;
  }
  report.notes.push_back(std::move(note));
  return Ok();
}

Status SlurmSeriesWriter::AddRows(const SlurmDataset& d, int64_t job, uint32_t series, uint8_t kind,
                                  uint16_t& series_flags) {
  JobArrays& j = jobs_[job];
  const int epoch = d.Column("EpochTime"), elapsed = d.Column("ElapsedTime");
  // The flags every row of the series gets from its place: row 0, or a repeat of the row before.
  // Counted once per series row (a row's values of other fields in `other` share its flags).
  auto row_flags = [&](uint64_t r) -> uint32_t {
    const uint32_t f = Place(d, r, epoch);
    counts_.first += (f & L::kRowFirst) != 0, counts_.repeats += (f & L::kRowRepeat) != 0;
    return f;
  };
  std::vector<bool> known(d.fields.size(), false);
  auto col = [&](std::string_view name) {
    const int c = d.Column(name);
    if (c >= 0) known[static_cast<size_t>(c)] = true;
    return c;
  };
  col("EpochTime"), col("ElapsedTime");
  if (kind == L::kTasks) {
    Pending& p = j.tasks;
    p.schema = &L::TasksSchema(), p.width = L::kTaWidth;
    const int freq = col("CPUFrequency"), cpu = col("CPUTime"), util = col("CPUUtilization"), rss = col("RSS"),
              vm = col("VMSize"), pages = col("Pages"), rmb = col("ReadMB"), wmb = col("WriteMB"),
              gmem = col("GPUMemMB"), gutil = col("GPUUtilization");
    for (uint64_t r = 0; r < d.rows; ++r) {
      std::byte* q = p.Add();
      uint32_t f = row_flags(r);
      StoreLe<uint64_t>(q + L::kTaCpuFreq, AsU64(d, r, freq));
      StoreLe<double>(q + L::kTaCpuTime, AsF64(d, r, cpu));
      StoreLe<double>(q + L::kTaCpuUtil, AsF64(d, r, util));
      StoreLe<uint64_t>(q + L::kTaRss, AsU64(d, r, rss));
      StoreLe<uint64_t>(q + L::kTaVmSize, AsU64(d, r, vm));
      StoreLe<uint64_t>(q + L::kTaPages, AsU64(d, r, pages));
      // A process exited since the row before (its memory and page faults left the sums): Slurm's
      // delta of CPUTime, ReadMB and WriteMB falls back to the survivors' totals when negative.
      if (r > 0 && !(f & L::kRowRepeat) &&
          (AsU64(d, r, vm) < AsU64(d, r - 1, vm) || AsU64(d, r, pages) < AsU64(d, r - 1, pages))) {
        f |= L::kRowProcExit;
        ++counts_.exits;
      }
      const double rm = AsF64(d, r, rmb), wm = AsF64(d, r, wmb);
      StoreLe<double>(q + L::kTaReadMb, rm);
      StoreLe<double>(q + L::kTaWriteMb, wm);
      StoreLe<uint64_t>(q + L::kTaReadBytes, Scaled(rm, 20, f));
      StoreLe<uint64_t>(q + L::kTaWriteBytes, Scaled(wm, 20, f));
      StoreLe<uint64_t>(q + L::kTaGpuMemMb, AsU64(d, r, gmem));
      StoreLe<double>(q + L::kTaGpuUtil, AsF64(d, r, gutil));
      if (f & L::kRowInexact) ++counts_.inexact;
      Head(q, d, r, series, epoch, elapsed, f);
    }
  } else if (kind == L::kFilesystem) {
    Pending& p = j.fs;
    p.schema = &L::FilesystemSchema(), p.width = L::kFsWidth;
    if (cumulative_fs_) series_flags |= L::kSerCumulative;
    const int reads = col("Reads"), rmb = col("ReadMB"), writes = col("Writes"), wmb = col("WriteMB");
    uint64_t prev[4] = {0, 0, 0, 0};
    for (uint64_t r = 0; r < d.rows; ++r) {
      std::byte* q = p.Add();
      uint32_t f = row_flags(r);
      const double rm = AsF64(d, r, rmb), wm = AsF64(d, r, wmb);
      StoreLe<uint64_t>(q + L::kFsReads, AsU64(d, r, reads));
      StoreLe<double>(q + L::kFsReadMb, rm);
      StoreLe<uint64_t>(q + L::kFsWrites, AsU64(d, r, writes));
      StoreLe<double>(q + L::kFsWriteMb, wm);
      // Running totals: each row's change, from the step's start for row 0; a decrease restarts.
      // From Slurm 25.11 the values are the changes already.
      const uint64_t now[4] = {AsU64(d, r, reads), Scaled(rm, 20, f), AsU64(d, r, writes), Scaled(wm, 20, f)};
      static constexpr uint32_t kAt[4] = {L::kFsDReads, L::kFsDReadBytes, L::kFsDWrites, L::kFsDWriteBytes};
      if (!cumulative_fs_) std::fill(std::begin(prev), std::end(prev), 0);
      bool reset = false;
      for (int k = 0; k < 4; ++k) {
        const bool down = now[k] < prev[k];
        reset = reset || down;
        StoreLe<uint64_t>(q + kAt[k], down ? now[k] : now[k] - prev[k]);
        prev[k] = now[k];
      }
      if (reset) f |= L::kRowReset, ++counts_.resets;
      if (f & L::kRowInexact) ++counts_.inexact;
      Head(q, d, r, series, epoch, elapsed, f);
    }
  } else if (kind == L::kNetwork) {
    Pending& p = j.net;
    p.schema = &L::NetworkSchema(), p.width = L::kNetWidth;
    const int pin = col("PacketsIn"), pout = col("PacketsOut"), imb = col("InMB"), omb = col("OutMB");
    // The sysfs gatherer stores bytes under PacketsIn/Out and packets / 2^16 under InMB/OutMB: a
    // "packet" count above its "bytes" says so (a packet carries at least one byte).
    bool swapped = false;
    for (uint64_t r = 0; r < d.rows && !swapped; ++r) {
      swapped = static_cast<double>(AsU64(d, r, pin)) > std::ldexp(AsF64(d, r, imb), 20) ||
                static_cast<double>(AsU64(d, r, pout)) > std::ldexp(AsF64(d, r, omb), 20);
    }
    if (swapped) series_flags |= L::kSerSysfsSwap;
    for (uint64_t r = 0; r < d.rows; ++r) {
      std::byte* q = p.Add();
      uint32_t f = row_flags(r);
      const uint64_t a = AsU64(d, r, pin), b = AsU64(d, r, pout);
      const double im = AsF64(d, r, imb), om = AsF64(d, r, omb);
      StoreLe<uint64_t>(q + L::kNetPacketsIn, a);
      StoreLe<uint64_t>(q + L::kNetPacketsOut, b);
      StoreLe<double>(q + L::kNetInMb, im);
      StoreLe<double>(q + L::kNetOutMb, om);
      StoreLe<uint64_t>(q + L::kNetInBytes, swapped ? a : Scaled(im, 20, f));
      StoreLe<uint64_t>(q + L::kNetOutBytes, swapped ? b : Scaled(om, 20, f));
      StoreLe<uint64_t>(q + L::kNetInPackets, swapped ? Scaled(im, 16, f) : a);
      StoreLe<uint64_t>(q + L::kNetOutPackets, swapped ? Scaled(om, 16, f) : b);
      if (f & L::kRowInexact) ++counts_.inexact;
      Head(q, d, r, series, epoch, elapsed, f);
    }
  }
  // Every field no schema above has: one record per (row, field).
  Pending& o = j.other;
  o.schema = &L::OtherSchema(), o.width = L::kOtWidth;
  for (size_t c = 0; c < d.fields.size(); ++c) {
    if (known[c]) continue;
    XTFQ_ASSIGN_OR_RETURN(uint64_t name, Str(d.fields[c].name));
    const uint8_t type = d.fields[c].type == 'f' ? L::kF64 : d.fields[c].type == 'i' ? L::kI64 : L::kU64;
    for (uint64_t r = 0; r < d.rows; ++r) {
      std::byte* q = o.Add();
      const uint32_t f = Place(d, r, epoch);
      StoreLe<uint64_t>(q + L::kOtField, name);
      StoreLe<uint8_t>(q + L::kOtType, type);
      StoreLe<uint64_t>(q + L::kOtValue, d.Bits(r, static_cast<int>(c)));
      Head(q, d, r, series, epoch, elapsed, f);
      ++counts_.other_values;
    }
  }
  return Ok();
}

Status SlurmSeriesWriter::Finish(ImportReport& report) {
  // slurm.series first, then each job's arrays in time order.
  std::optional<ArrayId> series = sink_.FindArrayId(L::kSeries);
  if (!series) {
    XTFQ_ASSIGN_OR_RETURN(series, sink_.CreateArray(L::kSeries, L::SeriesSchema()));
  }
  for (size_t i = 0; i < series_records_.size(); i += L::kSerWidth) {
    XTFQ_TRY(sink_.Append(*series, std::span(series_records_).subspan(i, L::kSerWidth)));
  }
  for (auto& [job, arrays] : jobs_) {
    const std::pair<std::string_view, Pending*> parts[] = {
        {"tasks", &arrays.tasks}, {"fs", &arrays.fs}, {"net", &arrays.net}, {"other", &arrays.other}};
    for (const auto& [kind, p] : parts) {
      if (p->count() == 0) continue;
      const std::string name = L::JobArrayName(job, kind);
      if (sink_.FindArrayId(name)) {
        return Error(ErrorCode::kInvalidArgument,
                     fmt::format("job {}: the store already holds its profile ({}); import all of a job's files in "
                                 "one run (a store keeps each array in time order)",
                                 job, name));
      }
      XTFQ_ASSIGN_OR_RETURN(ArrayId id, sink_.CreateArray(name, *p->schema));
      std::vector<uint32_t> order(p->count());
      std::iota(order.begin(), order.end(), 0);
      const std::byte* base = p->bytes.data();
      const uint32_t w = p->width;
      auto key = [&](uint32_t i) {
        const std::byte* r = base + size_t{i} * w;
        return std::tuple(LoadLe<int64_t>(r + L::kT), LoadLe<uint32_t>(r + L::kSeriesId), LoadLe<uint32_t>(r + L::kRow),
                          i);
      };
      std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
      for (uint32_t i : order) XTFQ_TRY(sink_.Append(id, std::span(base + size_t{i} * w, w)));
      report.records += p->count();
    }
  }
  const Counts& c = counts_;
  report.totals = fmt::format(
      "{} Slurm series ({} stored once as duplicates), {} rows; flagged: {} first rows, {} repeated times, {} rows "
      "where a process exited (task CPU and I/O there may be totals, not deltas: a lower bound overall), {} "
      "running-total resets, {} inexact MB values; {} Network series with bytes under PacketsIn/Out (sysfs), {} "
      "Filesystem series of running totals{}, {} series of merged steps without 'Number of Nodes'; {} values of other "
      "fields",
      c.series, c.duplicates, c.rows, c.first, c.repeats, c.exits, c.resets, c.inexact, c.swapped, c.cumulative,
      cumulative_fs_ ? " (as Slurm up to 25.05 writes them; --slurm-version 25.11 for later)"
                     : " (Slurm 25.11 or later)",
      c.no_step_nodes, c.other_values);
  return Ok();
}

}  // namespace xtfq
