#include "store/index_entry.h"

#include "store/endian.h"
#include "store/format.h"

namespace xtfq {

namespace f = format;

void IndexEntry::Encode(std::byte* p) const {
  StoreLe<int64_t>(p + f::kIeKey, key);
  StoreLe<uint32_t>(p + f::kIeChild, child.value);
  StoreLe<uint64_t>(p + f::kIeCount, summary.count);
  summary.EncodeFields(p + f::kIndexEntryFixedSize);
}

void IndexEntry::Decode(const std::byte* p) {
  key = LoadLe<int64_t>(p + f::kIeKey);
  child = PageId(LoadLe<uint32_t>(p + f::kIeChild));
  summary.count = LoadLe<uint64_t>(p + f::kIeCount);
  summary.DecodeFields(p + f::kIndexEntryFixedSize);
}

IndexEntry IndexEntry::DecodeFor(const Schema& schema, const std::byte* p) {
  IndexEntry e;
  e.summary = Summary(schema);
  e.Decode(p);
  return e;
}

}  // namespace xtfq
