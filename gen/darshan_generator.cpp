#include "gen/darshan_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gen/darshan_log_writer.h"
#include "importers/darshan/darshan_module_tables.h"
#include "layouts/darshan_layout.h"
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

// What the runtime counts of one operation (read or write) for one file and rank.
struct OpStats {
  int64_t count = 0, bytes = 0, max_byte = 0, consec = 0, seq = 0, max_time_size = 0;
  int64_t size_classes[10] = {};
  double start = 0, end = 0, time = 0, max_time = 0;
  int64_t last = 0;  // the last byte of the previous operation (darshan-posix.c's last_byte_*)

  void Add(const Op& o) {
    const double d = o.end - o.start;
    if (o.offset > last) ++seq;
    if (o.offset == last + 1) ++consec;
    last = o.offset + o.length - 1;
    max_byte = std::max(max_byte, last);
    bytes += o.length, ++count, ++size_classes[DarshanLayout::SizeClass(o.length)];
    time += d;
    if (start == 0) start = o.start;
    end = o.end;
    if (d > max_time) max_time = d, max_time_size = o.length;
  }
  // Darshan's reduction of one rank's counts into a shared record.
  void Merge(const OpStats& s) {
    count += s.count, bytes += s.bytes, consec += s.consec, seq += s.seq, time += s.time;
    max_byte = std::max(max_byte, s.max_byte);
    for (int b = 0; b < 10; ++b) size_classes[b] += s.size_classes[b];
    start = start == 0 ? s.start : s.start == 0 ? start : std::min(start, s.start);
    end = std::max(end, s.end);
    if (s.max_time > max_time) max_time = s.max_time, max_time_size = s.max_time_size;
  }
};

// What the runtime counts for one file and rank (or, reduced, for all ranks).
struct Stats {
  OpStats io[2];  // read, write
  int64_t opens = 0, stats = 0, rw_switches = 0, not_aligned = 0;
  std::map<int64_t, int64_t> access;
  double open_start = 0, close_start = 0, open_end = 0, close_end = 0, meta_time = 0;
  int64_t fastest_rank = 0, fastest_bytes = 0, slowest_rank = 0, slowest_bytes = 0;
  double fastest_time = 0, slowest_time = 0, var_time = 0, var_bytes = 0;
  double Time() const { return io[0].time + io[1].time + meta_time; }
  int64_t Bytes() const { return io[0].bytes + io[1].bytes; }
};

Stats Count(const std::vector<Op>& ops) {
  Stats s;
  int last_io = -1;  // 0 read, 1 write
  for (const Op& o : ops) {
    if (o.opens) {
      ++s.opens, ++s.stats;
      const double open_at = o.start - 2e-4;
      if (s.open_start == 0) s.open_start = open_at, s.open_end = open_at + 1.5e-4;
      s.meta_time += 3e-4;
    }
    if (o.offset % kAlignment != 0) ++s.not_aligned;
    ++s.access[o.length];
    s.io[o.write].Add(o);
    if (last_io >= 0 && last_io != static_cast<int>(o.write)) ++s.rw_switches;
    last_io = o.write;
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
    r.io[0].Merge(s.io[0]), r.io[1].Merge(s.io[1]);
    r.opens += s.opens, r.stats += s.stats, r.rw_switches += s.rw_switches, r.not_aligned += s.not_aligned;
    for (const auto& [size, n] : s.access) r.access[size] += n;
    r.open_start = min_nz(r.open_start, s.open_start), r.close_start = min_nz(r.close_start, s.close_start);
    r.open_end = std::max(r.open_end, s.open_end), r.close_end = std::max(r.close_end, s.close_end);
    r.meta_time += s.meta_time;
    const double t = s.Time();
    const int64_t bytes = s.Bytes();
    if (i == 0 || t < r.fastest_time)
      r.fastest_time = t, r.fastest_rank = static_cast<int64_t>(i), r.fastest_bytes = bytes;
    if (i == 0 || t > r.slowest_time)
      r.slowest_time = t, r.slowest_rank = static_cast<int64_t>(i), r.slowest_bytes = bytes;
    t_sum += t, t_sq += t * t, b_sum += static_cast<double>(bytes),
        b_sq += static_cast<double>(bytes) * static_cast<double>(bytes);
  }
  const double n = static_cast<double>(ranks.size());
  r.var_time = std::max(0.0, t_sq / n - (t_sum / n) * (t_sum / n));
  r.var_bytes = std::max(0.0, b_sq / n - (b_sum / n) * (b_sum / n));
  return r;
}

