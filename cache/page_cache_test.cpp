#include "cache/page_cache.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <atomic>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "store/endian.h"
#include "store/format.h"
#include "store/page_header.h"

namespace xtfq {
namespace {

// An in-memory source of `n` sealed data pages whose payload starts with the page id.
class FakeSource final : public PageSource {
 public:
  FakeSource(uint32_t n, uint32_t page_size) : page_size_(page_size), pages_(n) {
    for (uint32_t i = 0; i < n; ++i) {
      pages_[i].resize(page_size);
      PageHeader h;
      h.page_id = h.logical = PageId(i);
      h.entry_count = 1;
      h.Encode(pages_[i].data());
      StoreLe<uint32_t>(pages_[i].data() + format::kPageHeaderSize, i * 7 + 1);
      SealPage(pages_[i]);
    }
  }
  const std::string& name() const override { return name_; }
  uint32_t page_size() const override { return page_size_; }
  uint32_t page_count() const override { return static_cast<uint32_t>(pages_.size()); }
  const std::byte* mapped() const override { return nullptr; }
  Status Read(PageId id, std::span<std::byte> out) override {
    ++reads;
    std::memcpy(out.data(), pages_[id.value].data(), page_size_);
    return Ok();
  }
  void Corrupt(uint32_t id) { pages_[id][100] ^= std::byte{1}; }
  std::atomic<uint64_t> reads{0};

 private:
  std::string name_ = "fake";
  uint32_t page_size_;
  std::vector<std::vector<std::byte>> pages_;
};

uint32_t Payload(const PageRef& r) { return LoadLe<uint32_t>(r.data() + format::kPageHeaderSize); }

TEST_CASE("cache: exact hit and miss and eviction counts for a scripted LRU pattern") {
  FakeSource src(10, 4096);
  PageCache cache(src, 3 * 4096);
  auto touch = [&](uint32_t id) {
    Result<PageRef> r = cache.Fetch(PageId(id));
    REQUIRE(r.ok());
    CHECK(Payload(*r) == id * 7 + 1);
  };
  touch(1);
  touch(2);
  touch(3);  // 3 misses, LRU order (most recent first): 3 2 1
  touch(1);  // hit: 1 3 2
  touch(4);  // miss, evicts 2: 4 1 3
  CHECK_FALSE(cache.Resident(PageId(2)));
  touch(3);  // hit: 3 4 1
  touch(2);  // miss, evicts 1: 2 3 4
  CHECK_FALSE(cache.Resident(PageId(1)));
  CacheStats s = cache.stats();
  CHECK(s.hits == 2);
  CHECK(s.misses == 5);
  CHECK(s.pages_read == 5);
  CHECK(s.evictions == 2);
  CHECK(src.reads == 5);
  CHECK(cache.resident_pages() == 3);
  CHECK(cache.CheckInvariants().ok());
}

TEST_CASE("cache: pinned pages are never evicted and stay valid under pressure") {
  FakeSource src(64, 4096);
  PageCache cache(src, 2 * 4096);
  std::vector<PageRef> pins;
  for (uint32_t id : {5, 6, 7}) pins.push_back(std::move(*cache.Fetch(PageId(id))));
  CHECK(cache.resident_pages() == 3);  // over budget: every page is pinned
  CHECK(cache.CheckInvariants().ok());
  for (uint32_t id = 10; id < 60; ++id) {  // churn through other pages
    Result<PageRef> r = cache.Fetch(PageId(id));
    REQUIRE(r.ok());
    CHECK(Payload(*r) == id * 7 + 1);
    CHECK(cache.CheckInvariants().ok());
  }
  for (size_t i = 0; i < pins.size(); ++i) {
    CHECK(cache.Resident(PageId(5 + i)));
    CHECK(Payload(pins[i]) == (5 + i) * 7 + 1);
  }
  CHECK(cache.pinned_pages() == 3);
  pins.clear();
  CHECK(cache.pinned_pages() == 0);
  CHECK(cache.resident_pages() == 2);  // back within the budget once the pins are gone
  CHECK(cache.CheckInvariants().ok());
}

TEST_CASE("cache: a page pinned twice stays until both pins are released") {
  FakeSource src(8, 4096);
  PageCache cache(src, 4096);
  PageRef a = std::move(*cache.Fetch(PageId(1)));
  PageRef b = std::move(*cache.Fetch(PageId(1)));
  CHECK(cache.stats().hits == 1);
  a.Reset();
  {
    auto other = cache.Fetch(PageId(2));
    REQUIRE(other.ok());
  }
  CHECK(cache.Resident(PageId(1)));
  b.Reset();
  {
    auto other = cache.Fetch(PageId(3));
    REQUIRE(other.ok());
  }
  CHECK_FALSE(cache.Resident(PageId(1)));
  CHECK(cache.CheckInvariants().ok());
}

TEST_CASE("cache: a page that fails its checksum is an error naming it and never enters") {
  FakeSource src(8, 4096);
  src.Corrupt(4);
  PageCache cache(src, 8 * 4096);
  Result<PageRef> r = cache.Fetch(PageId(4));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::kCorrupt);
  CHECK(r.error().message().find("page 4") != std::string::npos);
  CHECK(r.error().message().find("checksum") != std::string::npos);
  CHECK_FALSE(cache.Resident(PageId(4)));
  Result<PageRef> beyond = cache.Fetch(PageId(8));
  REQUIRE_FALSE(beyond.ok());
  CHECK(beyond.error().message().find("page 8") != std::string::npos);
  CHECK(cache.CheckInvariants().ok());
}

TEST_CASE("cache: several reader threads see the same pages as one thread") {
  FakeSource src(200, 4096);
  PageCache cache(src, 16 * 4096);
  constexpr int kThreads = 4, kFetches = 20000;
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<PageRef> held;
      for (int i = 0; i < kFetches; ++i) {
        const uint32_t id = rng() % 200;
        Result<PageRef> r = cache.Fetch(PageId(id));
        if (!r.ok()) {
          ++failed;
          continue;
        }
        if (Payload(*r) != id * 7 + 1 || r->id() != PageId(id)) ++wrong;
        if (rng() % 4 == 0) held.push_back(std::move(*r));
        if (held.size() > 3) held.erase(held.begin());
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(wrong == 0);
  CHECK(failed == 0);
  const CacheStats s = cache.stats();
  CHECK(s.hits + s.misses == uint64_t{kThreads} * kFetches);
  CHECK(s.pages_read == src.reads);
  CHECK(s.pages_read >= s.misses);
  CHECK(cache.pinned_pages() == 0);
  CHECK(cache.resident_pages() <= 16);
  CHECK(cache.CheckInvariants().ok());
}

}  // namespace
}  // namespace xtfq
