// RecordSource: read access to the committed records of a store by position, for layers that may
// not use the cache or the index themselves (an importer continuing what a store already holds).
// query/core/StoreReader is the real source; tests may use their own.
//
// Thread-safety: a source is driven by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "store/array_desc.h"
#include "store/catalogue.h"
#include "store/ids.h"
#include "store/result.h"

namespace xtfq {

class RecordSource {
 public:
  virtual ~RecordSource() = default;
  virtual const Catalogue& catalogue() const = 0;
  // Calls fn with records [first, last) of `array` (positions in append order) until fn returns
  // false or an error. REQUIRES: first <= last <= array.record_count().
  virtual Status ForEachAt(const ArrayDesc& array, uint64_t first, uint64_t last,
                           const std::function<Result<bool>(const std::byte*)>& fn) = 0;
  virtual Result<std::string> String(StringRef ref) = 0;
};

}  // namespace xtfq
