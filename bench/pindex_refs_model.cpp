// pindex_refs_model: issue 17's question "a P index without a full second copy of every record,
// if it keeps its O(R' log N) bounds (measure both)", measured on the shared benchmark's events
// before building it. Today (docs/format.md, "P index") each process's records are copied into an
// array of their own, whose pages hold every field; the alternative keeps, per process, only
// references: each record's time and its position in the time-ordered array, with the sums
// (count, bytes, dur) of every group of G references, so a window's interior comes from the sums
// and only a window's partial groups at its two ends read records, each from the page of the main
// array that holds it.
//
// For every Q2 query of the query file (a window and 64 ranks), per rank, this counts the pages a
// cold read touches beyond the trees' internal nodes (the same in both designs):
//   copy:  the per-process leaf pages holding the window's two ends (a leaf is a page of 127
//          records, as the store's 4 KiB pages of 32-byte records hold);
//   refs:  the reference pages holding the two ends (each of kRefsPerPage references) and, for
//          each end's partial group, the distinct main-array pages of the records read (the part
//          inside the window or the part outside, whichever is smaller: the group's sums give the
//          other);
// and the bytes per record each design adds to the main array, with the store's page codec
// approximated: a page's columns (times and positions delta-coded, sums as they are) split into
// byte planes and compressed with lz4 (LZ4_compress_default), per page.
//
// Built with the benchmarks (cmake --preset default -DXTFQ_BENCHMARKS=ON; it reads no store):
//   build/shared_bench_gen 1e7 events.bin q.txt -
//   build/pindex_refs_model events.bin q.txt
#include <lz4.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace {

struct Rec {  // ../shared/bench/common.h
  int64_t t;
  int64_t bytes;
  double dur;
  int32_t rank;
  int32_t op;
};
static_assert(sizeof(Rec) == 32);

constexpr int64_t kRecordsPerPage = 127;  // a 4 KiB page of 32-byte records, less its header
constexpr int64_t kRefsPerPage = 254;     // a 4 KiB page of 16-byte references (time, position)

