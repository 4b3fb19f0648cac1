// StoreWriter over an in-memory file, through every kind of operation: arrays with and without time
// and process fields and process index, appends across page boundaries and index levels, strings,
// refused calls, commits, reopens, many processes (negative, dense and beyond 65535), and an I/O
// failure at every file call. CheckInvariants() is required to hold after every single operation;
// at every commit the file is checked by StoreChecker and read back, page by page with a naive
// chain walk (no index, no cache), against a model of plain vectors of what was appended.
#include "store/store_writer.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <array>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "store/endian.h"
#include "store/fault_file.h"
#include "store/format.h"
#include "store/mem_file.h"
#include "store/store.h"
#include "store/store_checker.h"
#include "store/superblock.h"
#include "tests/fault_sweep.h"

namespace xtfq {
namespace {

constexpr char kFile[] = "mem.xtfq";

template <class T>
std::string Why(const Result<T>& r) {
  return r.ok() ? std::string() : r.error().message();
}

std::string Why(const StoreChecker::Report& r) { return r.ok() ? std::string() : r.problems.front().message(); }

using Record = std::vector<std::byte>;

// What was appended: each array of its own with its records, and each string with its reference.
struct ModelArray {
  std::string name;
  Schema schema;
  ArrayId id;
  bool process_index = false;
  std::vector<Record> records;
};

struct Model {
  std::vector<ModelArray> arrays;
  std::vector<std::pair<StringRef, std::string>> strings;

  ModelArray& Named(std::string_view name) {
    for (ModelArray& a : arrays) {
      if (a.name == name) return a;
    }
    FAIL("no array " << name << " in the model");
    return arrays.front();
  }
};

// A record of `schema` with time `t` and process `p` (where it has those fields) and other fields
// from `rng`.
Record MakeRecord(const Schema& schema, std::mt19937_64& rng, int64_t t, int64_t p) {
  Record r(schema.record_width());
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    if (schema.time_field() == i) {
      schema.Set(r.data(), i, Value{t});
    } else if (schema.process_field() == i) {
      schema.Set(r.data(), i, Value{p});
    } else if (schema.fields()[i].type == FieldType::kF64) {
      schema.Set(r.data(), i, Value{static_cast<double>(rng() % 100000) / 8.0});
    } else {
      schema.Set(r.data(), i, Value{static_cast<int64_t>(rng() % 2000000) - 1000000});
    }
  }
  return r;
}

// One chain's pages as a reader sees them: full pages from `head` by `next`, then the open page's
// entries from its shadow. Each page: its logical id and its payload's entries.
std::vector<std::pair<PageId, std::vector<std::byte>>> ReadChain(Store& store, const ChainDesc& c, uint32_t width) {
  std::vector<std::pair<PageId, std::vector<std::byte>>> out;
  const uint32_t cap = PageCapacity(store.page_size(), width);
  std::vector<std::byte> page(store.page_size());
  PageId id = c.head;
  for (uint64_t i = 0; i < c.FullPages(cap); ++i) {
    Status s = store.ReadSealed(id, page);
    REQUIRE_MESSAGE(s.ok(), Why(s));
    const PageHeader h = PageHeader::Decode(page.data());
    REQUIRE(h.entry_count == cap);
    const auto* p = page.data() + format::kPageHeaderSize;
    out.emplace_back(id, std::vector<std::byte>(p, p + size_t{cap} * width));
    id = h.next;
  }
  REQUIRE(id == c.open);
  const uint32_t open = c.OpenEntries(cap);
  if (open > 0) {
    Status s = store.ReadSealed(c.shadow, page);
    REQUIRE_MESSAGE(s.ok(), Why(s));
    const auto* p = page.data() + format::kPageHeaderSize;
    out.emplace_back(c.open, std::vector<std::byte>(p, p + size_t{open} * width));
  }
  return out;
}

std::vector<Record> ReadRecords(Store& store, const ArrayDesc& a) {
  const uint32_t width = a.schema.record_width();
  std::vector<Record> out;
  for (const auto& [id, bytes] : ReadChain(store, a.levels[0], width)) {
    for (size_t o = 0; o < bytes.size(); o += width) out.emplace_back(bytes.begin() + o, bytes.begin() + o + width);
  }
  return out;
}

// The heap as one byte stream, and where each logical page starts in it.
struct Heap {
  std::vector<std::byte> stream;
  std::map<uint32_t, size_t> start;

