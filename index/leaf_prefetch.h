// LeafPrefetch: reads a list of pages on a second thread, in order, at most kDepth ahead of the
// thread that uses them (TnTree::Scan: a pass over every record of an array, as the grid builder
// makes twice). Each page is loaded straight from the PageSource (checked and decoded there, not
// cached: a scan would only evict what queries keep), so reading, checksums and decoding overlap
// with the caller's work on the pages before. When the caller reaches a page the helper has not
// started, it loads that page itself rather than wait: on two cores both threads decode.
//
// Thread-safety: Next() from one thread; the helper thread only calls PageSource::Load, which is
// safe from several threads. Pages are claimed through one counter, so each is loaded once.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include "store/location.h"
#include "store/page_key.h"
#include "store/page_source.h"
#include "store/result.h"

namespace xtfq {

class LeafPrefetch {
 public:
  static constexpr uint64_t kDepth = 16;
  struct Want {
    PageKey key;
    Location hint;
  };

  LeafPrefetch(PageSource& source, std::vector<Want> pages);
  ~LeafPrefetch();
  LeafPrefetch(const LeafPrefetch&) = delete;
  LeafPrefetch& operator=(const LeafPrefetch&) = delete;

  // The next page of the list (page_size() bytes, valid until the next call), or its load error.
  // REQUIRES: fewer calls than pages.
  Result<const std::byte*> Next();

 private:
  struct Slot {
    std::vector<std::byte> buffer;
    const std::byte* data = nullptr;
    std::optional<Error> error;
    std::atomic<uint64_t> done{0};  // 1 + the page loaded into it
  };
  void Work();
  // Loads page i into its slot and marks it done; whether it loaded.
  bool Load(uint64_t i);

  PageSource& source_;
  std::vector<Want> pages_;
  std::vector<Slot> slots_;           // kDepth, page i at i % kDepth
  std::atomic<uint64_t> claimed_{0};  // pages 0..claimed_-1 are taken by one thread or the other
  std::atomic<uint64_t> used_{0};     // pages handed out and done with (by Next)
  std::atomic<bool> stop_{false};
  uint64_t next_ = 0;  // the page Next() hands out
  std::thread worker_;
};

}  // namespace xtfq
