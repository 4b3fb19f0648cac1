#include "gen/slurm_profile_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iterator>
#include <memory>
#include <span>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "importers/slurm/hdf5_handle.h"

namespace xtfq {

namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr int64_t kLastEpoch = 253402300799;  // 9999-12-31T23:59:59Z: Start Time keeps 24 characters
constexpr hsize_t kChunkRows = 10;            // Slurm's HDF5_CHUNK_SIZE
constexpr int kDeflateLevel = 0;              // Slurm's HDF5_COMPRESS
constexpr uint64_t kCheckpointEvery = 10;     // samples between a task's checkpoints
// Series codes for the seeds: a task of step 0 uses its task id, the others these.
constexpr uint64_t kBatchSeries = 1ull << 40, kNetworkSeries = 2ull << 40;

using Handle = Hdf5Handle;

Error Failed(const std::string& file, std::string_view object, std::string_view what) {
  return Hdf5Handle::Failed(ErrorCode::kIo, file, object, what);
}

// splitmix64: the same numbers on every platform (the standard distributions are not).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) { return Next() % n; }  // REQUIRES: n > 0

 private:
  uint64_t s_;
};

// The seed of one series: the same task draws the same values whatever the job's width.
uint64_t SeriesSeed(const SlurmGenOptions& o, uint64_t series) {
  Rng r(o.seed);
  Rng s(r.Next() ^ static_cast<uint64_t>(o.job) * 0xd6e8feb86659fd93ull);
  return s.Next() ^ (series + 1) * 0x9e3779b97f4a7c15ull;
}

// The records, as Slurm's compound types lay them out: 8-byte fields back to back.
struct TaskRow {
  uint64_t elapsed, epoch, cpu_freq;
  double cpu_time, cpu_util;
  uint64_t rss, vmsize, pages;
  double read_mb, write_mb;
};
struct NetRow {
  uint64_t elapsed, epoch, packets_in, packets_out;
  double in_mb, out_mb;
};
struct FsRow {
  uint64_t elapsed, epoch, reads;
  double read_mb;
  uint64_t writes;
  double write_mb;
};
static_assert(sizeof(TaskRow) == 80 && sizeof(NetRow) == 48 && sizeof(FsRow) == 48);

struct Field {
  const char* name;
  size_t offset;
  bool f64;
};
constexpr Field kTaskFields[] = {
    {"ElapsedTime", offsetof(TaskRow, elapsed), false},    {"EpochTime", offsetof(TaskRow, epoch), false},
    {"CPUFrequency", offsetof(TaskRow, cpu_freq), false},  {"CPUTime", offsetof(TaskRow, cpu_time), true},
    {"CPUUtilization", offsetof(TaskRow, cpu_util), true}, {"RSS", offsetof(TaskRow, rss), false},
    {"VMSize", offsetof(TaskRow, vmsize), false},          {"Pages", offsetof(TaskRow, pages), false},
    {"ReadMB", offsetof(TaskRow, read_mb), true},          {"WriteMB", offsetof(TaskRow, write_mb), true}};
constexpr Field kNetFields[] = {{"ElapsedTime", offsetof(NetRow, elapsed), false},
                                {"EpochTime", offsetof(NetRow, epoch), false},
                                {"PacketsIn", offsetof(NetRow, packets_in), false},
                                {"PacketsOut", offsetof(NetRow, packets_out), false},
                                {"InMB", offsetof(NetRow, in_mb), true},
                                {"OutMB", offsetof(NetRow, out_mb), true}};
constexpr Field kFsFields[] = {
    {"ElapsedTime", offsetof(FsRow, elapsed), false}, {"EpochTime", offsetof(FsRow, epoch), false},
    {"Reads", offsetof(FsRow, reads), false},         {"ReadMB", offsetof(FsRow, read_mb), true},
    {"Writes", offsetof(FsRow, writes), false},       {"WriteMB", offsetof(FsRow, write_mb), true}};

// A node's lustre traffic in one sampling interval: what its Filesystem series accumulates.
struct FsDelta {
  uint64_t reads = 0, read_bytes = 0, writes = 0, write_bytes = 0;
};