  std::string String(StringRef ref) const {
    auto it = start.find(ref.page.value);
    REQUIRE(it != start.end());
    const size_t at = it->second + ref.offset;
    REQUIRE(at + format::kStringPrefixSize <= stream.size());
    const uint32_t n = LoadLe<uint32_t>(stream.data() + at);
    REQUIRE(at + format::kStringPrefixSize + n <= stream.size());
    const auto* p = reinterpret_cast<const char*>(stream.data() + at + format::kStringPrefixSize);
    return std::string(p, n);
  }
};

Heap ReadHeap(Store& store) {
  Heap h;
  for (const auto& [id, bytes] : ReadChain(store, store.catalogue().heap, 1)) {
    h.start[id.value] = h.stream.size();
    h.stream.insert(h.stream.end(), bytes.begin(), bytes.end());
  }
  return h;
}

// Compares the store with the model: every array's records, every per-process array against its
// parent's records of that process, every string; the checker must find nothing.
void Verify(Store& store, const Model& m) {
  StoreChecker::Report rep = StoreChecker(store).Run();
  REQUIRE_MESSAGE(rep.ok(), Why(rep));
  const Catalogue& cat = store.catalogue();
  size_t own = 0, per_process = 0;
  for (const ArrayDesc& d : cat.arrays) (d.per_process() ? per_process : own) += 1;
  CHECK(own == m.arrays.size());
  size_t processes = 0;
  for (const ModelArray& ma : m.arrays) {
    CAPTURE(ma.name);
    const ArrayDesc* d = cat.Find(ma.name);
    REQUIRE(d != nullptr);
    CHECK(d->id == ma.id);
    CHECK(d->schema == ma.schema);
    CHECK(d->process_index == ma.process_index);
    REQUIRE(d->record_count() == ma.records.size());
    CHECK((ReadRecords(store, *d) == ma.records));
    std::map<int64_t, std::vector<Record>> by_process;
    if (ma.process_index) {
      for (const Record& r : ma.records) by_process[ma.schema.Process(r.data())].push_back(r);
    }
    CHECK((d->process_root != kNoPage) == !by_process.empty());
    // Records of one process alone: no copy, the array is its own per-process array.
    CHECK(d->sole_process == (by_process.size() == 1));
    if (by_process.size() == 1) {
      CHECK(d->process == by_process.begin()->first);
      by_process.clear();
    }
    std::set<int64_t> seen;
    for (const ArrayDesc& c : cat.arrays) {
      if (c.parent != d->id) continue;
      CAPTURE(c.process);
      auto it = by_process.find(c.process);
      REQUIRE(it != by_process.end());
      CHECK(seen.insert(c.process).second);
      REQUIRE(c.record_count() == it->second.size());
      CHECK((ReadRecords(store, c) == it->second));
    }
    CHECK(seen.size() == by_process.size());
    processes += by_process.size();
  }
  CHECK(per_process == processes);
  const Heap heap = ReadHeap(store);
  for (const auto& [ref, s] : m.strings) CHECK(heap.String(ref) == s);
}

// Drives one writer over a MemDisk: every operation updates the model, and is followed by
// CheckInvariants(); every commit by a check and read-back of the file.
class Driver {
 public:
  explicit Driver(StoreOptions options) : disk_(std::make_shared<MemDisk>()), options_(options) {
    auto w = StoreWriter::Create(std::make_unique<MemFile>(kFile, disk_), options_);
    REQUIRE_MESSAGE(w.ok(), Why(w));
    writer_ = std::move(*w);
    CheckInvariants();
    VerifyFile();
  }

  StoreWriter& writer() { return *writer_; }
  Model& model() { return model_; }
  const MemDisk& disk() const { return *disk_; }

  void CheckInvariants() {
    Status s = writer_->CheckInvariants();
    REQUIRE_MESSAGE(s.ok(), Why(s));
  }

  ArrayId CreateArray(const std::string& name, const Schema& schema) {
    Result<ArrayId> id = writer_->CreateArray(name, schema);
    REQUIRE_MESSAGE(id.ok(), Why(id));
    CheckInvariants();
    CHECK(writer_->FindArrayId(name) == *id);
    const bool indexed = options_.process_index && schema.process_field().has_value();
    model_.arrays.push_back(ModelArray{name, schema, *id, indexed, {}});
    return *id;
  }

  void Append(const std::string& name, Record r) {
    ModelArray& a = model_.Named(name);
    Status s = writer_->Append(a.id, r);
    REQUIRE_MESSAGE(s.ok(), Why(s));
    CheckInvariants();
    a.records.push_back(std::move(r));
  }

  // A call the writer must refuse with `code`, leaving it usable and unchanged.
  void Refused(const Status& s, ErrorCode code) {
    REQUIRE_FALSE(s.ok());
    CHECK_MESSAGE(s.error().code() == code, s.error().message());
    CheckInvariants();
  }

  StringRef AddString(const std::string& s) {
    Result<StringRef> ref = writer_->AddString(s);
    REQUIRE_MESSAGE(ref.ok(), Why(ref));
    CheckInvariants();
    model_.strings.emplace_back(*ref, s);
    return *ref;
  }

