#include "store/index_entry.h"

#include "store/child_ref.h"
#include "store/endian.h"
#include "store/format.h"

namespace xtfq {

namespace f = format;

void IndexEntry::Encode(std::byte* p) const {
  StoreLe<int64_t>(p + f::kIeKey, key);
  StoreLe<uint64_t>(p + f::kIeCount, summary.count);
  StoreLe<uint64_t>(p + f::kIeChildLocation, child_location.Pack());
  StoreLe<uint32_t>(p + f::kIeChild, child.value);
  summary.EncodeFields(p + f::kIndexEntryFixedSize);
}

void IndexEntry::Decode(const std::byte* p) {
  key = LoadLe<int64_t>(p + f::kIeKey);
  summary.count = LoadLe<uint64_t>(p + f::kIeCount);
  const ChildRef c = ChildRef::Of(p);
  child = c.id;
  child_location = c.where;
  summary.DecodeFields(p + f::kIndexEntryFixedSize);
}

IndexEntry IndexEntry::DecodeFor(const Schema& schema, const std::byte* p) {
  IndexEntry e;
  e.summary = Summary(schema);
  e.Decode(p);
  return e;
}

}  // namespace xtfq
