// SmallStore: a store held in memory (MemDisk) for the unit tests of index/ and query/, with a
// record type whose trees are tall at small sizes.
//
// Row is written under RowSchema(): t:i64 p:i64 v:i64* w:f64* and six aggregated i64 fields x0..x5
// that stay zero. They make records 80 bytes (kRowsPerPage = 50 per 4 KiB page) and index entries
// 20 + 8 * 32 = 276 bytes (kEntriesPerPage = 14 per page), so 700 records already give a TN tree of
// three levels and 15 processes a process tree of two. Rows are encoded here at fixed offsets with
// StoreLe, not through Schema, so a test's expectation does not share code with what it checks.
// Tests keep w a multiple of 1/4 below 2^20: every sum and sum of squares of w is then exact in any
// order, and summaries compare with ==.
//
// SmallStore owns a writer over a fresh MemDisk; Open() gives a StoreReader of the last commit
// (the writer may go on appending). ColdReads() counts the pages one operation reads from a cold,
// unlimited cache of its own.
//
// Thread-safety: test code, one thread.
#pragma once

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cache/page_cache.h"
#include "query/core/store_reader.h"
#include "store/endian.h"
#include "store/format.h"
#include "store/mem_file.h"
#include "store/schema.h"
#include "store/store_writer.h"
#include "store/summary.h"
#include "tests/why.h"

namespace xtfq::test {

struct Row {
  int64_t t = 0;  // time
  int64_t p = 0;  // process
  int64_t v = 0;  // aggregated integer
  double w = 0;   // aggregated double
  bool operator==(const Row&) const = default;
};

inline constexpr uint32_t kRowWidth = 80;
inline constexpr uint32_t kRowsPerPage = (4096 - format::kPageHeaderSize) / kRowWidth;         // 50
inline constexpr uint32_t kEntriesPerPage = (4096 - format::kPageHeaderSize) / (20 + 8 * 32);  // 14
static_assert(kRowsPerPage == 50 && kEntriesPerPage == 14);

// `time` and `process` say whether t and p are the schema's time and process fields.
inline Schema RowSchema(bool time = true, bool process = true) {
  return Schema::Fixed({{"t", FieldType::kI64},
                        {"p", FieldType::kI64},
                        {"v", FieldType::kI64},
                        {"w", FieldType::kF64},
                        {"x0", FieldType::kI64},
                        {"x1", FieldType::kI64},
                        {"x2", FieldType::kI64},
                        {"x3", FieldType::kI64},
                        {"x4", FieldType::kI64},
                        {"x5", FieldType::kI64}},
                       {"v", "w", "x0", "x1", "x2", "x3", "x4", "x5"}, time ? "t" : "", process ? "p" : "");
}

inline std::vector<std::byte> EncodeRow(const Row& r) {
  std::vector<std::byte> b(kRowWidth);
  StoreLe<int64_t>(b.data(), r.t);
  StoreLe<int64_t>(b.data() + 8, r.p);
  StoreLe<int64_t>(b.data() + 16, r.v);
  StoreLe<double>(b.data() + 24, r.w);
  return b;
}

inline Row DecodeRow(const std::byte* b) {
  return Row{LoadLe<int64_t>(b), LoadLe<int64_t>(b + 8), LoadLe<int64_t>(b + 16), LoadLe<double>(b + 24)};
}

// The statistics of rows summed one by one with plain arithmetic: the oracle for Summary.
struct Naive {
  uint64_t count = 0;
  int64_t v_sum = 0, v_min = std::numeric_limits<int64_t>::max(), v_max = std::numeric_limits<int64_t>::min();
  double v_sumsq = 0;
  double w_sum = 0, w_min = std::numeric_limits<double>::infinity(), w_max = -std::numeric_limits<double>::infinity();
  double w_sumsq = 0;

