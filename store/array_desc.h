// ArrayDesc: one typed record array of the catalogue (docs/format.md, "Array descriptor").
//
// Level 0 is the chain of data pages holding the records in append order; levels 1 and up are the
// TN tree's index pages. An array with a process index has per-process arrays (parent != 0: the
// same records of one process, same schema, no name) and a process tree rooted at process_root
// (docs/format.md, "P index"). While all its records are of one process (sole_process), it keeps
// no copy: its process tree's one entry names the array itself, and `process` is that process.
//
// Thread-safety: value type.
#pragma once

#include <cstdint>
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
  ArrayId parent;                  // 0: an array of its own
  int64_t process = 0;             // a per-process array's process id; a sole-process array's process
  bool process_index = false;      // keeps per-process arrays and a process tree
  bool sole_process = false;       // with process_index: every record is of `process`, no copy kept
  PageId process_root;             // root page of the process tree (0: none yet)
  uint16_t process_levels = 0;     // its height
  Location process_root_location;  // where the root is stored (unstored: no tree)

  uint64_t record_count() const { return levels[0].entries; }
  bool per_process() const { return parent.value != 0; }
  // Whether `a`, found through this array's P index for process `p`, holds that process's records:
  // its per-process array, or the array itself while it is of that process alone.
  bool HoldsProcess(const ArrayDesc& a, int64_t p) const {
    return a.process == p && (a.parent == id || (a.id == id && sole_process));
  }
  // In memory, a per-process array is called "<parent name>[process <p>]" (ProcessArrayName); on
  // disk it has no name.
  static std::string ProcessArrayName(std::string_view parent, int64_t process) {
    return std::string(parent) + "[process " + std::to_string(process) + "]";
  }
};

}  // namespace xtfq
