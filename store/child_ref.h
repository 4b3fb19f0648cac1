// ChildRef: a page a descent goes to next: its chain id, and where it is stored when the entry that
// leads to it says so (docs/format.md, "Index entry": `child`, `child_location`).
//
// Thread-safety: value type.
#pragma once

#include "store/endian.h"
#include "store/format.h"
#include "store/ids.h"
#include "store/location.h"

namespace xtfq {

struct ChildRef {
  PageId id;
  Location where;  // unstored: ask the chain descriptor (an open page) or the page map

  // The child of the encoded index entry at `entry`.
  static ChildRef Of(const std::byte* entry) {
    return ChildRef{PageId(LoadLe<uint32_t>(entry + format::kIeChild)),
                    Location::Unpack(LoadLe<uint64_t>(entry + format::kIeChildLocation))};
  }
};

}  // namespace xtfq
