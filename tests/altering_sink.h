// AlteringSink: a RecordSink that passes everything on to another but changes the n-th record
// appended to the array of one name (`alter` edits a copy of it): how the tests make summaries
// that do not match their records, for `xtfq check` to find.
//
// Thread-safety: one thread at a time, as the sink it wraps.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "store/record_sink.h"

namespace xtfq::test {

class AlteringSink final : public RecordSink {
 public:
  AlteringSink(RecordSink& to, std::string array, int nth, std::function<void(std::vector<std::byte>&)> alter)
      : to_(to), array_(std::move(array)), nth_(nth), alter_(std::move(alter)) {}
  Result<ArrayId> CreateArray(std::string_view name, const Schema& schema) override {
    auto id = to_.CreateArray(name, schema);
    if (id.ok() && name == array_) target_ = *id;
    return id;
  }
  std::optional<ArrayId> FindArrayId(std::string_view name) const override { return to_.FindArrayId(name); }
  Status Append(ArrayId array, std::span<const std::byte> record) override {
    if (!target_ || array != *target_ || ++seen_ != nth_) return to_.Append(array, record);
    std::vector<std::byte> r(record.begin(), record.end());
    alter_(r);
    return to_.Append(array, r);
  }
  Result<StringRef> AddString(std::string_view s) override { return to_.AddString(s); }

 private:
  RecordSink& to_;
  std::string array_;
  int nth_;
  std::function<void(std::vector<std::byte>&)> alter_;
  std::optional<ArrayId> target_;
  int seen_ = 0;
};

}  // namespace xtfq::test