  void Commit() {
    const uint64_t g = writer_->generation();
    Status s = writer_->Commit();
    REQUIRE_MESSAGE(s.ok(), Why(s));
    CheckInvariants();
    CHECK(writer_->generation() == g + 1);
    committed_ = model_;
    // The writer's own view: the committed counts, as FindArray reports them.
    for (const ModelArray& a : model_.arrays) {
      const ArrayDesc* d = writer_->FindArray(a.name);
      REQUIRE(d != nullptr);
      CHECK(d->record_count() == a.records.size());
    }
    VerifyFile();
  }

  // The writer goes away without committing, and a new one opens the file: what was appended
  // since the last commit is gone.
  void Reopen(StoreOptions options) {
    writer_.reset();
    options_ = options;
    auto w = StoreWriter::Open(std::make_unique<MemFile>(kFile, disk_), options_);
    REQUIRE_MESSAGE(w.ok(), Why(w));
    writer_ = std::move(*w);
    CheckInvariants();
    model_ = committed_;
    CHECK(writer_->generation() == generation_);
    const Catalogue pending = writer_->Pending();
    for (const ModelArray& a : model_.arrays) {
      const ArrayDesc* d = pending.Find(a.name);
      REQUIRE(d != nullptr);
      CHECK(d->record_count() == a.records.size());
    }
  }

  // Current record counts against the model, from Pending().
  void CheckPendingCounts() {
    const Catalogue pending = writer_->Pending();
    for (const ModelArray& a : model_.arrays) {
      const ArrayDesc* d = pending.Find(a.name);
      REQUIRE(d != nullptr);
      CHECK(d->record_count() == a.records.size());
    }
  }

  size_t Levels(const std::string& name) {
    const Catalogue pending = writer_->Pending();
    return pending.Find(name)->levels.size();
  }

 private:
  void VerifyFile() {
    auto store = Store::Open(std::make_unique<MemFile>(kFile, disk_));
    REQUIRE_MESSAGE(store.ok(), Why(store));
    CHECK((*store)->generation() == writer_->generation());
    CHECK((*store)->page_count() == writer_->page_count());
    generation_ = (*store)->generation();
    Verify(**store, committed_);
  }

