// StoreReader: an opened store ready for queries: the committed snapshot (Store), a page source
// for the chosen backend and the page cache over it.
//
// Thread-safety: the cache may be shared by several reader threads; each thread uses its own
// cursors.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "cache/page_cache.h"
#include "index/chain_cursor.h"
#include "query/core/time_window.h"
#include "store/record_source.h"
#include "store/store.h"

namespace xtfq {

struct ReaderOptions {
  Backend backend = Backend::kPread;
  size_t cache_bytes = size_t{256} << 20;
};

class StoreReader final : public RecordSource {
 public:
  static Result<std::unique_ptr<StoreReader>> Open(const std::string& path, ReaderOptions options = {});
  static Result<std::unique_ptr<StoreReader>> Open(std::unique_ptr<File> file, ReaderOptions options = {});

  Store& store() { return *store_; }
  PageCache& cache() { return *cache_; }
  // The array called `name`; ErrorCode::kNotFound lists the arrays there are.
  Result<const ArrayDesc*> Array(std::string_view name) const;
  // A cursor over the records of `array` in append order.
  ChainCursor Records(const ArrayDesc& array);
  // Calls fn with each record of `array` in append order; stops at fn's first error.
  Status ForEach(const ArrayDesc& array, const std::function<Status(const std::byte*)>& fn);
  Result<std::string> String(StringRef ref) override;
  // The time frame of a raw array: its first and last record's times, in ns unless it is a
  // job_stats or Slurm array (the epoch frame, seconds); 0 and 0 for an empty array or one without
  // a time field.
  Result<TimeFrame> Frame(const ArrayDesc& array);
  // RecordSource: the committed catalogue; records by position through the array's TN tree.
  const Catalogue& catalogue() const override { return store_->catalogue(); }
  Status ForEachAt(const ArrayDesc& array, uint64_t first, uint64_t last,
                   const std::function<Result<bool>(const std::byte*)>& fn) override;
  // ForEachAt for a pass over many pages: read ahead on a second thread, not cached (TnTree::Scan),
  // unless set_read_ahead(false) (then ForEachAt).
  Status ScanAt(const ArrayDesc& array, uint64_t first, uint64_t last,
                const std::function<Result<bool>(const std::byte*)>& fn);
  void set_read_ahead(bool on) { read_ahead_ = on; }

 private:
  StoreReader() = default;

  std::unique_ptr<Store> store_;
  std::unique_ptr<PageSource> source_;
  std::unique_ptr<PageCache> cache_;
  bool read_ahead_ = true;
};

}  // namespace xtfq