  void Add(const Row& r) {
    ++count;
    v_sum += r.v;
    v_min = r.v < v_min ? r.v : v_min;
    v_max = r.v > v_max ? r.v : v_max;
    v_sumsq += static_cast<double>(r.v) * static_cast<double>(r.v);
    w_sum += r.w;
    w_min = r.w < w_min ? r.w : w_min;
    w_max = r.w > w_max ? r.w : w_max;
    w_sumsq += r.w * r.w;
  }
};

// Empty when `s` (of RowSchema()) holds exactly what `n` does, with x0..x5 all zero; otherwise the
// first difference.
inline std::string Differs(const Summary& s, const Naive& n) {
  if (s.count != n.count) return fmt::format("count {} != {}", s.count, n.count);
  if (s.fields.size() != 8) return fmt::format("{} aggregate fields, not 8", s.fields.size());
  const FieldStats& v = s.fields[0];
  const FieldStats& w = s.fields[1];
  if (v.is_float || v.i_sum != n.v_sum || v.i_min != n.v_min || v.i_max != n.v_max || v.sumsq != n.v_sumsq)
    return fmt::format("v: sum {} min {} max {} sumsq {} != {} {} {} {}", v.i_sum, v.i_min, v.i_max, v.sumsq, n.v_sum,
                       n.v_min, n.v_max, n.v_sumsq);
  if (!w.is_float || w.f_sum != n.w_sum || w.f_min != n.w_min || w.f_max != n.w_max || w.sumsq != n.w_sumsq)
    return fmt::format("w: sum {} min {} max {} sumsq {} != {} {} {} {}", w.f_sum, w.f_min, w.f_max, w.sumsq, n.w_sum,
                       n.w_min, n.w_max, n.w_sumsq);
  for (size_t i = 2; i < 8; ++i) {
    const FieldStats& x = s.fields[i];
    const bool empty = n.count == 0;
    if (x.i_sum != 0 || x.sumsq != 0 || x.i_min != (empty ? std::numeric_limits<int64_t>::max() : 0) ||
        x.i_max != (empty ? std::numeric_limits<int64_t>::min() : 0))
      return fmt::format("x{}: sum {} min {} max {}", i - 2, x.i_sum, x.i_min, x.i_max);
  }
  return {};
}

class SmallStore {
 public:
  explicit SmallStore(StoreOptions options = {}) : disk_(std::make_shared<MemDisk>()) {
    auto w = StoreWriter::Create(std::make_unique<MemFile>("s.xtfq", disk_), options);
    REQUIRE_MESSAGE(w.ok(), Why(w));
    writer_ = std::move(*w);
  }

  StoreWriter& writer() { return *writer_; }

  ArrayId Create(std::string_view name, const Schema& schema) {
    auto id = writer_->CreateArray(name, schema);
    REQUIRE_MESSAGE(id.ok(), Why(id));
    return *id;
  }
  void Append(ArrayId array, const Row& r) {
    const Status s = writer_->Append(array, EncodeRow(r));
    REQUIRE_MESSAGE(s.ok(), Why(s));
  }
  void Append(ArrayId array, const std::vector<Row>& rows) {
    for (const Row& r : rows) Append(array, r);
  }
  StringRef AddString(std::string_view s) {
    auto ref = writer_->AddString(s);
    REQUIRE_MESSAGE(ref.ok(), Why(ref));
    return *ref;
  }
  void Commit() {
    const Status s = writer_->Commit();
    REQUIRE_MESSAGE(s.ok(), Why(s));
  }

  // A reader of the last commit with a cache of `cache_pages` pages (0: unlimited).
  std::unique_ptr<StoreReader> Open(size_t cache_pages = 0) {
    auto r = StoreReader::Open(
        std::make_unique<MemFile>("s.xtfq", disk_),
        ReaderOptions{Backend::kPread, cache_pages == 0 ? PageCache::kUnlimited : cache_pages * 4096});
    REQUIRE_MESSAGE(r.ok(), Why(r));
    return std::move(*r);
  }

 private:
  std::shared_ptr<MemDisk> disk_;
  std::unique_ptr<StoreWriter> writer_;
};

// The pages `op` reads from a cold, unlimited cache over `reader`'s snapshot.
inline uint64_t ColdReads(StoreReader& reader, const std::function<void(PageCache&)>& op) {
  auto src = reader.store().MakeSource(Backend::kPread);
  REQUIRE_MESSAGE(src.ok(), Why(src));
  PageCache cache(**src, PageCache::kUnlimited);
  op(cache);
  CHECK(cache.pinned_pages() == 0);
  return cache.stats().pages_read;
}

}  // namespace xtfq::test
