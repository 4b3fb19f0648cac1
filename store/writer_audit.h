// WriterAudit: what StoreWriter::CheckInvariants() gathers from the writer's units, and the error
// that names a broken writer invariant (docs/format.md, "Writer invariants", W1 to W10).
//
// Each unit claims the slots it holds in memory (free, held for readers, pending free, committed
// catalogue, pack, page map) with Claim(), so that a slot claimed twice or outside
// 2..page_count-1 is reported (W5); and the chain ids of open pages, shadows and process-tree
// pages with ClaimId(), so that an id held twice or not yet handed out is reported (W10).
// Violation() formats any invariant's failure the same way: "FILE: writer invariant Wn: what".
//
// Invariants: every page in the audit was claimed once, with one role, and lies in
// 2..page_count-1.
//
// Thread-safety: a value used by one CheckInvariants() call.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "store/ids.h"
#include "store/result.h"

namespace xtfq {

class WriterAudit {
 public:
  // Who holds a page in the writer's memory.
  enum class Role : uint8_t {
    kFree = 1,       // allocatable now (PageAllocator)
    kPending = 2,    // freed by the commit being built (PageAllocator)
    kCatalogue = 3,  // the committed catalogue (CatalogueWriter)
    kPack = 4,       // a pack slot: of the pack being written (PackWriter), or holding a live shadow or
                     // process-tree page (ShadowPack)
    kHeld = 5,       // freed by a committed generation, kept for older readers (PageAllocator)
    kPageMap = 6,    // a leaf of the page map (PageMapWriter)
  };

  // `file` names the store in errors; pages 2..page_count-1 may be claimed.
  WriterAudit(std::string file, uint32_t page_count) : file_(std::move(file)), page_count_(page_count) {}

  // Claims `id` for `role` (kNoPage: nothing to claim). `what` names the holder in errors.
  Status Claim(PageId id, Role role, std::string_view what);
  // Claims chain id `id`: an open page, a shadow or a process-tree page (kNoPage: nothing): ids are
  // distinct and below `chain_ids` (W10).
  Status ClaimId(PageId id, uint32_t chain_ids, std::string_view what);
  // The error for writer invariant `invariant` ("W4") broken as `what` says.
  Error Violation(std::string_view invariant, std::string_view what) const;

 private:
  std::string file_;
  uint32_t page_count_;
  std::unordered_map<uint32_t, Role> roles_;
  std::unordered_map<uint32_t, std::string> ids_;  // chain id -> its holder
};

std::string_view WriterRoleName(WriterAudit::Role role);

}  // namespace xtfq