  std::shared_ptr<MemDisk> disk_;
  StoreOptions options_;
  std::unique_ptr<StoreWriter> writer_;
  Model model_;
  Model committed_;
  uint64_t generation_ = 0;
};

using Fields = std::vector<std::pair<std::string, FieldType>>;

Schema Events() {
  return Schema::Fixed({{"t", FieldType::kI64},
                        {"bytes", FieldType::kI64},
                        {"dur", FieldType::kF64},
                        {"rank", FieldType::kI32},
                        {"op", FieldType::kI32}},
                       {"bytes", "dur"}, "t", "rank");
}
Schema Plain() { return Schema::Fixed({{"v", FieldType::kU8}}, {}); }
Schema Timed() { return Schema::Fixed({{"t", FieldType::kI64}, {"x", FieldType::kF64}}, {"x"}, "t"); }
// A process field without a time field: the tree's key is the record number.
Schema Untimed() { return Schema::Fixed({{"p", FieldType::kI16}, {"v", FieldType::kU32}}, {"v"}, {}, "p"); }

StoreOptions Options(uint32_t page_size = 4096, uint32_t batch = 3, bool process_index = true) {
  StoreOptions o;
  o.page_size = page_size;
  o.write_batch_pages = batch;
  o.process_index = process_index;
  return o;
}

TEST_CASE("store writer: every kind of array reads back as appended across pages and commits and reopens") {
  Driver d(Options());
  std::mt19937_64 rng(1);
  d.CreateArray("plain", Plain());
  d.CreateArray("timed", Timed());
  d.CreateArray("events", Events());
  d.CreateArray("untimed", Untimed());
  d.Commit();  // empty arrays
  const uint32_t plain_cap = PageCapacity(4096, 1);
  const uint32_t timed_cap = PageCapacity(4096, 16);
  // Exactly one page, then one more record: the boundary itself.
  for (uint32_t i = 0; i < plain_cap; ++i) d.Append("plain", MakeRecord(Plain(), rng, 0, 0));
  d.Commit();
  d.Append("plain", MakeRecord(Plain(), rng, 0, 0));
  int64_t t = -50;
  for (uint32_t i = 0; i < 3 * timed_cap + 1; ++i) d.Append("timed", MakeRecord(Timed(), rng, t += i % 2, 0));
  for (int i = 0; i < 700; ++i) d.Append("events", MakeRecord(Events(), rng, i / 3, i % 8));
  for (int i = 0; i < 500; ++i) d.Append("untimed", MakeRecord(Untimed(), rng, 0, (i * 7) % 11 - 5));
  d.AddString("alpha");
  d.CheckPendingCounts();
  d.Commit();
  CHECK(d.Levels("timed") == 2);

  // Refused calls change nothing and leave the writer usable.
  StoreWriter& w = d.writer();
  d.Refused(w.Append(d.model().Named("timed").id, MakeRecord(Timed(), rng, t - 1, 0)), ErrorCode::kInvalidArgument);
  d.Refused(w.Append(d.model().Named("timed").id, Record(15)), ErrorCode::kInvalidArgument);
  d.Refused(w.Append(ArrayId(0), Record(1)), ErrorCode::kInvalidArgument);
  d.Refused(w.Append(ArrayId(999), Record(1)), ErrorCode::kInvalidArgument);
  ArrayId per_process;  // the first per-process array of "events"
  for (const ArrayDesc& a : w.Pending().arrays) {
    if (a.per_process() && per_process.value == 0) per_process = a.id;
  }
  REQUIRE(per_process.value != 0);
  d.Refused(w.Append(per_process, MakeRecord(Events(), rng, 1000, 0)), ErrorCode::kInvalidArgument);
  const Result<ArrayId> again = w.CreateArray("timed", Timed());
  REQUIRE_FALSE(again.ok());
  d.Refused(again.error(), ErrorCode::kInvalidArgument);
  const Result<ArrayId> unnamed = w.CreateArray("", Timed());
  REQUIRE_FALSE(unnamed.ok());
  d.Refused(unnamed.error(), ErrorCode::kInvalidArgument);
  Fields wide;
  std::vector<std::string> aggs;
  for (int i = 0; i < 130; ++i) {
    wide.emplace_back(fmt::format("f{}", i), FieldType::kI64);
    aggs.push_back(fmt::format("f{}", i));
  }
  const Result<ArrayId> too_wide = w.CreateArray("wide", Schema::Fixed(wide, aggs));
  REQUIRE_FALSE(too_wide.ok());  // 130 aggregates: index entries of 4180 bytes
  d.Refused(too_wide.error(), ErrorCode::kInvalidArgument);
  const Result<ArrayId> long_name = w.CreateArray(std::string(256, 'n'), Plain());
  REQUIRE_FALSE(long_name.ok());
  d.Refused(long_name.error(), ErrorCode::kInvalidArgument);
  // Equal times are accepted, in append order.
  d.Append("timed", MakeRecord(Timed(), rng, t, 0));
  d.Append("timed", MakeRecord(Timed(), rng, t, 0));
  d.Commit();
  d.Commit();  // nothing changed since the last one

  // Uncommitted work is dropped by a reopen; a writer without process index makes plain arrays.
  for (int i = 0; i < 300; ++i) d.Append("events", MakeRecord(Events(), rng, 300 + i, 70000 + i % 3));
  d.AddString("lost");
  d.Reopen(Options(4096, 3, false));
  d.CreateArray("events.noindex", Events());
  for (int i = 0; i < 400; ++i) d.Append("events.noindex", MakeRecord(Events(), rng, i, i % 5 - 2));
  for (int i = 0; i < 400; ++i) d.Append("events", MakeRecord(Events(), rng, 300 + i, 70000 + i % 3));  // still indexed
  d.Commit();
  d.Reopen(Options(4096, 1));
  for (uint32_t i = 0; i < 2 * plain_cap; ++i) d.Append("plain", MakeRecord(Plain(), rng, 0, 0));
  for (uint32_t i = 0; i < timed_cap; ++i) d.Append("timed", MakeRecord(Timed(), rng, t + i, 0));
  for (int i = 0; i < 200; ++i) d.Append("untimed", MakeRecord(Untimed(), rng, 0, -32768 + (i % 2) * 65535));
  d.AddString("omega");
  d.CheckPendingCounts();
  d.Commit();
  d.Reopen(Options(16384));  // the page size is the store's, whatever the options say
  CHECK(d.writer().page_size() == 4096);
  d.Append("events.noindex", MakeRecord(Events(), rng, 400, 1));
  d.Commit();
}

TEST_CASE("store writer: appends across many index levels keep every level whole") {
  // 40 aggregate fields: index entries of 1300 bytes, three to a page; 324-byte records, twelve.
  Fields fields{{"t", FieldType::kI32}};
  std::vector<std::string> aggs;
  for (int i = 0; i < 40; ++i) {
    fields.emplace_back(fmt::format("f{}", i), i % 4 == 0 ? FieldType::kF64 : FieldType::kI64);
    aggs.push_back(fmt::format("f{}", i));
  }
  const Schema deep = Schema::Fixed(fields, aggs, "t");
  REQUIRE(PageCapacity(4096, IndexEntry::Width(deep)) == 3);
  REQUIRE(PageCapacity(4096, deep.record_width()) == 12);
  Driver d(Options(4096, 5));
  std::mt19937_64 rng(2);
  d.CreateArray("deep", deep);
  d.CreateArray("plain", Plain());
  int64_t t = 0;
  for (int i = 0; i < 3300; ++i) {
    d.Append("deep", MakeRecord(deep, rng, t += rng() % 2, 0));
    if (i % 5 == 0) d.Append("plain", MakeRecord(Plain(), rng, 0, 0));
    // Commits at every 12 * 3^k records put right edges at the boundaries of each level.
    if (i % 251 == 0 || i == 12 * 3 * 3 * 3 - 1 || i == 12 * 81 - 1) d.Commit();
    if (i == 2000) d.Reopen(Options(4096, 5));
  }
  d.Commit();
  // Level L + 1 has one entry per full page of level L, up to a top level with no full page.
  uint64_t entries = d.model().Named("deep").records.size();
  size_t levels = 1;
  for (uint64_t full = entries / 12; full > 0; full = entries / 3) {
    entries = full;
    ++levels;
  }
  CHECK(levels == 7);
  CHECK(d.Levels("deep") == levels);
  d.Reopen(Options(4096, 2));
  for (int i = 0; i < 100; ++i) d.Append("deep", MakeRecord(deep, rng, t + i, 0));
  d.Commit();
}

TEST_CASE("store writer: strings of every length across heap pages read back") {
  Driver d(Options(4096, 2));
  std::mt19937_64 rng(3);
  const uint32_t cap = PageCapacity(4096, 1);
  auto text = [&](size_t n) {
    std::string s(n, ' ');
    for (char& c : s) c = static_cast<char>('a' + rng() % 26);
    return s;
  };
  for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{4}, size_t{cap - 8}, size_t{cap - 4}, size_t{cap},
                   size_t{cap + 1}, size_t{3 * cap + 5}}) {
    d.AddString(text(n));
  }
  d.Commit();
  d.AddString(text(70000));
  d.CreateArray("names", Schema::Fixed({{"ref", FieldType::kU64}}, {}));
  for (int i = 0; i < 2000; ++i) {
    const StringRef ref = d.AddString(text(rng() % 40));
    Record r(8);
    StoreLe<uint64_t>(r.data(), ref.Pack());
    d.Append("names", r);
    if (i % 700 == 0) d.Commit();
  }
  d.Commit();
  d.AddString("dropped by the reopen");
  d.Reopen(Options(4096, 2));
  d.AddString(text(cap));
  d.AddString("after the reopen");
  d.Commit();
  // The records name their strings.
  const Model& m = d.model();
  std::map<uint64_t, std::string> by_ref;
  for (const auto& [ref, s] : m.strings) by_ref[ref.Pack()] = s;
  for (const Record& r : m.arrays.front().records) CHECK(by_ref.count(LoadLe<uint64_t>(r.data())) == 1);
}

