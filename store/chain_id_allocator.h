// ChainIdAllocator: the ids of chain pages (docs/format.md, "Two id spaces"). Ids are dense,
// 1..next()-1, handed out by a counter and never freed: chains only grow, and a committed reserved
// id always belongs to its chain. The catalogue records next() as `chain_ids`.
//
// Thread-safety: not thread-safe; owned by one StoreWriter.
#pragma once

#include <cstdint>
#include <string>

#include "store/format.h"
#include "store/ids.h"
#include "store/result.h"

namespace xtfq {

class ChainIdAllocator {
 public:
  ChainIdAllocator(std::string file, uint32_t next) : file_(std::move(file)), next_(next) {}

  Result<PageId> Next() {
    if (next_ == format::kMaxPages) {
      return Error(ErrorCode::kInvalidArgument, file_ + ": the store has run out of chain page ids");
    }
    return PageId(next_++);
  }
  uint32_t next() const { return next_; }

 private:
  std::string file_;
  uint32_t next_;
};

}  // namespace xtfq
