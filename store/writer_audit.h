// WriterAudit: what StoreWriter::CheckInvariants() gathers from the writer's units, and the error
// that names a broken writer invariant (docs/format.md, "Writer invariants", W1 to W8).
//
// Each unit claims the pages it holds in memory (free, held for readers, pending free, committed catalogue, reserved
// open, shadow, process tree) with Claim(); the audit keeps who holds each page, so that a page
// claimed twice or outside 2..page_count-1 is reported (W5), and so that W2 can ask who holds a page
// of the last commit (RoleOf). Violation() formats any invariant's failure the same way:
// "FILE: writer invariant Wn: what".
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
    kFree = 1,         // allocatable now (PageAllocator)
    kPending = 2,      // freed by the commit being built (PageAllocator)
    kCatalogue = 3,    // the committed catalogue (CatalogueWriter)
    kPack = 4,         // a slot of the pack being written (PackWriter)
    kShadow = 5,       // a chain's shadow page (OpenChain)
    kProcessTree = 6,  // a committed process-tree page (ProcessIndexBuilder)
    kHeld = 7,         // freed by a committed generation, kept for older readers (PageAllocator)
    kPageMap = 8,      // a leaf of the page map (PageMapWriter)
  };

  // `file` names the store in errors; pages 2..page_count-1 may be claimed.
  WriterAudit(std::string file, uint32_t page_count) : file_(std::move(file)), page_count_(page_count) {}

  // Claims `id` for `role` (kNoPage: nothing to claim). `what` names the holder in errors.
  Status Claim(PageId id, Role role, std::string_view what);
  // The role `id` was claimed with, or nullopt.
  std::optional<Role> RoleOf(PageId id) const;
  // Claims chain id `id` as a chain's reserved open page or its shadow (kNoPage: nothing): ids are
  // distinct and below `chain_ids` (W10).
  Status ClaimId(PageId id, uint32_t chain_ids, std::string_view what);
  // The error for writer invariant `invariant` ("W4") broken as `what` says.
  Error Violation(std::string_view invariant, std::string_view what) const;

 private:
  std::string file_;
  uint32_t page_count_;
  std::unordered_map<uint32_t, Role> roles_;
  std::unordered_map<uint32_t, std::string> open_ids_;
};

std::string_view WriterRoleName(WriterAudit::Role role);

}  // namespace xtfq