// What a series' rows add up to, for truth.csv.
struct Totals {
  uint64_t read_bytes = 0, write_bytes = 0, reads = 0, writes = 0;
  uint64_t in_bytes = 0, out_bytes = 0, in_packets = 0, out_packets = 0;
  double cpu_time = 0;
};

// A task's rows: step 0's tasks compute, read their input in the first samples and write a
// checkpoint every kCheckpointEvery samples (lustre requests, added to `lustre`), and write a
// little to stdout; the batch step's task is a shell waiting for srun.
std::vector<TaskRow> DrawTask(const SlurmGenOptions& o, int64_t task, bool batch, std::vector<FsDelta>& lustre,
                              Totals& t) {
  Rng r(SeriesSeed(o, batch ? kBatchSeries : static_cast<uint64_t>(task)));
  const uint64_t samples = o.samples, interval = static_cast<uint64_t>(o.interval);
  const uint64_t start = static_cast<uint64_t>(o.start);
  std::vector<TaskRow> rows(samples + 1);
  const uint64_t rss_full = batch ? 3000 + r.Below(2000) : 204800 + r.Below(1843200);  // KiB
  const uint64_t vm_full = batch ? 12000 + r.Below(2000) : rss_full + rss_full / 2 + 262144;
  const uint64_t busy = 700 + r.Below(251);  // per mille of the interval on a CPU
  const uint64_t read_samples = std::min<uint64_t>(3, samples - 1);
  uint64_t pages = r.Below(8), cpu_cs = 0, freq_weighted = 0, freq = 0;
  for (uint64_t k = 0; k < samples; ++k) {
    TaskRow& w = rows[k];
    w = TaskRow{};
    w.elapsed = 1 + k * interval;  // the first poll, a second after the step started
    w.epoch = start + w.elapsed;
    w.pages = pages;
    if (k == 0) {  // Slurm zeroes the deltas of its first poll; CPUFrequency is 0 with no CPU time yet
      w.rss = batch ? 1500 + r.Below(500) : 20000 + r.Below(10000);
      w.vmsize = batch ? vm_full : 30000 + r.Below(8000);
      continue;
    }
    // CPU seconds in hundredths (as /proc's ticks give them), and the frequency averaged over them.
    uint64_t cs = 0;
    if (batch) {
      cs = r.Below(4) == 0 ? 1 : 0;
    } else {
      const uint64_t pm = std::min<uint64_t>(1000, busy + r.Below(101) - 50);
      cs = pm * interval / 10;
    }
    const uint64_t mhz = 2000 + r.Below(1001);
    cpu_cs += cs, freq_weighted += mhz * cs;
    if (cpu_cs > 0) freq = freq_weighted / cpu_cs;
    w.cpu_freq = freq;
    w.cpu_time = static_cast<double>(cs) / 100.0;
    w.cpu_util = 100.0 * w.cpu_time / static_cast<double>(interval);
    // Levels: RSS climbs to its plateau and wanders below it; VMSize and Pages never fall.
    const uint64_t rss = batch || k >= 3 ? rss_full : rss_full * k / 3;
    w.rss = rss - r.Below(rss / 100 + 1);
    w.vmsize = vm_full;
    if (r.Below(50) == 0) ++pages;
    w.pages = pages;
    // rchar and wchar: lustre requests and the rest (stdout, /proc, pipes).
    uint64_t rb = batch ? (r.Below(3) == 0 ? r.Below(4097) : 0) : r.Below(4097);
    uint64_t wb = batch ? (r.Below(5) == 0 ? 100 + r.Below(400) : 0) : 64 + r.Below(2048);
    if (!batch && k <= read_samples) {
      const uint64_t n = 8 + r.Below(57);  // 1 MiB reads
      rb += n * kMiB;
      lustre[k].reads += n, lustre[k].read_bytes += n * kMiB;
    }
    if (!batch && k % kCheckpointEvery == 0) {
      const uint64_t n = 4 + r.Below(29);  // 4 MiB writes
      wb += n * 4 * kMiB;
      lustre[k].writes += n, lustre[k].write_bytes += n * 4 * kMiB;
    }
    w.read_mb = static_cast<double>(rb) / 1048576.0;
    w.write_mb = static_cast<double>(wb) / 1048576.0;
  }
  // Slurm's final poll as the task ends: the last row again at the same time, holding what ran
  // since (a process's exit: rchar of 6976 bytes, 0.01 s) or nothing; no interval, so no utilization.
  TaskRow& last = rows[samples];
  last = rows[samples - 1];
  const bool tail = r.Below(2) == 1;
  last.cpu_time = tail ? 0.01 : 0.0;
  last.cpu_util = 0;
  last.read_mb = tail ? 6976.0 / 1048576.0 : 0.0;
  last.write_mb = 0;
  for (const TaskRow& w : rows) {  // whole bytes / 2^20, so x 2^20 is exact
    t.read_bytes += static_cast<uint64_t>(w.read_mb * 1048576.0);
    t.write_bytes += static_cast<uint64_t>(w.write_mb * 1048576.0);
    t.cpu_time += w.cpu_time;
  }
  return rows;
}

