// RecordSink: where importers put what they decode. StoreWriter is the real sink; tests and fuzz
// targets use in-memory sinks, so importers never need the cache, the index or a file.
//
// Thread-safety: a sink is driven by one thread.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "store/ids.h"
#include "store/result.h"
#include "store/schema.h"

namespace xtfq {

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual Result<ArrayId> CreateArray(std::string_view name, const Schema& schema) = 0;
  // The array called `name` (created since the last commit or before), or nullopt.
  virtual std::optional<ArrayId> FindArrayId(std::string_view name) const = 0;
  // REQUIRES: record.size() == the array's record width.
  virtual Status Append(ArrayId array, std::span<const std::byte> record) = 0;
  virtual Result<StringRef> AddString(std::string_view s) = 0;
};

}  // namespace xtfq