TEST_CASE("store writer: pages sealed on the seal thread make the same file as sealed on the writer's thread") {
  // Many processes fill pages at once; deferred entries go up once their pages are placed and at commits. The
  // files match after the superblocks (which hold the commit time).
  const Schema s =
      Schema::Fixed({{"t", FieldType::kI64}, {"p", FieldType::kI64}, {"v", FieldType::kF64}}, {"v"}, "t", "p");
  std::vector<std::vector<std::byte>> files;
  for (const bool threaded : {true, false}) {
    StoreOptions o = Options(4096, 8);
    o.seal_thread = threaded;
    Driver d(o);
    std::mt19937_64 rng(9);
    d.CreateArray("ranks", s);
    int64_t t = 0;
    for (size_t i = 0; i < 60000; ++i) {
      d.Append("ranks", MakeRecord(s, rng, t += rng() % 3, static_cast<int64_t>(rng() % 16)));
      if (i == 20000 || i == 20001 || i == 45000) d.Commit();
    }
    d.Commit();
    files.push_back(d.disk().Contents());
  }
  REQUIRE(files[0].size() == files[1].size());
  CHECK(files[0].size() > 4096 * 100);
  CHECK(std::equal(files[0].begin() + 2 * 4096, files[0].end(), files[1].begin() + 2 * 4096));
}

