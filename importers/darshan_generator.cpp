#include "importers/darshan_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "importers/darshan_log_writer.h"
#include "importers/darshan_module_tables.h"
#include "store/darshan_layout.h"
#include "store/endian.h"

namespace xtfq {

namespace {

constexpr int kPosix = 1, kMpiio = 2, kStdio = 9, kDxtPosix = 10, kDxtMpiio = 11;
constexpr int64_t kMiB = 1 << 20;
constexpr int64_t kAlignment = kMiB;  // the Lustre stripe size the files report

uint64_t SplitMix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
double Uniform(uint64_t& s) { return static_cast<double>(SplitMix(s) >> 11) * 0x1.0p-53; }

struct Op {
  bool write;
  int64_t offset, length;
  double start, end;
  bool opens;  // the first operation after an open
};

// What the runtime counts for one file and rank (or, reduced, for all ranks).
struct Stats {
  int64_t opens = 0, stats = 0, reads = 0, writes = 0, bytes_r = 0, bytes_w = 0, max_byte_r = 0, max_byte_w = 0;
  int64_t consec_r = 0, consec_w = 0, seq_r = 0, seq_w = 0, rw_switches = 0, not_aligned = 0;
  int64_t max_read_size = 0, max_write_size = 0;
  int64_t bins_r[10] = {}, bins_w[10] = {};
  std::map<int64_t, int64_t> access;
  double open_start = 0, read_start = 0, write_start = 0, close_start = 0, open_end = 0, read_end = 0, write_end = 0,
         close_end = 0, read_time = 0, write_time = 0, meta_time = 0, max_read_time = 0, max_write_time = 0;
  int64_t fastest_rank = 0, fastest_bytes = 0, slowest_rank = 0, slowest_bytes = 0;
  double fastest_time = 0, slowest_time = 0, var_time = 0, var_bytes = 0;
  double Time() const { return read_time + write_time + meta_time; }
};

Stats Count(const std::vector<Op>& ops) {
  Stats s;
  int64_t last_r = 0, last_w = 0;
  int last_io = 0;  // 1 read, 2 write
  for (const Op& o : ops) {
    const double d = o.end - o.start;
    if (o.opens) {
      ++s.opens, ++s.stats;
      const double open_at = o.start - 2e-4;
      if (s.open_start == 0) s.open_start = open_at, s.open_end = open_at + 1.5e-4;
      s.meta_time += 3e-4;
    }
    if (o.offset % kAlignment != 0) ++s.not_aligned;
    ++s.access[o.length];
    if (o.write) {
      if (o.offset > last_w) ++s.seq_w;
      if (o.offset == last_w + 1) ++s.consec_w;
      last_w = o.offset + o.length - 1;
      s.max_byte_w = std::max(s.max_byte_w, last_w);
      s.bytes_w += o.length, ++s.writes, ++s.bins_w[DarshanLayout::SizeBin(o.length)];
      if (last_io == 1) ++s.rw_switches;
      last_io = 2;
      s.write_time += d;
      if (s.write_start == 0) s.write_start = o.start;
      s.write_end = o.end;
      if (d > s.max_write_time) s.max_write_time = d, s.max_write_size = o.length;
    } else {
      if (o.offset > last_r) ++s.seq_r;
      if (o.offset == last_r + 1) ++s.consec_r;
      last_r = o.offset + o.length - 1;
      s.max_byte_r = std::max(s.max_byte_r, last_r);
      s.bytes_r += o.length, ++s.reads, ++s.bins_r[DarshanLayout::SizeBin(o.length)];
      if (last_io == 2) ++s.rw_switches;
      last_io = 1;
      s.read_time += d;
      if (s.read_start == 0) s.read_start = o.start;
      s.read_end = o.end;
      if (d > s.max_read_time) s.max_read_time = d, s.max_read_size = o.length;
    }
  }
  if (!ops.empty()) s.close_start = ops.back().end + 1e-5, s.close_end = s.close_start + 1e-4;
  return s;
}

// Darshan's reduction of the records of a file every rank opened (darshan-posix.c,
// posix_record_reduction_op, and the shared-record pass of darshan-core).
Stats Reduce(const std::vector<Stats>& ranks) {
  Stats r;
  auto min_nz = [](double a, double b) { return a == 0 ? b : b == 0 ? a : std::min(a, b); };
  double t_sum = 0, t_sq = 0, b_sum = 0, b_sq = 0;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const Stats& s = ranks[i];
    for (int64_t* f : {&r.opens, &r.stats, &r.reads, &r.writes, &r.bytes_r, &r.bytes_w, &r.consec_r, &r.consec_w, &r.seq_r,
                       &r.seq_w, &r.rw_switches, &r.not_aligned}) {
      *f += *(reinterpret_cast<const int64_t*>(&s) + (f - reinterpret_cast<int64_t*>(&r)));
    }
    r.max_byte_r = std::max(r.max_byte_r, s.max_byte_r), r.max_byte_w = std::max(r.max_byte_w, s.max_byte_w);
    for (int b = 0; b < 10; ++b) r.bins_r[b] += s.bins_r[b], r.bins_w[b] += s.bins_w[b];
    for (const auto& [size, n] : s.access) r.access[size] += n;
    r.open_start = min_nz(r.open_start, s.open_start), r.read_start = min_nz(r.read_start, s.read_start);
    r.write_start = min_nz(r.write_start, s.write_start), r.close_start = min_nz(r.close_start, s.close_start);
    r.open_end = std::max(r.open_end, s.open_end), r.read_end = std::max(r.read_end, s.read_end);
    r.write_end = std::max(r.write_end, s.write_end), r.close_end = std::max(r.close_end, s.close_end);
    r.read_time += s.read_time, r.write_time += s.write_time, r.meta_time += s.meta_time;
    if (s.max_read_time > r.max_read_time) r.max_read_time = s.max_read_time, r.max_read_size = s.max_read_size;
    if (s.max_write_time > r.max_write_time) r.max_write_time = s.max_write_time, r.max_write_size = s.max_write_size;
    const double t = s.Time();
    const int64_t bytes = s.bytes_r + s.bytes_w;
    if (i == 0 || t < r.fastest_time) r.fastest_time = t, r.fastest_rank = static_cast<int64_t>(i), r.fastest_bytes = bytes;
    if (i == 0 || t > r.slowest_time) r.slowest_time = t, r.slowest_rank = static_cast<int64_t>(i), r.slowest_bytes = bytes;
    t_sum += t, t_sq += t * t, b_sum += static_cast<double>(bytes), b_sq += static_cast<double>(bytes) * static_cast<double>(bytes);
  }
  const double n = static_cast<double>(ranks.size());
  r.var_time = std::max(0.0, t_sq / n - (t_sum / n) * (t_sum / n));
  r.var_bytes = std::max(0.0, b_sq / n - (b_sum / n) * (b_sum / n));
  return r;
}

// A record of module `module` (counter names as darshan-parser prints them, `prefix` included)
// in the module's current layout: base record, int counters, float counters.
std::vector<std::byte> Encode(std::string_view module, std::string_view prefix, uint64_t id, int64_t rank, const Stats& s) {
  const DarshanModuleTables::Counters* names = nullptr;
  for (const auto& c : DarshanModuleTables::CounterNames()) {
    if (c.module == module) names = &c;
  }
  std::vector<std::pair<int64_t, int64_t>> top(s.access.begin(), s.access.end());  // size, count
  std::sort(top.begin(), top.end(), [](auto a, auto b) { return a.second != b.second ? a.second > b.second : a.first > b.first; });
  top.resize(std::min<size_t>(top.size(), 4));
  std::vector<std::byte> out(16);
  StoreLe<uint64_t>(out.data(), id);
  StoreLe<int64_t>(out.data() + 8, rank);
  auto put = [&](auto v) {
    const size_t at = out.size();
    out.resize(at + 8);
    StoreLe(out.data() + at, v);
  };
  static constexpr std::string_view kBins[] = {"0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M",
                                               "1M_4M", "4M_10M", "10M_100M", "100M_1G", "1G_PLUS"};
  for (std::string_view full : names->names) {
    const std::string_view n = full.substr(prefix.size());
    if (n.find("F_") == 0) {
      const std::map<std::string_view, double> f = {
          {"F_OPEN_START_TIMESTAMP", s.open_start}, {"F_READ_START_TIMESTAMP", s.read_start},
          {"F_WRITE_START_TIMESTAMP", s.write_start}, {"F_CLOSE_START_TIMESTAMP", s.close_start},
          {"F_OPEN_END_TIMESTAMP", s.open_end}, {"F_READ_END_TIMESTAMP", s.read_end},
          {"F_WRITE_END_TIMESTAMP", s.write_end}, {"F_CLOSE_END_TIMESTAMP", s.close_end},
          {"F_READ_TIME", s.read_time}, {"F_WRITE_TIME", s.write_time}, {"F_META_TIME", s.meta_time},
          {"F_MAX_READ_TIME", s.max_read_time}, {"F_MAX_WRITE_TIME", s.max_write_time},
          {"F_FASTEST_RANK_TIME", s.fastest_time}, {"F_SLOWEST_RANK_TIME", s.slowest_time},
          {"F_VARIANCE_RANK_TIME", s.var_time}, {"F_VARIANCE_RANK_BYTES", s.var_bytes}};
      auto it = f.find(n);
      put(it == f.end() ? 0.0 : it->second);
      continue;
    }
    int64_t v = 0;
    if (n == "OPENS" || n == "COLL_OPENS") v = s.opens;
    else if (n == "STATS") v = s.stats;
    else if (n == "READS" || n == "COLL_READS") v = s.reads;
    else if (n == "WRITES" || n == "COLL_WRITES") v = s.writes;
    else if (n == "BYTES_READ") v = s.bytes_r;
    else if (n == "BYTES_WRITTEN") v = s.bytes_w;
    else if (n == "MAX_BYTE_READ") v = s.max_byte_r;
    else if (n == "MAX_BYTE_WRITTEN") v = s.max_byte_w;
    else if (n == "CONSEC_READS") v = s.consec_r;
    else if (n == "CONSEC_WRITES") v = s.consec_w;
    else if (n == "SEQ_READS") v = s.seq_r;
    else if (n == "SEQ_WRITES") v = s.seq_w;
    else if (n == "RW_SWITCHES") v = s.rw_switches;
    else if (n == "MODE") v = 420;
    else if (n == "MMAPS") v = -1;
    else if (n == "MEM_ALIGNMENT") v = 8;
    else if (n == "FILE_ALIGNMENT") v = kAlignment;
    else if (n == "FILE_NOT_ALIGNED") v = s.not_aligned;
    else if (n == "MAX_READ_TIME_SIZE") v = s.max_read_size;
    else if (n == "MAX_WRITE_TIME_SIZE") v = s.max_write_size;
    else if (n == "FASTEST_RANK") v = s.fastest_rank;
    else if (n == "FASTEST_RANK_BYTES") v = s.fastest_bytes;
    else if (n == "SLOWEST_RANK") v = s.slowest_rank;
    else if (n == "SLOWEST_RANK_BYTES") v = s.slowest_bytes;
    else if (n.size() == 14 && n.starts_with("ACCESS") && n.ends_with("_ACCESS")) {
      const size_t k = static_cast<size_t>(n[6] - '1');
      v = k < top.size() ? top[k].first : 0;
    } else if (n.size() == 13 && n.starts_with("ACCESS") && n.ends_with("_COUNT")) {
      const size_t k = static_cast<size_t>(n[6] - '1');
      v = k < top.size() ? top[k].second : 0;
    } else {
      for (int b = 0; b < 10; ++b) {
        if (n == fmt::format("SIZE_READ_{}", kBins[b]) || n == fmt::format("SIZE_READ_AGG_{}", kBins[b])) v = s.bins_r[b];
        if (n == fmt::format("SIZE_WRITE_{}", kBins[b]) || n == fmt::format("SIZE_WRITE_AGG_{}", kBins[b])) v = s.bins_w[b];
      }
    }
    put(v);
  }
  return out;
}

class Run {
 public:
  explicit Run(const DarshanGenOptions& o) : o_(o) {
    const double n = static_cast<double>(o.segments), r = static_cast<double>(o.ranks);
    in_ = std::max<int64_t>(1, std::llround(0.10 * n / r));
    ck_ = std::max<int64_t>(1, std::llround(0.20 * n / (r * static_cast<double>(o.checkpoints))));
    rb_ = std::max<int64_t>(1, std::llround(0.10 * n / r));
    small_files_ = std::max<int64_t>(0, o.files - 1 - o.checkpoints);
    small_ = std::llround(0.20 * n / r);
  }
  int64_t shared_files() const { return 1 + o_.checkpoints; }
  int64_t small_files() const { return small_files_; }
  std::string Name(int64_t f) const {
    if (f == 0) return "/lustre/proj/climate/run042/input/forcing.nc";
    if (f <= o_.checkpoints) return fmt::format("/lustre/proj/climate/run042/ckpt/restart_{:04}.h5", f - 1);
    const int64_t j = f - shared_files();
    return fmt::format("/lustre/proj/climate/run042/diag/rank{:05}/diag_{:03}.log", j % o_.ranks, j / o_.ranks);
  }
  int64_t Owner(int64_t f) const { return (f - shared_files()) % o_.ranks; }
  // Small files of rank r.
  int64_t FilesOf(int64_t r) const { return small_files_ / o_.ranks + (r < small_files_ % o_.ranks ? 1 : 0); }
  bool Straggler(int64_t r) const { return r % 97 == 13; }