// A node's Network series as acct_gather_interconnect/sysfs writes it: deltas per poll, bytes
// under PacketsIn/Out, packets / 2^16 under InMB/OutMB, and two polls at ElapsedTime 0 (the first
// all zero).
std::vector<NetRow> DrawNetwork(const SlurmGenOptions& o, uint32_t node, Totals& t) {
  Rng r(SeriesSeed(o, kNetworkSeries + node));
  const uint64_t samples = o.samples, interval = static_cast<uint64_t>(o.interval);
  const uint64_t start = static_cast<uint64_t>(o.start);
  std::vector<NetRow> rows(samples + 1);
  rows[0] = NetRow{0, start, 0, 0, 0, 0};
  for (uint64_t j = 1; j <= samples; ++j) {
    const uint64_t k = j - 1;  // the poll at ElapsedTime k x interval
    const uint64_t scale = k == 0 ? 0 : interval * o.tasks;
    const uint64_t pin = k == 0 ? 5 + r.Below(26) : scale * (200 + r.Below(2000));
    const uint64_t pout = k == 0 ? 5 + r.Below(26) : scale * (200 + r.Below(2000));
    const uint64_t bin = pin * (k == 0 ? 66 + r.Below(40) : 64 + r.Below(8897));
    const uint64_t bout = pout * (k == 0 ? 66 + r.Below(40) : 64 + r.Below(8897));
    rows[j] = NetRow{k * interval,
                     start + k * interval,
                     bin,
                     bout,
                     static_cast<double>(pin) / 65536.0,
                     static_cast<double>(pout) / 65536.0};
    t.in_bytes += bin, t.out_bytes += bout, t.in_packets += pin, t.out_packets += pout;
  }
  return rows;
}

// A node's Filesystem series as acct_gather_filesystem/lustre writes it up to Slurm 25.05:
// running totals from 0, a poll at ElapsedTime 0, I, 2I, ...
std::vector<FsRow> FilesystemRows(const SlurmGenOptions& o, const std::vector<FsDelta>& lustre, Totals& t) {
  const uint64_t interval = static_cast<uint64_t>(o.interval), start = static_cast<uint64_t>(o.start);
  std::vector<FsRow> rows(o.samples);
  FsDelta sum;
  for (uint64_t k = 0; k < o.samples; ++k) {
    sum.reads += lustre[k].reads, sum.read_bytes += lustre[k].read_bytes;
    sum.writes += lustre[k].writes, sum.write_bytes += lustre[k].write_bytes;
    rows[k] = FsRow{k * interval, start + k * interval,
                    sum.reads,    static_cast<double>(sum.read_bytes) / 1048576.0,
                    sum.writes,   static_cast<double>(sum.write_bytes) / 1048576.0};
  }
  t.reads = sum.reads, t.read_bytes = sum.read_bytes, t.writes = sum.writes, t.write_bytes = sum.write_bytes;
  return rows;
}