TEST_CASE("store writer: many processes with negative and large ids get per-process arrays and a process tree") {
  const Schema s =
      Schema::Fixed({{"t", FieldType::kI64}, {"p", FieldType::kI64}, {"v", FieldType::kI64}}, {"v"}, "t", "p");
  std::vector<int64_t> processes;
  for (int64_t p = 0; p < 300; ++p) processes.push_back(p * 3);  // dense, with gaps
  for (int64_t p : {int64_t{-1}, int64_t{-2}, int64_t{-65536}, INT64_MIN, int64_t{65535}, int64_t{65536},
                    int64_t{65537}, int64_t{1} << 40, INT64_MAX}) {
    processes.push_back(p);
  }
  for (int64_t k = 0; k < 60; ++k) processes.push_back(100000 + 17 * k);
  Driver d(Options(4096, 4));
  std::mt19937_64 rng(4);
  d.CreateArray("ranks", s);
  int64_t t = 0;
  for (size_t i = 0; i < 3000; ++i) {
    // Every process at least once, then a random one, and process 21 often enough to fill pages.
    const int64_t p = i < processes.size() ? processes[i] : (i % 4 == 0 ? 21 : processes[rng() % processes.size()]);
    d.Append("ranks", MakeRecord(s, rng, t += rng() % 3, p));
    if (i == 1000) d.Commit();
  }
  d.Commit();
  // 369 processes at 78 entries per page: a process tree of two levels.
  const Catalogue cat = d.writer().Pending();
  CHECK(cat.Find("ranks")->process_levels == 2);
  size_t per_process = 0;
  for (const ArrayDesc& a : cat.arrays) per_process += a.per_process() ? 1 : 0;
  CHECK(per_process == processes.size());
  d.Reopen(Options(4096, 4));
  for (size_t i = 0; i < 600; ++i) {
    const int64_t p = i % 3 == 0 ? -1000 - static_cast<int64_t>(i) : processes[rng() % processes.size()];
    d.Append("ranks", MakeRecord(s, rng, t += rng() % 3, p));
  }
  d.Commit();
  d.Reopen(Options(4096, 4));
  d.Commit();  // nothing changed: the process tree is kept as it is
}

TEST_CASE("store writer: an array of one process keeps no copy until another comes, then its records are copied") {
  // The copy reads the array's full pages back from wherever they are: committed in the file, sealed
  // since (in the pack's buffered slots, or still on the seal thread), then its open page.
  for (const bool thread : {false, true}) {
    CAPTURE(thread);
    StoreOptions o = Options(4096, 2);
    o.seal_thread = thread;
    Driver d(o);
    std::mt19937_64 rng(9);
    for (const char* name : {"solo", "brief", "edge", "one"}) d.CreateArray(name, Events());
    const uint32_t cap = PageCapacity(4096, 32);
    int64_t t = 0;
    for (uint32_t i = 0; i < 3 * cap + 10; ++i) d.Append("solo", MakeRecord(Events(), rng, t++, 5));
    for (uint32_t i = 0; i < cap / 2; ++i) d.Append("brief", MakeRecord(Events(), rng, t++, -3));
    for (uint32_t i = 0; i < cap; ++i) d.Append("edge", MakeRecord(Events(), rng, t++, 4));
    d.Commit();
    auto copies = [&] {
      std::map<std::string, std::vector<int64_t>> out;
      const Catalogue cat = d.writer().Pending();
      for (const ArrayDesc& a : cat.arrays) {
        if (a.per_process()) out[cat.Get(a.parent)->name].push_back(a.process);
      }
      return out;
    };
    {
      const Catalogue cat = d.writer().Pending();
      CHECK(cat.Find("solo")->sole_process);
      CHECK(cat.Find("solo")->process == 5);
      CHECK(cat.Find("brief")->process == -3);
      CHECK_FALSE(cat.Find("one")->sole_process);  // no record yet
      CHECK(copies().empty());
    }
    d.Reopen(o);
    for (uint32_t i = 0; i < 2 * cap + 3; ++i) d.Append("solo", MakeRecord(Events(), rng, t++, 5));
    d.Append("solo", MakeRecord(Events(), rng, t++, 7));
    d.Append("brief", MakeRecord(Events(), rng, t++, 2));
    d.Append("edge", MakeRecord(Events(), rng, t++, 9));
    for (int i = 0; i < 100; ++i) d.Append("solo", MakeRecord(Events(), rng, t++, rng() % 2 == 0 ? 5 : 7));
    for (uint32_t i = 0; i < 2 * cap + 1; ++i) d.Append("one", MakeRecord(Events(), rng, t++, 0));
    d.Commit();
    const auto after = copies();
    CHECK(after.at("solo") == std::vector<int64_t>{5, 7});
    CHECK(after.at("brief") == std::vector<int64_t>{-3, 2});
    CHECK(after.at("edge") == std::vector<int64_t>{4, 9});
    CHECK(after.count("one") == 0);
    d.Reopen(o);
    d.Append("one", MakeRecord(Events(), rng, t++, 1));
    d.Commit();
  }
}

