#include "store/writer_audit.h"

#include <fmt/format.h>

#include "store/format.h"

namespace xtfq {

std::string_view WriterRoleName(WriterAudit::Role role) {
  switch (role) {
    case WriterAudit::Role::kFree:
      return "free";
    case WriterAudit::Role::kPending:
      return "pending free";
    case WriterAudit::Role::kCatalogue:
      return "catalogue";
    case WriterAudit::Role::kPack:
      return "pack";
    case WriterAudit::Role::kHeld:
      return "held for readers";
    case WriterAudit::Role::kPageMap:
      return "page map";
  }
  return "unknown";
}

Status WriterAudit::Claim(PageId id, Role role, std::string_view what) {
  if (id == kNoPage) return Ok();
  if (id.value < format::kFirstDataPage || id.value >= page_count_) {
    return Violation("W5", fmt::format("{} page {} ({}) outside pages 2..{}", what, id.value, WriterRoleName(role),
                                       page_count_ - 1));
  }
  auto [it, fresh] = roles_.try_emplace(id.value, role);
  if (!fresh) {
    return Violation("W5", fmt::format("{} page {} is claimed twice: {} and {}", what, id.value,
                                       WriterRoleName(it->second), WriterRoleName(role)));
  }
  return Ok();
}

Status WriterAudit::ClaimId(PageId id, uint32_t chain_ids, std::string_view what) {
  if (id == kNoPage) return Ok();
  if (id.value >= chain_ids) {
    return Violation(
        "W10", fmt::format("{}: chain id {} is not below the {} chain ids handed out", what, id.value, chain_ids));
  }
  auto [it, fresh] = ids_.try_emplace(id.value, what);
  if (!fresh) {
    return Violation("W10", fmt::format("chain id {} is held twice: by {} and by {}", id.value, it->second, what));
  }
  return Ok();
}

Error WriterAudit::Violation(std::string_view invariant, std::string_view what) const {
  return Error(ErrorCode::kCorrupt, fmt::format("{}: writer invariant {}: {}", file_, invariant, what));
}

}  // namespace xtfq
