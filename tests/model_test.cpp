// The model test: random sequences of array creations, appends, strings, commits and writer
// restarts; after every commit the store is reopened and compared record by record with the
// model. One harness runs over every backend, cache budget and page size.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <random>

#include "store/store_checker.h"
#include "tests/store_model.h"
#include "tests/temp_dir.h"
#include "tests/why.h"

namespace xtfq::test {
namespace {

struct Config {
  Backend backend;
  size_t cache_pages;  // 0: unlimited
  uint32_t page_size;
  Codec codec = Codec::kLz4;
};

// Runs one random sequence; adds the full pages the checker read, by codec, to `stored`.
void RunModel(const Config& cfg, uint64_t seed, uint64_t* stored) {
  TempDir dir;
  const std::string path = dir.File("model.xtfq");
  StoreOptions opts;
  opts.page_size = cfg.page_size;
  opts.write_batch_pages = 4;
  opts.codec = cfg.codec;
  auto writer = StoreWriter::CreatePath(path, opts);
  REQUIRE(writer.ok());
  std::mt19937_64 rng(seed);
  const auto schemas = TestSchemas();
  StoreModel model;      // what is appended, committed or not
  StoreModel committed;  // what the last commit made durable
  ReaderOptions ropts;
  ropts.backend = cfg.backend;
  ropts.cache_bytes = cfg.cache_pages == 0 ? PageCache::kUnlimited : cfg.cache_pages * cfg.page_size;

  for (int step = 0; step < 60; ++step) {
    const int op = static_cast<int>(rng() % 100);
    if (op < 5 && model.arrays.size() < schemas.size()) {
      const auto& [name, schema] = schemas[model.arrays.size()];
      Result<ArrayId> id = (*writer)->CreateArray(name, schema);
      REQUIRE(id.ok());
      CHECK((model.arrays.empty() || id->value > model.arrays.back().id.value));
      model.arrays.push_back(ModelArray{name, schema, {}, *id});
    } else if (op < 60 && !model.arrays.empty()) {
      const size_t a = rng() % model.arrays.size();
      ModelArray& m = model.arrays[a];
      // Sometimes exactly to a page boundary, sometimes across many pages.
      const uint32_t cap = PageCapacity(cfg.page_size, m.schema.record_width());
      const uint64_t n = (rng() % 4 == 0) ? cap - m.records.size() % cap : rng() % (3 * cap + 1);
      for (uint64_t i = 0; i < n; ++i) {
        auto r = StoreModel::MakeRecord(m.schema, seed, a, m.records.size());
        Status st = (*writer)->Append(m.id, r);
        if (!st.ok()) FAIL(st.error().message());
        m.records.push_back(std::move(r));
      }
    } else if (op < 70) {
      std::string s(rng() % 3 == 0 ? rng() % (3 * cfg.page_size) : rng() % 40, 'x');
      for (char& ch : s) ch = static_cast<char>('a' + rng() % 26);
      Result<StringRef> ref = (*writer)->AddString(s);
      REQUIRE(ref.ok());
      model.strings.emplace_back(*ref, s);
    } else if (op < 92) {
      REQUIRE((*writer)->Commit().ok());
      committed = model;
      auto reader = StoreReader::Open(path, ropts);
      REQUIRE(reader.ok());
      CHECK((*reader)->store().generation() == (*writer)->generation());
      CHECK(committed.Verify(**reader) == "");
      CHECK((*reader)->cache().CheckInvariants().ok());
      CHECK((*reader)->cache().pinned_pages() == 0);
      StoreChecker::Report rep = StoreChecker((*reader)->store()).Run();
      CHECK_MESSAGE(rep.ok(), Why(rep));
    } else {
      // The writer goes away without committing: what it appended since the last commit is gone.
      writer = Error(ErrorCode::kFailed, "closed");
      writer = StoreWriter::OpenPath(path, opts);
      REQUIRE(writer.ok());
      model = committed;
    }
    Status inv = (*writer)->CheckInvariants();
    CHECK_MESSAGE(inv.ok(), Why(inv));
  }
  REQUIRE((*writer)->Commit().ok());
  auto reader = StoreReader::Open(path, ropts);
  REQUIRE(reader.ok());
  CHECK(model.Verify(**reader) == "");
  StoreChecker::Report rep = StoreChecker((*reader)->store()).Run();
  CHECK_MESSAGE(rep.ok(), Why(rep));
  stored[0] += rep.stored_pages[format::kCodecNone];
  stored[1] += rep.stored_pages[format::kCodecLz4] + rep.stored_pages[format::kCodecLz4Typed] +
               rep.stored_pages[format::kCodecZstd] + rep.stored_pages[format::kCodecZstdTyped];
  // Every compressed page has the codec asked for (but an lz4 store's heap pages of text, which
  // may be zstd's: docs/format.md, "Stored pages"); format 5's columns codecs are never written.
  if (cfg.codec != Codec::kZstd) CHECK(rep.stored_pages[format::kCodecZstdTyped] == 0);
  if (cfg.codec == Codec::kNone) CHECK(rep.stored_pages[format::kCodecZstd] == 0);
  if (cfg.codec != Codec::kLz4)
    CHECK(rep.stored_pages[format::kCodecLz4] + rep.stored_pages[format::kCodecLz4Typed] == 0);
  CHECK(rep.stored_pages[format::kCodecLz4Columns] + rep.stored_pages[format::kCodecZstdColumns] == 0);
}

TEST_CASE("model: random appends and strings and commits and restarts over every backend and cache budget") {
  const std::vector<Config> configs = {
      {Backend::kPread, 1, 4096},
      {Backend::kPread, 16, 4096},
      {Backend::kPread, 0, 4096},
      {Backend::kMmap, 1, 4096},
      {Backend::kMmap, 16, 4096},
      {Backend::kMmap, 0, 4096},
      {Backend::kPread, 1, 65536},
      {Backend::kMmap, 16, 16384},
      {Backend::kPread, 1, 4096, Codec::kZstd},
      {Backend::kMmap, 16, 16384, Codec::kZstd},
      {Backend::kPread, 1, 4096, Codec::kNone},
      {Backend::kMmap, 16, 4096, Codec::kNone},
  };
  for (const Config& cfg : configs) {
    uint64_t stored[2] = {0, 0};
    for (uint64_t seed : {1, 2, 3}) {
      CAPTURE(static_cast<int>(cfg.backend));
      CAPTURE(cfg.cache_pages);
      CAPTURE(cfg.page_size);
      CAPTURE(CodecName(cfg.codec));
      CAPTURE(seed);
      RunModel(cfg, seed, stored);
    }
    // The runs decoded pages of the codec asked: with lz4 or zstd, both compressed pages
    // (low-entropy arrays) and raw pages (random words do not compress); with none, raw only.
    CAPTURE(CodecName(cfg.codec));
    if (cfg.codec != Codec::kZstd) CHECK(stored[0] > 0);  // zstd finds something to shrink in random words too
    if (cfg.codec != Codec::kNone) CHECK(stored[1] > 0);
    if (cfg.codec == Codec::kNone) CHECK(stored[1] == 0);
  }
}

}  // namespace
}  // namespace xtfq::test