// lz4 over the byte planes of `cols` (each a column of 8-byte values), as one page.
size_t PageBytes(const std::vector<std::vector<uint64_t>>& cols) {
  std::string planes;
  for (const auto& c : cols) {
    for (int b = 0; b < 8; ++b) {
      for (uint64_t v : c) planes.push_back(static_cast<char>((v >> (8 * b)) & 0xff));
    }
  }
  std::string out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(planes.size()))), '\0');
  const int n =
      LZ4_compress_default(planes.data(), out.data(), static_cast<int>(planes.size()), static_cast<int>(out.size()));
  return static_cast<size_t>(n) + 16;  // + a page header
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s EVENTS.bin QUERIES.txt\n", argv[0]);
    return 2;
  }
  FILE* f = std::fopen(argv[1], "rb");
  if (f == nullptr) {
    std::perror(argv[1]);
    return 1;
  }
  std::vector<Rec> recs;
  for (Rec r; std::fread(&r, sizeof r, 1, f) == 1;) recs.push_back(r);
  std::fclose(f);
  int32_t ranks = 0;
  for (const Rec& r : recs) ranks = std::max(ranks, r.rank + 1);
  // Per rank: its records' positions in the time-ordered array (and so their times).
  std::vector<std::vector<int64_t>> pos(static_cast<size_t>(ranks));
  for (int64_t i = 0; i < static_cast<int64_t>(recs.size()); ++i) pos[static_cast<size_t>(recs[i].rank)].push_back(i);

  // Bytes per record: the copy (every field, 127 a page) and the references with group sums.
  const auto copy_bytes = [&] {
    size_t total = 0;
    for (const auto& p : pos) {
      for (size_t a = 0; a < p.size(); a += kRecordsPerPage) {
        std::vector<std::vector<uint64_t>> cols(5);
        int64_t prev = 0;
        for (size_t i = a; i < std::min(p.size(), a + kRecordsPerPage); ++i) {
          const Rec& r = recs[static_cast<size_t>(p[i])];
          cols[0].push_back(static_cast<uint64_t>(r.t - prev)), prev = r.t;
          cols[1].push_back(static_cast<uint64_t>(r.bytes));
          uint64_t d;
          std::memcpy(&d, &r.dur, 8);
          cols[2].push_back(d);
          cols[3].push_back(static_cast<uint64_t>(r.rank));
          cols[4].push_back(static_cast<uint64_t>(r.op));
        }
        total += PageBytes(cols);
      }
    }
    return static_cast<double>(total) / static_cast<double>(recs.size());
  };
  const auto refs_bytes = [&](int64_t g) {
    size_t total = 0;
    for (const auto& p : pos) {
      for (size_t a = 0; a < p.size(); a += kRefsPerPage) {
        std::vector<std::vector<uint64_t>> refs(2), sums(2);
        int64_t prev_t = 0, prev_p = 0;
        const size_t e = std::min(p.size(), a + kRefsPerPage);
        for (size_t i = a; i < e; ++i) {
          const Rec& r = recs[static_cast<size_t>(p[i])];
          refs[0].push_back(static_cast<uint64_t>(r.t - prev_t)), prev_t = r.t;
          refs[1].push_back(static_cast<uint64_t>(p[i] - prev_p)), prev_p = p[i];
        }
        for (size_t i = a; i < e; i += static_cast<size_t>(g)) {
          int64_t bytes = 0;
          double dur = 0;
          for (size_t k = i; k < std::min(e, i + static_cast<size_t>(g)); ++k) {
            bytes += recs[static_cast<size_t>(p[k])].bytes, dur += recs[static_cast<size_t>(p[k])].dur;
          }
          uint64_t d;
          std::memcpy(&d, &dur, 8);
          sums[0].push_back(static_cast<uint64_t>(bytes)), sums[1].push_back(d);
        }
        total += PageBytes(refs) + (g > 1 ? PageBytes(sums) : 0);
      }
    }
    return static_cast<double>(total) / static_cast<double>(recs.size());
  };

  // Q2's windows.
  struct Q {
    int64_t t1, t2;
    int32_t r1, r2;
    std::string cls;
  };
  std::vector<Q> qs;
  FILE* qf = std::fopen(argv[2], "r");
  if (qf == nullptr) {
    std::perror(argv[2]);
    return 1;
  }
  char cls[32];
  while (std::fscanf(qf, "%31s", cls) == 1) {
    char line[256];
    if (std::fgets(line, sizeof line, qf) == nullptr) break;
    Q q{};
    q.cls = cls;
    if (std::strncmp(cls, "Q2", 2) == 0 &&
        std::sscanf(line, "%" SCNd64 " %" SCNd64 " %d %d", &q.t1, &q.t2, &q.r1, &q.r2) == 4)
      qs.push_back(q);
  }
  std::fclose(qf);
  const auto time_of = [&](int64_t i) { return recs[static_cast<size_t>(i)].t; };

  std::printf("design\tbytes/record added\tQ2 class\tqueries\tpages/query (leaf or reference pages + main pages)\n");
  const double cb = copy_bytes();
  for (int64_t g : {0, 4, 16, 64}) {  // 0: the copy
    const double bytes = g == 0 ? cb : refs_bytes(g);
    for (const char* c : {"Q2_1", "Q2_10", "Q2_100"}) {
      uint64_t n = 0, leaf = 0, main_pages = 0;
      for (const Q& q : qs) {
        if (q.cls != c) continue;
        ++n;
        for (int32_t r = q.r1; r < q.r2 && r < ranks; ++r) {
          const auto& p = pos[static_cast<size_t>(r)];
          const auto lo = static_cast<int64_t>(
              std::lower_bound(p.begin(), p.end(), q.t1, [&](int64_t i, int64_t t) { return time_of(i) < t; }) -
              p.begin());
          const auto hi = static_cast<int64_t>(
              std::lower_bound(p.begin(), p.end(), q.t2, [&](int64_t i, int64_t t) { return time_of(i) < t; }) -
              p.begin());
          if (lo >= hi) continue;
          const int64_t per_page = g == 0 ? kRecordsPerPage : kRefsPerPage;
          // The pages holding the window's two ends, when they are partial (a page whole inside
          // the window is answered from its parent's sums).
          std::set<int64_t> pages;
          if (lo % per_page != 0) pages.insert(lo / per_page);
          if (hi % per_page != 0 && hi < static_cast<int64_t>(p.size())) pages.insert(hi / per_page);
          leaf += pages.size();
          if (g == 0) continue;
          // Each end's partial group: its records inside or outside the window, whichever is fewer.
          std::set<int64_t> mains;
          for (int64_t end : {lo, hi}) {
            const int64_t a = end / g * g, b = std::min<int64_t>(a + g, static_cast<int64_t>(p.size()));
            if (end == a || end >= static_cast<int64_t>(p.size())) continue;
            const bool before = end - a <= b - end;  // read [a, end) or [end, b)
            for (int64_t k = before ? a : end; k < (before ? end : b); ++k)
              mains.insert(p[static_cast<size_t>(k)] / kRecordsPerPage);
          }
          main_pages += mains.size();
        }
      }
      if (n == 0) continue;
      std::printf(
          "%s\t%.1f\t%s\t%" PRIu64 "\t%.1f (%.1f + %.1f)\n", g == 0 ? "copy" : ("refs, G=" + std::to_string(g)).c_str(),
          bytes, c, n, static_cast<double>(leaf + main_pages) / static_cast<double>(n),
          static_cast<double>(leaf) / static_cast<double>(n), static_cast<double>(main_pages) / static_cast<double>(n));
    }
  }
  return 0;
}