// A record of module `module` (counter names as darshan-parser prints them, `prefix` included)
// in the module's current layout: base record, int counters, float counters. Counters the run
// does not produce are 0 (MMAPS -1, as a runtime without mmap wrapping writes it).
std::vector<std::byte> Encode(std::string_view module, std::string_view prefix, uint64_t id, int64_t rank,
                              const Stats& s) {
  const DarshanModuleTables::Counters* names = nullptr;
  for (const auto& c : DarshanModuleTables::CounterNames()) {
    if (c.module == module) names = &c;
  }
  std::vector<std::pair<int64_t, int64_t>> top(s.access.begin(), s.access.end());  // size, count
  std::sort(top.begin(), top.end(),
            [](auto a, auto b) { return a.second != b.second ? a.second > b.second : a.first > b.first; });
  top.resize(std::min<size_t>(top.size(), 4));
  std::map<std::string, int64_t> ints = {{"OPENS", s.opens},
                                         {"COLL_OPENS", s.opens},
                                         {"STATS", s.stats},
                                         {"RW_SWITCHES", s.rw_switches},
                                         {"MODE", 420},
                                         {"MMAPS", -1},
                                         {"MEM_ALIGNMENT", 8},
                                         {"FILE_ALIGNMENT", kAlignment},
                                         {"FILE_NOT_ALIGNED", s.not_aligned},
                                         {"FASTEST_RANK", s.fastest_rank},
                                         {"FASTEST_RANK_BYTES", s.fastest_bytes},
                                         {"SLOWEST_RANK", s.slowest_rank},
                                         {"SLOWEST_RANK_BYTES", s.slowest_bytes}};
  std::map<std::string, double> floats = {{"F_OPEN_START_TIMESTAMP", s.open_start},
                                          {"F_CLOSE_START_TIMESTAMP", s.close_start},
                                          {"F_OPEN_END_TIMESTAMP", s.open_end},
                                          {"F_CLOSE_END_TIMESTAMP", s.close_end},
                                          {"F_META_TIME", s.meta_time},
                                          {"F_FASTEST_RANK_TIME", s.fastest_time},
                                          {"F_SLOWEST_RANK_TIME", s.slowest_time},
                                          {"F_VARIANCE_RANK_TIME", s.var_time},
                                          {"F_VARIANCE_RANK_BYTES", s.var_bytes}};
  for (int op = 0; op < 2; ++op) {
    const OpStats& x = s.io[op];
    const std::string u = op == 0 ? "READ" : "WRITE";
    ints[u + "S"] = ints["COLL_" + u + "S"] = x.count;
    ints[op == 0 ? "BYTES_READ" : "BYTES_WRITTEN"] = x.bytes;
    ints[op == 0 ? "MAX_BYTE_READ" : "MAX_BYTE_WRITTEN"] = x.max_byte;
    ints["CONSEC_" + u + "S"] = x.consec;
    ints["SEQ_" + u + "S"] = x.seq;
    ints["MAX_" + u + "_TIME_SIZE"] = x.max_time_size;
    for (int b = 0; b < 10; ++b) {
      const std::string bin(DarshanLayout::SizeClassName(b));
      ints["SIZE_" + u + "_" + bin] = ints["SIZE_" + u + "_AGG_" + bin] = x.size_classes[b];
    }
    floats["F_" + u + "_START_TIMESTAMP"] = x.start;
    floats["F_" + u + "_END_TIMESTAMP"] = x.end;
    floats["F_" + u + "_TIME"] = x.time;
    floats["F_MAX_" + u + "_TIME"] = x.max_time;
  }
  for (size_t k = 0; k < 4; ++k) {
    ints[fmt::format("ACCESS{}_ACCESS", k + 1)] = k < top.size() ? top[k].first : 0;
    ints[fmt::format("ACCESS{}_COUNT", k + 1)] = k < top.size() ? top[k].second : 0;
  }
  std::vector<std::byte> out(16);
  StoreLe<uint64_t>(out.data(), id);
  StoreLe<int64_t>(out.data() + 8, rank);
  auto put = [&](auto v) {
    const size_t at = out.size();
    out.resize(at + 8);
    StoreLe(out.data() + at, v);
  };
  for (std::string_view full : names->names) {
    const std::string n(full.substr(prefix.size()));
    if (n.starts_with("F_")) {
      auto it = floats.find(n);
      put(it == floats.end() ? 0.0 : it->second);
    } else {
      auto it = ints.find(n);
      put(it == ints.end() ? int64_t{0} : it->second);
    }
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
      phase(true, ck_, 4 * kMiB, r * ck_ * 4 * kMiB, 0.1 * D + static_cast<double>(c + 1) * gap, len,
            Straggler(r) ? 8 : 1);
      if (c == o_.checkpoints - 1) {  // read back at the end, 1 MiB at a time
        const int64_t block = ck_ * 4, n = rb_;
        const size_t before = ops.size();
        phase(false, n, kMiB, r * block * kMiB, 0.9 * D, 0.09 * D, 1);
        for (size_t i = before; i < ops.size(); ++i)
          ops[i].offset = r * block * kMiB + static_cast<int64_t>((i - before) % static_cast<size_t>(block)) * kMiB;
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
    return Error(ErrorCode::kInvalidArgument, fmt::format("gen darshan: need ranks >= 1, checkpoints >= 1, files >= "
                                                          "checkpoints + 1 ({}), duration > 0, segments >= 1",
                                                          o.checkpoints + 1));
  }
  const Run run(o);
  DarshanGenStats st;
  XTFQ_ASSIGN_OR_RETURN(auto w, DarshanLogWriter::Create(path));
  DarshanJob job;
  job.job = o.job.value_or(4242000 + static_cast<int64_t>(o.seed % 1000));
  job.uid = 21045;
  job.start_sec = o.start;
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
  uint64_t partial = 0;
  for (int slot : {kDxtPosix, kDxtMpiio}) {
    const bool posix = slot == kDxtPosix;
    uint64_t kept = 0;
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
        if ((partial >> slot & 1) || (o.dxt_segments_max > 0 && kept + ops.size() > o.dxt_segments_max)) {
          partial |= uint64_t{1} << slot;  // out of memory: this record and the rest are lost
          continue;
        }
        kept += ops.size();
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
        XTFQ_TRY(w->Write(
            DxtHeader(names[static_cast<size_t>(f)].first, r, writes, static_cast<int64_t>(ops.size()) - writes)));
        XTFQ_TRY(w->Write(segs));
        (posix ? st.posix_segments : st.mpiio_segments) += ops.size();
        ++st.records;
      }
    }
    XTFQ_TRY(w->EndModule());
  }
  XTFQ_TRY(w->Finish(partial));
  return st;
}

}  // namespace xtfq