TEST_CASE("store writer: copying a sole array reads the page map without rewriting the leaves it read") {
  Driver d(Options(4096, 2));
  std::mt19937_64 rng(3);
  d.CreateArray("solo", Events());
  const uint32_t cap = PageCapacity(4096, 32);
  int64_t t = 0;
  // 800 full pages: their ids fill the first two page-map leaves and more.
  for (uint32_t i = 0; i < 800 * cap; ++i) d.Append("solo", MakeRecord(Events(), rng, t++, 5));
  d.Commit();
  const std::vector<PageId> before = d.writer().Pending().map_leaves;
  REQUIRE(before.size() >= 3);
  d.Append("solo", MakeRecord(Events(), rng, t++, 6));  // the copy reads back all 800 pages
  d.Commit();
  const std::vector<PageId> after = d.writer().Pending().map_leaves;
  REQUIRE(after.size() >= before.size());
  // The leaves of the full pages read back are where they were; the copy's new ids are in new leaves.
  CHECK(after[0] == before[0]);
  CHECK(after[1] == before[1]);
  d.Reopen(Options(4096, 2));
}

TEST_CASE("store: a sole-process array in a store that says version 6 is refused, naming the array") {
  auto disk = std::make_shared<MemDisk>();
  {
    auto w = StoreWriter::Create(std::make_unique<MemFile>(kFile, disk), Options());
    REQUIRE(w.ok());
    const Result<ArrayId> id = (*w)->CreateArray("solo", Events());
    REQUIRE(id.ok());
    std::mt19937_64 rng(3);
    for (int i = 0; i < 10; ++i) REQUIRE((*w)->Append(*id, MakeRecord(Events(), rng, i, 4)).ok());
    REQUIRE((*w)->Commit().ok());
    REQUIRE((*w)->Commit().ok());  // both superblock slots name a generation with it
  }
  {
    auto store = Store::Open(std::make_unique<MemFile>(kFile, disk));
    REQUIRE(store.ok());
    CHECK((*store)->catalogue().Find("solo")->sole_process);
  }
  MemFile f(kFile, disk);
  for (uint64_t slot : {0u, 4096u}) {
    std::array<std::byte, format::kSuperblockSize> b{};
    REQUIRE(ReadExact(f, slot, b).ok());
    Result<Superblock> sb = Superblock::Decode(b, "t");
    REQUIRE(sb.ok());
    sb->version = 6;
    const auto v6 = sb->Encode();
    REQUIRE(f.WriteAt(slot, v6).ok());
  }
  auto store = Store::Open(std::make_unique<MemFile>(kFile, disk));
  REQUIRE_FALSE(store.ok());
  CHECK(store.error().code() == ErrorCode::kCorrupt);
  CHECK(store.error().message().find("array 'solo' is of a sole process (flags bit 1), which a version 6 store "
                                     "cannot hold") != std::string::npos);
}

// Lends a FaultFile that the test keeps, so that its log outlives a writer that failed and went away.
class LentFile final : public File {
 public:
  explicit LentFile(FaultFile& f) : f_(f) {}
  const std::string& name() const override { return f_.name(); }
  Result<size_t> ReadAt(uint64_t o, std::span<std::byte> out) override { return f_.ReadAt(o, out); }
  Status WriteAt(uint64_t o, std::span<const std::byte> d) override { return f_.WriteAt(o, d); }
  Status Sync() override { return f_.Sync(); }
  Result<uint64_t> Size() override { return f_.Size(); }
  Status Truncate(uint64_t n) override { return f_.Truncate(n); }

 private:
  FaultFile& f_;
};

// The fault scenario: a new store, an array with a process index, records across pages (of one
// process alone, then with dense, negative and large process ids), a string across pages and
// three commits, over a
// FaultFile that fails call `plan.fail_call`. Returns the first error (or Ok), the models of the
// generations whose commits were attempted, and the file calls made.
struct FaultOutcome {
  Status status;
  std::map<uint64_t, Model> models;  // by generation
  std::vector<FaultFile::Call> log;
};

