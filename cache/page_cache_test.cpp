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

// An in-memory source of `n` sealed plain pages whose payload is id * 7 + 1, and as many chain
// pages whose payload is id * 7 + 2. It verifies what it hands out, as real sources do.
class FakeSource final : public PageSource {
 public:
  FakeSource(uint32_t n, uint32_t page_size) : page_size_(page_size), pages_(n), chain_(n) {
    for (uint32_t i = 0; i < n; ++i) {
      for (auto* v : {&pages_, &chain_}) {
        auto& page = (*v)[i];
        page.resize(page_size);
        PageHeader h;
        h.page_id = h.logical = PageId(i);
        h.entry_count = 1;
        h.Encode(page.data());
        StoreLe<uint32_t>(page.data() + format::kPageHeaderSize, i * 7 + (v == &pages_ ? 1 : 2));
        SealPage(page);
      }
    }
  }
  const std::string& name() const override { return name_; }
  uint32_t page_size() const override { return page_size_; }
  uint32_t page_count() const override { return static_cast<uint32_t>(pages_.size()); }
  Result<const std::byte*> Load(PageKey key, Location, std::span<std::byte> out) override {
    ++reads;
    const uint32_t id = key.id().value;
    if (id >= pages_.size()) return Error(ErrorCode::kCorrupt, fmt::format("fake: page {} is beyond the last", id));
    std::memcpy(out.data(), (key.chain() ? chain_ : pages_)[id].data(), page_size_);
    XTFQ_TRY(VerifyPage(out, key.id(), name_));
    return out.data();
  }
  void Corrupt(uint32_t id) { pages_[id][100] ^= std::byte{1}; }
  std::atomic<uint64_t> reads{0};

 private:
  std::string name_ = "fake";
  uint32_t page_size_;
  std::vector<std::vector<std::byte>> pages_;
  std::vector<std::vector<std::byte>> chain_;
};

PageKey P(uint32_t id) { return PageKey::Plain(PageId(id)); }

uint32_t Payload(const PageRef& r) { return LoadLe<uint32_t>(r.data() + format::kPageHeaderSize); }

TEST_CASE("cache: exact hit and miss and eviction counts for a scripted LRU pattern") {
  FakeSource src(10, 4096);
  PageCache cache(src, 3 * 4096);
  auto touch = [&](uint32_t id) {
    Result<PageRef> r = cache.Fetch(P(id));
    REQUIRE(r.ok());
    CHECK(Payload(*r) == id * 7 + 1);
  };
  touch(1);
  touch(2);
  touch(3);  // 3 misses, LRU order (most recent first): 3 2 1
  touch(1);  // hit: 1 3 2
  touch(4);  // miss, evicts 2: 4 1 3
  CHECK_FALSE(cache.Resident(P(2)));
  touch(3);  // hit: 3 4 1
  touch(2);  // miss, evicts 1: 2 3 4
  CHECK_FALSE(cache.Resident(P(1)));
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
  for (uint32_t id : {5, 6, 7}) pins.push_back(std::move(*cache.Fetch(P(id))));
  CHECK(cache.resident_pages() == 3);  // over budget: every page is pinned
  CHECK(cache.CheckInvariants().ok());
  for (uint32_t id = 10; id < 60; ++id) {  // churn through other pages
    Result<PageRef> r = cache.Fetch(P(id));
    REQUIRE(r.ok());
    CHECK(Payload(*r) == id * 7 + 1);
    CHECK(cache.CheckInvariants().ok());
  }
  for (size_t i = 0; i < pins.size(); ++i) {
    CHECK(cache.Resident(P(5 + i)));
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
  PageRef a = std::move(*cache.Fetch(P(1)));
  PageRef b = std::move(*cache.Fetch(P(1)));
  CHECK(cache.stats().hits == 1);
  a.Reset();
  {
    auto other = cache.Fetch(P(2));
    REQUIRE(other.ok());
  }
  CHECK(cache.Resident(P(1)));
  b.Reset();
  {
    auto other = cache.Fetch(P(3));
    REQUIRE(other.ok());
  }
  CHECK_FALSE(cache.Resident(P(1)));
  CHECK(cache.CheckInvariants().ok());
}

TEST_CASE("cache: a page that fails its checksum is an error naming it and never enters") {
  FakeSource src(8, 4096);
  src.Corrupt(4);
  PageCache cache(src, 8 * 4096);
  Result<PageRef> r = cache.Fetch(P(4));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code() == ErrorCode::kCorrupt);
  CHECK(r.error().message().find("page 4") != std::string::npos);
  CHECK(r.error().message().find("checksum") != std::string::npos);
  CHECK_FALSE(cache.Resident(P(4)));
  Result<PageRef> beyond = cache.Fetch(P(8));
  REQUIRE_FALSE(beyond.ok());
  CHECK(beyond.error().message().find("page 8") != std::string::npos);
  CHECK(cache.CheckInvariants().ok());
}

TEST_CASE("cache: slot 5 and chain page 5 are different frames") {
  FakeSource src(8, 4096);
  PageCache cache(src, 8 * 4096);
  Result<PageRef> plain = cache.Fetch(P(5));
  REQUIRE(plain.ok());
  Result<PageRef> chain = cache.Fetch(PageKey::Chain(PageId(5)));
  REQUIRE(chain.ok());
  CHECK(Payload(*plain) == 5 * 7 + 1);
  CHECK(Payload(*chain) == 5 * 7 + 2);
  CHECK(cache.stats().misses == 2);
  CHECK(cache.Resident(PageKey::Chain(PageId(5))));
  CHECK_FALSE(cache.Resident(PageKey::Chain(PageId(4))));
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
        Result<PageRef> r = cache.Fetch(P(id));
        if (!r.ok()) {
          ++failed;
          continue;
        }
        if (Payload(*r) != id * 7 + 1 || r->key() != P(id)) ++wrong;
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