  // The operations of rank r on file f, in time order.
  void Ops(int64_t f, int64_t r, std::vector<Op>& ops) const {
    ops.clear();
    uint64_t s = o_.seed * 0x9E3779B97F4A7C15ULL ^ (static_cast<uint64_t>(f) << 32) ^ static_cast<uint64_t>(r);
    const double D = o_.duration;
    // n operations of `size` bytes from `offset` on, in [t0, t0 + len): one open, then back to back.
    auto phase = [&](bool write, int64_t n, int64_t size, int64_t offset, double t0, double len, double slow) {
      const double slot = len / static_cast<double>(n);
      double t = t0 + 0.05 * slot * Uniform(s);
      for (int64_t i = 0; i < n; ++i) {
        const double d = std::min(0.9 * slot, slow * static_cast<double>(size) / (1.2e9 * (0.6 + 0.8 * Uniform(s))));
        ops.push_back({write, offset + i * size, size, t, t + d, i == 0});
        t += slot;
      }
    };
    if (f == 0) {
      phase(false, in_, kMiB, r * in_ * kMiB, 0.01 * D, 0.08 * D, 1);
    } else if (f <= o_.checkpoints) {
      const int64_t c = f - 1;
      const double gap = 0.75 * D / static_cast<double>(o_.checkpoints + 1);
      const double len = Straggler(r) ? std::min(8 * 0.3 * gap, 0.9 * gap) : 0.3 * gap;
      phase(true, ck_, 4 * kMiB, r * ck_ * 4 * kMiB, 0.1 * D + static_cast<double>(c + 1) * gap, len, Straggler(r) ? 8 : 1);
      if (c == o_.checkpoints - 1) {  // read back at the end, 1 MiB at a time
        const int64_t block = ck_ * 4, n = rb_;
        const size_t before = ops.size();
        phase(false, n, kMiB, r * block * kMiB, 0.9 * D, 0.09 * D, 1);
        for (size_t i = before; i < ops.size(); ++i) ops[i].offset = r * block * kMiB + static_cast<int64_t>((i - before) % static_cast<size_t>(block)) * kMiB;
      }
    } else {
      // Diagnostics: bursts of 16 small appends, one open each, over the run; now and then the
      // header at offset 0 is rewritten.
      const int64_t n = std::max<int64_t>(1, small_ / std::max<int64_t>(1, FilesOf(r)));
      const int64_t bursts = (n + 15) / 16;
      int64_t end = 0, done = 0;
      for (int64_t b = 0; b < bursts; ++b) {
        double t = 0.1 * D + 0.8 * D * (static_cast<double>(b) + 0.5 * Uniform(s)) / static_cast<double>(bursts);
        for (int64_t i = 0; i < 16 && done < n; ++i, ++done) {
          const int64_t size = 64 + static_cast<int64_t>(Uniform(s) * 4032);
          const bool header = i == 15 && Uniform(s) < 0.5;
          const double d = 2e-6 + 5e-5 * Uniform(s);
          ops.push_back({true, header ? 0 : end, size, t, t + d, i == 0});
          if (!header) end += size;
          t += d + 1e-4 * Uniform(s);
        }
      }
    }
  }

