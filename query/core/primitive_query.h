// PrimitiveQuery: the XTF primitives Search, Size and Next of `xtfq search|size|next`, asked of one
// array with a window as the command line gives it: --time as query/core/time_window.h parses it,
// or a record number; a process window (Size), or one process to follow (Search and Next, over
// that process's own array from the P index).
//
// Thread-safety: one thread at a time (shares the reader's cache).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "query/core/primitives.h"
#include "query/core/store_reader.h"

namespace xtfq {

enum class PrimitiveOp : uint8_t { kSearch = 0, kSize = 1, kNext = 2 };

struct PrimitiveRequest {
  PrimitiveOp op = PrimitiveOp::kSearch;
  std::optional<std::string> time;  // Size: T1:T2; Search, Next: T
  std::optional<uint64_t> record;   // Search, Next: record N instead of a time
  int64_t offset = 1;               // Next: positions to move (negative: back)
  std::string ranks;                // Size: R1:R2; Search, Next: R:R+1 (one process)
  bool scan = false;                // read every record instead of the index
};

struct PrimitiveAnswer {
  uint64_t count = 0;              // Size
  Cursor cursor;                   // Search, Next
  uint64_t records = 0;            // records of the array followed (the process's own with one process)
  std::optional<int64_t> process;  // the process followed
  std::string process_field;       // its field's name ("rank", "target")
};

class PrimitiveQuery {
 public:
  // kUsage on a malformed window, a process window over an array without a process field, a
  // process window that is not one process (Search, Next), or --scan with one process;
  // kInvalidArgument when Search or Next is given neither a time nor a record.
  static Result<PrimitiveAnswer> Run(StoreReader& reader, const ArrayDesc& array, const PrimitiveRequest& request);
  static std::string_view Name(PrimitiveOp op);
};

}  // namespace xtfq