// A text file written in blocks; Close says whether every byte reached it.
class TextOut {
 public:
  Status Open(const std::string& path) {
    path_ = path;
    file_.reset(std::fopen(path.c_str(), "w"));
    if (!file_) return Error(ErrorCode::kIo, fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
    return Ok();
  }
  bool open() const { return file_ != nullptr; }
  std::string& buffer() { return buf_; }
  Status Flush(bool all = false) {
    if (!file_ || (!all && buf_.size() < (size_t{1} << 20))) return Ok();
    if (std::fwrite(buf_.data(), 1, buf_.size(), file_.get()) != buf_.size())
      return Error(ErrorCode::kIo, fmt::format("{}: cannot write: {}", path_, std::strerror(errno)));
    buf_.clear();
    return Ok();
  }
  Status Close() {
    if (!file_) return Ok();
    XTFQ_TRY(Flush(true));
    if (std::fclose(file_.release()) != 0)
      return Error(ErrorCode::kIo, fmt::format("{}: cannot write: {}", path_, std::strerror(errno)));
    return Ok();
  }

 private:
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::string path_, buf_;
  std::unique_ptr<std::FILE, Closer> file_;
};

// Appends the rows of dataset `dataset` of `file` to truth_rows.csv's text.
template <class Row>
Status RowsText(TextOut& out, std::string_view file, std::string_view dataset, std::span<const Field> fields,
                const std::vector<Row>& rows) {
  if (!out.open()) return Ok();
  for (size_t i = 0; i < rows.size(); ++i) {
    auto it = std::back_inserter(out.buffer());
    fmt::format_to(it, "{},{},{}", file, dataset, i);
    const auto* p = reinterpret_cast<const std::byte*>(&rows[i]);
    for (const Field& f : fields) {
      if (f.f64) {
        double v;
        std::memcpy(&v, p + f.offset, 8);
        fmt::format_to(it, ",{:.17g}", v);
      } else {
        uint64_t v;
        std::memcpy(&v, p + f.offset, 8);
        fmt::format_to(it, ",{}", v);
      }
    }
    out.buffer().push_back('\n');
    XTFQ_TRY(out.Flush());
  }
  return Ok();
}

Status IntAttribute(hid_t obj, const char* name, int32_t value, const std::string& file, std::string_view where) {
  const hsize_t one[1] = {1};
  Handle space(H5Screate_simple(1, one, nullptr), H5Sclose);
  Handle a(space.ok() ? H5Acreate2(obj, name, H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT) : -1, H5Aclose);
  if (!a.ok() || H5Awrite(a.get(), H5T_NATIVE_INT32, &value) < 0)
    return Failed(file, where, fmt::format("cannot write attribute '{}'", name));
  return Ok();
}

// A fixed-length string of strlen(value) characters, NULLTERM, as Slurm's put_string_attribute.
Status StringAttribute(hid_t obj, const char* name, const std::string& value, const std::string& file,
                       std::string_view where) {
  const hsize_t one[1] = {1};
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  Handle space(H5Screate_simple(1, one, nullptr), H5Sclose);
  if (!type.ok() || !space.ok() || H5Tset_size(type.get(), value.size()) < 0 ||
      H5Tset_strpad(type.get(), H5T_STR_NULLTERM) < 0)
    return Failed(file, where, fmt::format("cannot make the type of attribute '{}'", name));
  Handle a(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!a.ok() || H5Awrite(a.get(), type.get(), value.c_str()) < 0)
    return Failed(file, where, fmt::format("cannot write attribute '{}'", name));
  return Ok();
}

// Dataset `name` under `parent` holding `rows`, as H5PTcreate_fl(parent, name, type, 10, 0) and
// H5PTappend leave it: 1-D, unlimited, chunks of 10 records, deflate level 0; written in one call.
template <class Row>
Status WriteDataset(hid_t parent, const char* name, std::span<const Field> fields, const std::vector<Row>& rows,
                    const std::string& file, const std::string& where) {
  Handle ftype(H5Tcreate(H5T_COMPOUND, sizeof(Row)), H5Tclose);
  Handle mtype(H5Tcreate(H5T_COMPOUND, sizeof(Row)), H5Tclose);
  if (!ftype.ok() || !mtype.ok()) return Failed(file, where, "cannot make the record type");
  for (const Field& f : fields) {
    if (H5Tinsert(ftype.get(), f.name, f.offset, f.f64 ? H5T_IEEE_F64LE : H5T_STD_U64LE) < 0 ||
        H5Tinsert(mtype.get(), f.name, f.offset, f.f64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_UINT64) < 0)
      return Failed(file, where, fmt::format("cannot add field '{}' to the record type", f.name));
  }
  const hsize_t dims[1] = {rows.size()}, maxdims[1] = {H5S_UNLIMITED}, chunk[1] = {kChunkRows};
  Handle space(H5Screate_simple(1, dims, maxdims), H5Sclose);
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  if (!space.ok() || !dcpl.ok() || H5Pset_chunk(dcpl.get(), 1, chunk) < 0 ||
      H5Pset_deflate(dcpl.get(), kDeflateLevel) < 0)
    return Failed(file, where, "cannot set up the dataset's storage");
  Handle ds(H5Dcreate2(parent, name, ftype.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) return Failed(file, where, "cannot create the dataset");
  if (!rows.empty() && H5Dwrite(ds.get(), mtype.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()) < 0)
    return Failed(file, where, fmt::format("cannot write its {} rows", rows.size()));
  if (ds.Close() < 0) return Failed(file, where, "cannot close the dataset");
  return Ok();
}

// The node group's attributes, as node_step_start writes them.
struct NodeGroup {
  std::string name;
  int32_t index = 0, ntasks = 0, cpus_per_task = 1;
};

// One line of truth.csv.
void TruthLine(std::string& out, std::string_view file, std::string_view dataset, std::string_view step,
               std::string_view node, std::string_view task, std::string_view kind, size_t rows, int64_t start,
               const Totals& t) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{},{},{},{},{},{},{},{},", file, dataset, step, node, task, kind, rows, start);
  if (kind == "Tasks") {
    fmt::format_to(it, "{},{},{:.17g},,,,,,\n", t.read_bytes, t.write_bytes, t.cpu_time);
  } else if (kind == "Filesystem") {
    fmt::format_to(it, "{},{},,{},{},,,,\n", t.read_bytes, t.write_bytes, t.reads, t.writes);
  } else {
    fmt::format_to(it, ",,,,,{},{},{},{}\n", t.in_bytes, t.out_bytes, t.in_packets, t.out_packets);
  }
}

// Everything one run writes beside the HDF5 files, and what it has written.
struct Run {
  const SlurmGenOptions& o;
  std::string dir, start_text;
  TextOut truth, truth_rows;
  SlurmGenStats stats;
};

// Node-step file <job>_<step>_<node>.h5 with `node`'s group, the tasks drawn for it (the batch
// step's one task, or step 0's tasks of the node, whose lustre traffic goes into `lustre`), and
// the node's Network and Filesystem series.
Status WriteNodeStep(Run& run, std::string_view step, const NodeGroup& node, int64_t first_task,
                     std::vector<FsDelta>& lustre, const std::vector<NetRow>& net, const Totals& net_totals,
                     const std::vector<FsRow>* fs, const Totals* fs_totals) {
  const SlurmGenOptions& o = run.o;
  const std::string name = fmt::format("{}_{}_{}.h5", o.job, step, node.name);
  const std::string path = (std::filesystem::path(run.dir) / name).string();
  const std::string group = "/" + node.name;
  Handle f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) return Failed(path, "/", "cannot create the file");
  {
    Handle g(H5Gcreate2(f.get(), group.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (!g.ok()) return Failed(path, group, "cannot create the node group");
    XTFQ_TRY(IntAttribute(g.get(), "Node Index", node.index, path, group));
    XTFQ_TRY(StringAttribute(g.get(), "Node Name", node.name, path, group));
    XTFQ_TRY(IntAttribute(g.get(), "Number of Tasks", node.ntasks, path, group));
    XTFQ_TRY(IntAttribute(g.get(), "CPUs per Task", node.cpus_per_task, path, group));
    XTFQ_TRY(StringAttribute(g.get(), "Start Time", run.start_text, path, group));
    Handle tasks(H5Gcreate2(g.get(), "Tasks", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (!tasks.ok()) return Failed(path, group + "/Tasks", "cannot create the group");
    for (int64_t task = first_task; task < first_task + node.ntasks; ++task) {
      const std::string id = fmt::format("{}", task), where = fmt::format("{}/Tasks/{}", group, task);
      Totals t;
      const std::vector<TaskRow> rows = DrawTask(o, task, step == "batch", lustre, t);
      XTFQ_TRY(WriteDataset(tasks.get(), id.c_str(), kTaskFields, rows, path, where));
      TruthLine(run.truth.buffer(), name, where, step, node.name, id, "Tasks", rows.size(), o.start, t);
      XTFQ_TRY(RowsText(run.truth_rows, name, where, kTaskFields, rows));
      run.stats.rows += rows.size(), ++run.stats.datasets;
      XTFQ_TRY(run.truth.Flush());
    }
    // Filesystem accumulates the tasks' lustre traffic: step 0's file makes it, the batch step's
    // repeats the node's counters.
    std::vector<FsRow> made;
    Totals made_totals;
    if (fs == nullptr) {
      made = FilesystemRows(o, lustre, made_totals);
      fs = &made, fs_totals = &made_totals;
    }
    XTFQ_TRY(WriteDataset(g.get(), "Network", kNetFields, net, path, group + "/Network"));
    TruthLine(run.truth.buffer(), name, group + "/Network", step, node.name, "", "Network", net.size(), o.start,
              net_totals);
    XTFQ_TRY(RowsText(run.truth_rows, name, group + "/Network", kNetFields, net));
    XTFQ_TRY(WriteDataset(g.get(), "Filesystem", kFsFields, *fs, path, group + "/Filesystem"));
    TruthLine(run.truth.buffer(), name, group + "/Filesystem", step, node.name, "", "Filesystem", fs->size(), o.start,
              *fs_totals);
    XTFQ_TRY(RowsText(run.truth_rows, name, group + "/Filesystem", kFsFields, *fs));
    run.stats.rows += net.size() + fs->size(), run.stats.datasets += 2;
    if (tasks.Close() < 0 || g.Close() < 0) return Failed(path, group, "cannot close the group");
  }
  if (f.Close() < 0) return Failed(path, "/", "cannot write the file");
  ++run.stats.files;
  return Ok();
}

// job_<job>.h5 as `sh5util -S -j <job>` (22.05) merges the node-step files: steps in id order
// (batch first), each node group copied whole with H5Ocopy, and "Number of Nodes" put on a step
// only when the loop moves on to the next one, so the last step has none.
Status WriteMerged(Run& run, const std::vector<std::pair<std::string, std::vector<std::string>>>& steps) {
  const std::string path = (std::filesystem::path(run.dir) / fmt::format("job_{}.h5", run.o.job)).string();
  Handle f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) return Failed(path, "/", "cannot create the file");
  {
    Handle all(H5Gcreate2(f.get(), "/Steps", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (!all.ok()) return Failed(path, "/Steps", "cannot create the group");
    for (size_t s = 0; s < steps.size(); ++s) {
      const auto& [step, nodes] = steps[s];
      const std::string sg = "/Steps/" + step;
      Handle g(H5Gcreate2(f.get(), sg.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
      Handle ng(g.ok() ? H5Gcreate2(g.get(), "Nodes", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1, H5Gclose);
      if (!ng.ok()) return Failed(path, sg + "/Nodes", "cannot create the group");
      for (const std::string& node : nodes) {
        const std::string src =
            (std::filesystem::path(run.dir) / fmt::format("{}_{}_{}.h5", run.o.job, step, node)).string();
        Handle in(H5Fopen(src.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
        if (!in.ok()) return Failed(src, "/", "cannot open the node-step file to merge it");
        if (H5Ocopy(in.get(), ("/" + node).c_str(), ng.get(), node.c_str(), H5P_DEFAULT, H5P_DEFAULT) < 0)
          return Failed(path, sg + "/Nodes/" + node, fmt::format("cannot copy /{} of {}", node, src));
      }
      if (s + 1 < steps.size())
        XTFQ_TRY(IntAttribute(g.get(), "Number of Nodes", static_cast<int32_t>(nodes.size()), path, sg));
    }
    XTFQ_TRY(IntAttribute(f.get(), "Number of Steps", static_cast<int32_t>(steps.size()), path, "/"));
  }
  if (f.Close() < 0) return Failed(path, "/", "cannot write the file");
  std::error_code ec;
  run.stats.bytes += std::filesystem::file_size(path, ec);
  ++run.stats.files;
  return Ok();
}

Status CheckOptions(const SlurmGenOptions& o) {
  auto usage = [](std::string m) { return Error(ErrorCode::kUsage, std::move(m)); };
  if (o.job < 1 || o.job > (int64_t{1} << 62)) return usage(fmt::format("--job {}: not a job id", o.job));
  if (o.nodes < 1 || o.nodes > (1u << 20)) return usage(fmt::format("--nodes {}: give 1 to 1048576", o.nodes));
  if (o.tasks < 1 || uint64_t{o.nodes} * o.tasks > (uint64_t{1} << 24))
    return usage(fmt::format("--tasks {}: give 1 or more, at most 2^24 tasks in all", o.tasks));
  if (o.samples < 1 || o.samples > (1u << 24)) return usage(fmt::format("--samples {}: give 1 to 2^24", o.samples));
  if (o.interval < 1 || o.interval > 86400) return usage(fmt::format("--interval {}: give 1 to 86400 s", o.interval));
  const int64_t last = o.start + 1 + static_cast<int64_t>(o.samples) * o.interval;
  if (o.start < 1 || last > kLastEpoch) {
    return usage(fmt::format("--start {}: the samples must lie between 1 and {} (epoch seconds); the last would be {}",
                             o.start, kLastEpoch, last));
  }
  return Ok();
}

}  // namespace

Result<SlurmGenStats> SlurmProfileWriter::Write(const SlurmGenOptions& o, const std::string& dir) {
  XTFQ_TRY(CheckOptions(o));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error(ErrorCode::kIo, fmt::format("{}: cannot create: {}", dir, ec.message()));
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become values, not prints
  Run run{o, dir, {}, {}, {}, {}};
  // Start Time: slurm_ctime2 of the step's start, the writer's local time (UTC here).
  const std::time_t tt = static_cast<std::time_t>(o.start);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char text[64];
  run.start_text.assign(text, std::strftime(text, sizeof text, "%a %b %e %H:%M:%S %Y", &tm));
  const std::filesystem::path d(dir);
  XTFQ_TRY(run.truth.Open((d / "truth.csv").string()));
  run.truth.buffer() =
      "file,dataset,step,node,task,kind,rows,start,read_bytes,write_bytes,cpu_time,reads,writes,in_bytes,out_bytes,"
      "in_packets,out_packets\n";
  if (o.truth_rows) {
    XTFQ_TRY(run.truth_rows.Open((d / "truth_rows.csv").string()));
    run.truth_rows.buffer() = "file,dataset,row,values\n";
  }
  std::vector<std::string> nodes;
  for (uint32_t n = 0; n < o.nodes; ++n) {
    const NodeGroup node{fmt::format("n{}", n + 1), static_cast<int32_t>(n), static_cast<int32_t>(o.tasks), 1};
    nodes.push_back(node.name);
    std::vector<FsDelta> lustre(o.samples);
    Totals net_totals;
    const std::vector<NetRow> net = DrawNetwork(o, n, net_totals);
    XTFQ_TRY(WriteNodeStep(run, "0", node, int64_t{n} * o.tasks, lustre, net, net_totals, nullptr, nullptr));
    if (n == 0) {
      // The batch script runs on the first node as task 0, with the CPUs of the job there; the
      // node's Network and Filesystem counters are the ones step 0 sampled.
      Totals fs_totals;
      const std::vector<FsRow> fs = FilesystemRows(o, lustre, fs_totals);
      std::vector<FsDelta> none(o.samples);
      const NodeGroup batch{node.name, 0, 1, static_cast<int32_t>(o.tasks)};
      XTFQ_TRY(WriteNodeStep(run, "batch", batch, 0, none, net, net_totals, &fs, &fs_totals));
    }
  }
  for (const std::string& n : nodes) {
    run.stats.bytes += std::filesystem::file_size(d / fmt::format("{}_0_{}.h5", o.job, n), ec);
  }
  run.stats.bytes += std::filesystem::file_size(d / fmt::format("{}_batch_n1.h5", o.job), ec);
  if (o.merged) XTFQ_TRY(WriteMerged(run, {{"batch", {nodes.front()}}, {"0", nodes}}));
  XTFQ_TRY(run.truth.Close());
  XTFQ_TRY(run.truth_rows.Close());
  return run.stats;
}

}  // namespace xtfq