 private:
  DarshanGenOptions o_;
  int64_t in_, ck_, rb_, small_files_, small_;
};

std::vector<std::byte> DxtHeader(uint64_t id, int64_t rank, int64_t writes, int64_t reads) {
  std::vector<std::byte> h(104);
  StoreLe<uint64_t>(h.data(), id);
  StoreLe<int64_t>(h.data() + 8, rank);
  const std::string host = fmt::format("nid{:05}", rank / 64);
  std::memcpy(h.data() + 24, host.data(), host.size());
  StoreLe<int64_t>(h.data() + 88, writes);
  StoreLe<int64_t>(h.data() + 96, reads);
  return h;
}

}  // namespace

Result<DarshanGenStats> DarshanGenerator::Write(const std::string& path, const DarshanGenOptions& o) {
  if (o.ranks < 1 || o.checkpoints < 1 || o.files < 1 + o.checkpoints || !(o.duration > 0) || o.segments < 1) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("gen darshan: need ranks >= 1, checkpoints >= 1, files >= checkpoints + 1 ({}), duration > 0, segments >= 1",
                             o.checkpoints + 1));
  }
  const Run run(o);
  DarshanGenStats st;
  XTFQ_ASSIGN_OR_RETURN(auto w, DarshanLogWriter::Create(path));
  DarshanJob job;
  job.job = 4242000 + static_cast<int64_t>(o.seed % 1000);
  job.uid = 21045;
  job.start_sec = 1795300000;
  job.start_nsec = 125000000;
  job.end_sec = job.start_sec + static_cast<int64_t>(o.duration);
  job.end_nsec = 875000000;
  job.nprocs = o.ranks;
  job.metadata = "lib_ver=3.5.0\nh=romio_cb_write=enable;cb_nodes=16\n";
  job.exe = "/lustre/proj/climate/bin/esm_driver -i input/forcing.nc --restart-every 450";
  job.mounts = {{"/lustre", "lustre"}, {"/", "ext4"}};
  XTFQ_TRY(w->WriteJob(job));
  const int64_t files = run.shared_files() + run.small_files();
  std::vector<std::pair<uint64_t, std::string>> names;
  for (int64_t f = 0; f < files; ++f) names.emplace_back(DarshanLogWriter::Hash(run.Name(f)), run.Name(f));
  names.emplace_back(DarshanLogWriter::Hash("<STDOUT>"), "<STDOUT>");
  st.names = names.size();
  XTFQ_TRY(w->WriteNames(names));
  std::vector<Op> ops;
  // POSIX: the shared records (rank -1), then each rank's diagnostics.
  XTFQ_TRY(w->BeginModule(kPosix, 4));
  std::vector<Stats> per_rank(static_cast<size_t>(o.ranks));
  for (int64_t f = 0; f < run.shared_files(); ++f) {
    for (int64_t r = 0; r < o.ranks; ++r) {
      run.Ops(f, r, ops);
      per_rank[static_cast<size_t>(r)] = Count(ops);
    }
    XTFQ_TRY(w->Write(Encode("POSIX", "POSIX_", names[static_cast<size_t>(f)].first, -1, Reduce(per_rank))));
    ++st.records;
  }
  for (int64_t f = run.shared_files(); f < files; ++f) {
    run.Ops(f, run.Owner(f), ops);
    XTFQ_TRY(w->Write(Encode("POSIX", "POSIX_", names[static_cast<size_t>(f)].first, run.Owner(f), Count(ops))));
    ++st.records;
  }
  XTFQ_TRY(w->EndModule());
  // MPI-IO: the shared files, collective, reduced.
  XTFQ_TRY(w->BeginModule(kMpiio, 3));
  for (int64_t f = 0; f < run.shared_files(); ++f) {
    for (int64_t r = 0; r < o.ranks; ++r) {
      run.Ops(f, r, ops);
      for (Op& op : ops) op.start -= 1e-5, op.end += 1e-5;
      per_rank[static_cast<size_t>(r)] = Count(ops);
    }
    XTFQ_TRY(w->Write(Encode("MPI-IO", "MPIIO_", names[static_cast<size_t>(f)].first, -1, Reduce(per_rank))));
    ++st.records;
  }
  XTFQ_TRY(w->EndModule());
  // STDIO: every rank writes progress lines to stdout.
  XTFQ_TRY(w->BeginModule(kStdio, 2));
  for (int64_t r = 0; r < o.ranks; ++r) {
    ops.clear();
    for (int i = 0; i < 8; ++i) {
      const double t = o.duration * (0.05 + 0.1 * i) + 1e-3 * static_cast<double>(r % 64);
      ops.push_back({true, 80 * i, 80, t, t + 4e-6, false});
    }
    per_rank[static_cast<size_t>(r)] = Count(ops);
  }
  XTFQ_TRY(w->Write(Encode("STDIO", "STDIO_", names.back().first, -1, Reduce(per_rank))));
  ++st.records;
  XTFQ_TRY(w->EndModule());
  // DXT: per rank, its records of the shared files, then (POSIX) of its diagnostics; writes
  // first, then reads, each in time order; 40-byte segments with a thread id.
  for (int slot : {kDxtPosix, kDxtMpiio}) {
    const bool posix = slot == kDxtPosix;
    XTFQ_TRY(w->BeginModule(slot, posix ? 2 : 3));
    std::vector<std::byte> segs;
    for (int64_t r = 0; r < o.ranks; ++r) {
      std::vector<int64_t> mine;
      for (int64_t f = 0; f < run.shared_files(); ++f) mine.push_back(f);
      for (int64_t f = run.shared_files() + r; posix && f < files; f += o.ranks) mine.push_back(f);
      for (int64_t f : mine) {
        run.Ops(f, r, ops);
        if (!posix) {
          for (Op& op : ops) op.start -= 1e-5, op.end += 1e-5;
        }
        int64_t writes = 0;
        for (const Op& op : ops) writes += op.write;
        segs.clear();
        for (int pass = 0; pass < 2; ++pass) {
          for (const Op& op : ops) {
            if (op.write != (pass == 0)) continue;
            std::byte b[40];
            StoreLe<int64_t>(b, op.offset);
            StoreLe<int64_t>(b + 8, op.length);
            StoreLe<double>(b + 16, op.start);
            StoreLe<double>(b + 24, op.end);
            StoreLe<uint64_t>(b + 32, 0x7f3a00000000ULL + static_cast<uint64_t>(r % 64) * 0x1000);
            segs.insert(segs.end(), b, b + 40);
          }
        }
        XTFQ_TRY(w->Write(DxtHeader(names[static_cast<size_t>(f)].first, r, writes, static_cast<int64_t>(ops.size()) - writes)));
        XTFQ_TRY(w->Write(segs));
        (posix ? st.posix_segments : st.mpiio_segments) += ops.size();
        ++st.records;
      }
    }
    XTFQ_TRY(w->EndModule());
  }
  XTFQ_TRY(w->Finish());
  return st;
}

}  // namespace xtfq
