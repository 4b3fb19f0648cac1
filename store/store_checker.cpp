#include "store/store_checker.h"

#include <fmt/format.h>

#include "store/endian.h"
#include "store/format.h"

namespace xtfq {

namespace f = format;

std::string_view RoleName(StoreChecker::Role role) {
  switch (role) {
    case StoreChecker::Role::kUnclaimed: return "unclaimed";
    case StoreChecker::Role::kSuperblock: return "superblock";
    case StoreChecker::Role::kCatalogue: return "catalogue";
    case StoreChecker::Role::kChainPage: return "chain";
    case StoreChecker::Role::kOpenPage: return "open (reserved)";
    case StoreChecker::Role::kShadow: return "shadow";
    case StoreChecker::Role::kFree: return "free";
  }
  return "unknown";
}

void StoreChecker::Problem(Error e) {
  if (report_.problems.size() < max_problems_) report_.problems.push_back(std::move(e));
}

bool StoreChecker::Claim(PageId id, Role role, std::string_view what) {
  if (id.value >= report_.roles.size()) {
    Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: {} names page {}, beyond the last page {}",
                                                   store_.name(), what, id.value, report_.roles.size() - 1)));
    return false;
  }
  Role& r = report_.roles[id.value];
  if (r != Role::kUnclaimed) {
    Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: page {} is both {} and {} ({})", store_.name(), id.value,
                                                   RoleName(r), RoleName(role), what)));
    return false;
  }
  r = role;
  return true;
}

StoreChecker::Report StoreChecker::Run() {
  report_ = Report{};
  const Superblock& sb = store_.superblock();
  report_.roles.assign(sb.page_count, Role::kUnclaimed);
  report_.roles[0] = report_.roles[1] = Role::kSuperblock;
  if (store_.other_superblock()) {
    // An interrupted commit leaves exactly this; corruption of the newest superblock looks the
    // same and rolls the store back one generation. Neither can be told from the other.
    report_.warnings.push_back(fmt::format(
        "{}; the store is at generation {} from superblock {}. An interrupted commit leaves this; if "
        "none was interrupted, the newest generation was lost to damage. The next commit rewrites the slot",
        store_.other_superblock()->message(), sb.generation, store_.superblock_slot()));
  }
  const uint64_t committed = uint64_t{sb.page_count} * sb.page_size;
  if (store_.file_size() > committed) {
    report_.warnings.push_back(fmt::format("{} bytes beyond the last committed page (left by an interrupted "
                                        "writer; the next writer drops them)", store_.file_size() - committed));
  }
  for (PageId id : store_.catalogue_pages()) Claim(id, Role::kCatalogue, "the catalogue");
  report_.pages_read += store_.catalogue_pages().size();
  for (PageId id : store_.catalogue().free_pages) Claim(id, Role::kFree, "the free list");
  const Catalogue& cat = store_.catalogue();
  CheckChain(cat.heap, PageKind::kHeap, ArrayId(0), 1, "string heap");
  for (const ArrayDesc& a : cat.arrays) {
    CheckChain(a.levels[0], PageKind::kData, a.id, a.schema.record_width(), fmt::format("array '{}'", a.name));
  }
  for (uint32_t p = f::kFirstDataPage; p < sb.page_count; ++p) {
    if (report_.roles[p] == Role::kUnclaimed) {
      Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: page {} (offset {}) is neither used nor free (leaked)",
                                                     store_.name(), p, uint64_t{p} * sb.page_size)));
    }
  }
  return std::move(report_);
}

void StoreChecker::CheckChain(const ChainDesc& chain, PageKind kind, ArrayId array, uint32_t width,
                              const std::string& what) {
  const uint32_t cap = PageCapacity(store_.page_size(), width);
  const uint64_t full = chain.FullPages(cap);
  std::vector<std::byte> page(store_.page_size());
  // The heap is a run of (u32 length, bytes) strings; track where the next one starts.
  uint64_t heap_pos = 0, next_string = 0;
  std::byte prefix[f::kStringPrefixSize];
  uint32_t prefix_got = 0;
  auto scan_heap = [&](const std::byte* payload, uint32_t n, PageId id) {
    for (uint32_t i = 0; i < n; ++i, ++heap_pos) {
      if (heap_pos < next_string) continue;
      prefix[prefix_got++] = payload[i];
      if (prefix_got == f::kStringPrefixSize) {
        next_string = heap_pos + 1 + LoadLe<uint32_t>(prefix);
        prefix_got = 0;
        if (next_string > chain.entries) {
          Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: page {}: string heap: a string of {} bytes at heap "
                                                         "byte {} runs past the heap's end ({} bytes)", store_.name(),
                                                         id.value, LoadLe<uint32_t>(prefix), heap_pos - 3, chain.entries)));
          next_string = chain.entries;
        }
      }
    }
  };
  auto check_page = [&](PageId logical, PageId physical, const PageHeader& want, std::string_view role) -> bool {
    const std::string where = fmt::format("{}: page {} (offset {}): {} page of the {}", store_.name(),
                                          physical.value, uint64_t{physical.value} * store_.page_size(), role, what);
    Status s = store_.ReadPage(physical, page);
    ++report_.pages_read;
    if (!s.ok()) {
      Problem(Error(s.error().code(), s.error().message() + fmt::format(" ({} page of the {})", role, what)));
      return false;
    }
    PageHeader h = PageHeader::Decode(page.data());
    PageHeader w = want;
    if (w.next == PageId(UINT32_MAX)) w.next = h.next;  // an inner link: any page, checked by the next step
    Status e = ExpectHeader(h, w, where);
    if (!e.ok()) {
      Problem(std::move(e).error());
      return false;
    }
    if (kind == PageKind::kHeap) scan_heap(page.data() + f::kPageHeaderSize, h.entry_count, logical);
    return true;
  };

  PageHeader want;
  want.kind = kind;
  want.array = array;
  PageId id = chain.head, prev = kNoPage;
  for (uint64_t i = 0; i < full; ++i) {
    if (!Claim(id, Role::kChainPage, what)) return;
    want.entry_count = cap;
    want.prev = prev;
    want.next = i + 1 == full ? chain.open : PageId(UINT32_MAX);
    want.logical = id;
    if (!check_page(id, id, want, "full")) return;
    prev = id;
    id = PageHeader::Decode(page.data()).next;
    if (id == kNoPage) {
      Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: page {}: {}: next link is 0 after {} of {} full pages",
                                                     store_.name(), prev.value, what, i + 1, full)));
      return;
    }
  }
  if (full > 0 && prev != chain.last_full) {
    Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: {}: the last full page is {}, the catalogue says {}",
                                                   store_.name(), what, prev.value, chain.last_full.value)));
  }
  if (chain.open != kNoPage) Claim(chain.open, Role::kOpenPage, what);
  if (chain.shadow != kNoPage && Claim(chain.shadow, Role::kShadow, what)) {
    want.flags = f::kFlagShadow;
    want.entry_count = chain.OpenEntries(cap);
    want.prev = chain.last_full;
    want.next = kNoPage;
    want.logical = chain.open;
    check_page(chain.open, chain.shadow, want, "shadow (open)");
  }
  if (kind == PageKind::kHeap && prefix_got != 0) {
    Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: string heap ends inside a length prefix", store_.name())));
  }
}

}  // namespace xtfq
