// ArrayDesc: one typed record array of the catalogue (docs/format.md, "Array descriptor").
//
// Level 0 is the chain of data pages holding the records in append order. Format version 1 has
// exactly one level; the index levels above it arrive with the B+tree.
//
// Thread-safety: value type.
#pragma once

#include <string>
#include <vector>

#include "store/chain_desc.h"
#include "store/ids.h"
#include "store/schema.h"

namespace xtfq {

struct ArrayDesc {
  ArrayId id;
  std::string name;
  Schema schema;
  std::vector<ChainDesc> levels{ChainDesc{}};

  uint64_t record_count() const { return levels[0].entries; }
};

}  // namespace xtfq