FaultOutcome RunFaultScenario(const std::shared_ptr<MemDisk>& disk, FaultFile::Plan plan) {
  FaultOutcome out;
  Model model;
  out.models[1] = out.models[2] = model;
  std::mt19937_64 rng(5);
  auto faults = std::make_unique<FaultFile>(std::make_unique<MemFile>(kFile, disk), plan);
  auto writer = StoreWriter::Create(std::make_unique<LentFile>(*faults), Options(4096, 2));
  if (!writer.ok()) {
    out.status = writer.error();
    out.log = faults->log();
    return out;
  }
  StoreWriter& w = **writer;
  // After an error every call fails with kFailed, CheckInvariants() included; until then it holds.
  auto step = [&](Status s) -> bool {
    if (s.ok()) {
      Status inv = w.CheckInvariants();
      REQUIRE_MESSAGE(inv.ok(), Why(inv));
      return true;
    }
    out.status = s;
    out.log = faults->log();
    CHECK(w.CheckInvariants().error().code() == ErrorCode::kFailed);
    CHECK(w.Append(ArrayId(1), Record(32)).error().code() == ErrorCode::kFailed);
    CHECK(w.AddString("x").error().code() == ErrorCode::kFailed);
    CHECK(w.CreateArray("other", Plain()).error().code() == ErrorCode::kFailed);
    CHECK(w.Commit().error().code() == ErrorCode::kFailed);
    return false;
  };
  auto append = [&](int n, int64_t p0, int spread) -> Status {
    for (int i = 0; i < n; ++i) {
      ModelArray& a = model.arrays.front();
      Record r = MakeRecord(a.schema, rng, static_cast<int64_t>(a.records.size()), p0 + i % spread);
      XTFQ_TRY(w.Append(a.id, r));
      Status inv = w.CheckInvariants();
      REQUIRE_MESSAGE(inv.ok(), Why(inv));
      a.records.push_back(std::move(r));
    }
    return Ok();
  };
  auto commit = [&]() -> Status {
    out.models[w.generation() + 1] = model;  // recorded first: the commit may land and then fail
    return w.Commit();
  };
  Result<ArrayId> id = w.CreateArray("events", Events());
  if (!step(id.ok() ? Ok() : Status(id.error()))) return out;
  model.arrays.push_back(ModelArray{"events", Events(), *id, true, {}});
  // Process 0 alone over two pages and a commit, then two more pages: the first record of process
  // 70000 copies them all, from the file and from the pack's buffer.
  if (!step(append(300, 0, 1))) return out;
  Result<StringRef> ref = w.AddString(std::string(5000, 'q'));
  if (!step(ref.ok() ? Ok() : Status(ref.error()))) return out;
  model.strings.emplace_back(*ref, std::string(5000, 'q'));
  if (!step(commit())) return out;
  if (!step(append(250, 0, 1))) return out;
  if (!step(append(200, 70000, 5))) return out;
  if (!step(commit())) return out;
  if (!step(append(150, -3, 5))) return out;
  if (!step(commit())) return out;
  out.log = faults->log();
  return out;
}

// The disk holds generation `gen` (or gen + 1 when `maybe_next`), exactly as modelled.
void CheckFaultDisk(const std::shared_ptr<MemDisk>& disk, const FaultOutcome& o, uint64_t gen, bool maybe_next) {
  auto store = Store::Open(std::make_unique<MemFile>(kFile, disk));
  if (!store.ok()) {
    CHECK_MESSAGE(gen == 0, store.error().message());
    return;
  }
  const uint64_t g = (*store)->generation();
  REQUIRE_MESSAGE((g == gen || (maybe_next && g == gen + 1)), "generation " << g << ", expected " << gen);
  REQUIRE(o.models.count(g) == 1);
  Verify(**store, o.models.at(g));
  // A writer continues from there: at once, unless a torn superblock write left the slot of the
  // generation after it damaged (the store may have been rolled back: docs/format.md,
  // invariant 10), which needs allow_rollback.
  const bool rolled_back = (*store)->Rollback().has_value();
  store = Error(ErrorCode::kFailed, "closed");
  StoreOptions options = Options(4096, 2);
  auto refused = StoreWriter::Open(std::make_unique<MemFile>(kFile, disk), options);
  CHECK(refused.ok() != rolled_back);
  refused = Error(ErrorCode::kFailed, "closed");
  options.allow_rollback = true;
  auto w = StoreWriter::Open(std::make_unique<MemFile>(kFile, disk), options);
  REQUIRE_MESSAGE(w.ok(), Why(w));
  Status inv = (*w)->CheckInvariants();
  REQUIRE_MESSAGE(inv.ok(), Why(inv));
  REQUIRE((*w)->AddString("again").ok());
  REQUIRE((*w)->Commit().ok());
  inv = (*w)->CheckInvariants();
  REQUIRE_MESSAGE(inv.ok(), Why(inv));
}

TEST_CASE("store writer: an I/O failure at any file call leaves the writer failed and the file at its last commit") {
  auto clean_disk = std::make_shared<MemDisk>();
  const FaultOutcome clean = RunFaultScenario(clean_disk, FaultFile::Plan{});
  REQUIRE_MESSAGE(clean.status.ok(), Why(clean.status));
  CheckFaultDisk(clean_disk, clean, 5, false);
  test::SweepFaults(4096, {test::FaultMode::kEio, test::FaultMode::kTorn}, 20, RunFaultScenario,
                    [](const std::shared_ptr<MemDisk>& disk, const FaultOutcome& o, const test::SweepPoint& p) {
                      CHECK_MESSAGE(o.status.error().code() == ErrorCode::kIo, o.status.error().message());
                      CheckFaultDisk(disk, o, p.generation, p.maybe_next);
                    });
}

}  // namespace
}  // namespace xtfq
