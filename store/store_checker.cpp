#include "store/store_checker.h"

#include <fmt/format.h>

#include "store/endian.h"
#include "store/format.h"
#include "store/page_map_reader.h"
#include "store/stored_page.h"

namespace xtfq {

namespace f = format;

std::string_view RoleName(StoreChecker::Role role) {
  switch (role) {
    case StoreChecker::Role::kUnclaimed:
      return "unclaimed";
    case StoreChecker::Role::kSuperblock:
      return "superblock";
    case StoreChecker::Role::kCatalogue:
      return "catalogue";
    case StoreChecker::Role::kPack:
      return "pack";
    case StoreChecker::Role::kPageMap:
      return "page map";
    case StoreChecker::Role::kFree:
      return "free";
  }
  return "unknown";
}

void StoreChecker::Problem(Error e) {
  ++report_.problems_raised;
  if (report_.problems.size() < max_problems_) report_.problems.push_back(std::move(e));
}

bool StoreChecker::Claim(PageId id, Role role, std::string_view what) {
  if (id.value >= report_.roles.size()) {
    Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: {} names page {}, beyond the last page {}", store_.name(), what,
                                                   id.value, report_.roles.size() - 1)));
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

bool StoreChecker::ClaimId(PageId id, bool open, std::string_view what) {
  if (id == kNoPage || id.value >= id_roles_.size()) {
    Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: {} names chain page {}, outside ids 1..{}", store_.name(), what,
                                                   id.value, id_roles_.size() - 1)));
    return false;
  }
  uint8_t& r = id_roles_[id.value];
  if (r != 0) {
    Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: chain page {} is claimed twice, the second time as {} "
                                                   "page of the {}",
                                                   store_.name(), id.value, open ? "the open" : "a stored", what)));
    return false;
  }
  r = open ? 2 : 1;
  if (open && id.value < map_.size() && map_[id.value].stored()) {
    Problem(
        Error(ErrorCode::kCorrupt, fmt::format("{}: chain page {}: the open page of the {} has a stored copy in the "
                                               "page map (offset {})",
                                               store_.name(), id.value, what, map_[id.value].offset)));
  }
  return true;
}

bool StoreChecker::CheckLocation(PageId id, const Location& given, std::string_view where) {
  const Location want = id != kNoPage && id.value < map_.size() ? map_[id.value] : Location{};
  if (given == want) return true;
  Problem(Error(ErrorCode::kCorrupt,
                fmt::format("{}: says chain page {} is stored at offset {} ({} bytes); the page map says offset {} "
                            "({} bytes)",
                            where, id.value, given.offset, given.length, want.offset, want.length)));
  return false;
}

void StoreChecker::LoadMap() {
  const Catalogue& cat = store_.catalogue();
  const uint32_t page_size = store_.page_size();
  const uint32_t per_leaf = PageMapReader::LeafCapacity(page_size);
  map_.assign(cat.chain_ids, Location{});
  for (size_t j = 0; j < cat.map_leaves.size(); ++j) {
    const PageId slot = cat.map_leaves[j];
    if (slot == kNoPage || !Claim(slot, Role::kPageMap, fmt::format("page map leaf {}", j))) continue;
    ++report_.pages_read;
    auto leaf = PageMapReader::ReadLeaf(store_.file(), page_size, store_.page_count(), slot, static_cast<uint32_t>(j));
    if (!leaf.ok()) {
      Problem(leaf.error());
      continue;
    }
    const uint64_t first = uint64_t{j} * per_leaf;
    if (first + leaf->size() > cat.chain_ids) {
      Problem(Error(ErrorCode::kCorrupt,
                    fmt::format("{}: page {}: page map leaf {} holds ids up to {}, beyond the last chain id {}",
                                store_.name(), slot.value, j, first + leaf->size() - 1, cat.chain_ids - 1)));
      continue;
    }
    for (size_t i = 0; i < leaf->size(); ++i) map_[first + i] = (*leaf)[i];
  }
}

void StoreChecker::CheckPacks() {
  const uint64_t p = store_.page_size();
  std::sort(stored_.begin(), stored_.end(),
            [](const auto& a, const auto& b) { return a.first.offset < b.first.offset; });
  std::vector<std::byte> zeros;
  // Bytes [from, to) must be zero: padding between stored pages.
  auto zero = [&](uint64_t from, uint64_t to) {
    if (to <= from) return;
    zeros.resize(to - from);
    if (Status s = ReadExact(store_.file(), from, zeros); !s.ok()) return Problem(s.error());
    for (size_t i = 0; i < zeros.size(); ++i) {
      if (zeros[i] != std::byte{0}) {
        return Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: offset {} (slot {}): pack padding is not zero",
                                                              store_.name(), from + i, (from + i) / p)));
      }
    }
  };
  uint64_t end = 0;           // where the previous stored page ends
  bool after_shadow = false;  // and whether it was a shadow
  int64_t claimed = -1;       // the last slot claimed
  for (const auto& [loc, shadow] : stored_) {
    if (loc.offset < end) {
      Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: the stored pages at offsets {} and before it overlap",
                                                     store_.name(), loc.offset)));
      end = std::max(end, loc.offset + loc.length);
      continue;
    }
    // Shadow packs also hold replaced shadows, which no page of this generation names: the bytes
    // between a shadow and its neighbours are not checked.
    if (loc.offset != end && !shadow && !after_shadow) {
      if (loc.offset % p != 0) {
        Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: the stored page at offset {} starts neither where the one "
                                                       "before it ends ({}) nor at a slot boundary",
                                                       store_.name(), loc.offset, end)));
      }
      if (end % p != 0) zero(end, std::min(loc.offset, (end / p + 1) * p));
    }
    // Claim the slots this page covers that the pages before it did not.
    for (uint64_t s = loc.offset / p; s <= (loc.offset + loc.length - 1) / p; ++s) {
      if (static_cast<int64_t>(s) <= claimed) continue;
      Claim(PageId(static_cast<uint32_t>(s)), Role::kPack, "a pack");
      claimed = static_cast<int64_t>(s);
    }
    end = loc.offset + loc.length;
    after_shadow = shadow;
  }
  if (end % p != 0 && !after_shadow) zero(end, (end / p + 1) * p);
  for (const auto& [loc, shadow] : stored_) report_.stored.emplace_back(loc.offset, loc.length);
}

struct StoreChecker::ArrayTotals {
  // Each array's root summary, and each process-indexed array's records summarized per process.
  std::vector<std::optional<Summary>> totals;
  std::map<uint32_t, std::map<int64_t, Summary>> by_process;
  // Arrays whose records were read whole (no problem in their data pages): only those are compared
  // with their per-process copies below; a damaged page is named once, not again for every process.
  std::vector<bool> whole;
};

StoreChecker::Report StoreChecker::Run() {
  report_ = Report{};
  CheckSuperblocks();
  ClaimCatalogue();
  id_roles_.assign(store_.catalogue().chain_ids, 0);
  stored_.clear();
  LoadMap();
  CheckHeap();
  ArrayTotals t = CheckArrays();
  CheckPerProcessArrays(t);
  CheckProcessTrees(t.totals);
  if (chains_cut_) {
    // The pages after a damaged one were not read: their slots, ids and places in the packs would
    // each be reported as leaked or misplaced. The damage is reported above, once.
    report_.warnings.push_back(
        fmt::format("{}: the packs' layout and the accounting of slots and page ids (invariants 9, 16, 19) were not "
                    "checked: damaged pages (the problems listed) cut chains short, so the pages after them were not "
                    "read",
                    store_.name()));
    return std::move(report_);
  }
  CheckPacks();
  CheckLeaks();
  return std::move(report_);
}

void StoreChecker::CheckSuperblocks() {
  const Superblock& sb = store_.superblock();
  report_.roles.assign(sb.page_count, Role::kUnclaimed);
  report_.roles[0] = report_.roles[1] = Role::kSuperblock;
  if (store_.other_superblock()) {
    // Superblock writes are 56 bytes inside one sector, so an interrupted commit leaves the old or
    // the new slot whole: an invalid slot is damage. When it still reads as the generation before
    // the one in use, nothing newer was lost; otherwise the store may have been rolled back.
    if (std::optional<std::string> lost = store_.Rollback()) {
      report_.rollback = fmt::format(
          "{}; the store is read at generation {} from superblock {}: {}, to damage or to an interrupted "
          "superblock write; writing to the store makes the loss permanent",
          store_.other_superblock()->message(), sb.generation, store_.superblock_slot(), *lost);
    } else {
      report_.warnings.push_back(fmt::format(
          "{}; it held generation {}, older than generation {} in superblock {}: "
          "nothing was lost, and the next commit rewrites the slot",
          store_.other_superblock()->message(), sb.generation - 1, sb.generation, store_.superblock_slot()));
    }
  }
  const uint64_t committed = uint64_t{sb.page_count} * sb.page_size;
  if (store_.file_size() > committed) {
    report_.warnings.push_back(
        fmt::format("{} bytes beyond the last committed page (left by an interrupted "
                    "writer; the next writer drops them)",
                    store_.file_size() - committed));
  }
}

void StoreChecker::ClaimCatalogue() {
  for (PageId id : store_.catalogue_pages()) Claim(id, Role::kCatalogue, "the catalogue");
  report_.pages_read += store_.catalogue_pages().size();
  for (PageId id : store_.catalogue().free_pages) Claim(id, Role::kFree, "the free list");
}

void StoreChecker::CheckHeap() {
  const Catalogue& cat = store_.catalogue();
  Report::Space& heap = report_.space[0];
  heap.name = "string heap", heap.records = cat.heap.entries;
  space_full_ = &heap.data, space_shadow_ = &heap.shadow;
  CheckChain(cat.heap, PageKind::kHeap, ArrayId(0), 0, 1, nullptr, nullptr, "string heap");
}

StoreChecker::ArrayTotals StoreChecker::CheckArrays() {
  const Catalogue& cat = store_.catalogue();
  ArrayTotals t{
      std::vector<std::optional<Summary>>(cat.arrays.size() + 1), {}, std::vector<bool>(cat.arrays.size() + 1, true)};
  for (const ArrayDesc& a : cat.arrays) CheckArray(a, t);
  return t;
}

void StoreChecker::CheckArray(const ArrayDesc& a, ArrayTotals& t) {
  const Catalogue& cat = store_.catalogue();
  const uint64_t raised = report_.problems_raised;
  std::optional<std::vector<IndexEntry>> below;
  per_process_ = a.process_index ? &t.by_process[a.id.value] : nullptr;
  expect_process_ = a.per_process() ? std::optional<int64_t>(a.process) : std::nullopt;
  const ArrayDesc* own = a.per_process() && cat.Get(a.parent) != nullptr ? cat.Get(a.parent) : &a;
  Report::Space& space = report_.space[own->id.value];
  space.name = own->name;
  if (!a.per_process()) space.records = a.record_count();
  for (size_t l = 0; l < a.levels.size(); ++l) {
    space_full_ = a.per_process() ? &space.per_process : l > 0 ? &space.index : &space.data;
    space_shadow_ = a.per_process() ? &space.per_process : &space.shadow;
    if (l == 1) per_process_ = nullptr, expect_process_.reset();
    const uint32_t width = l == 0 ? a.schema.record_width() : IndexEntry::Width(a.schema);
    const std::string what = fmt::format("array '{}' level {}", a.name, l);
    if (l > 0 && !below) {
      // A problem below: the pages of this level are still claimed, but not compared.
      CheckChain(a.levels[l], PageKind::kIndex, a.id, static_cast<uint8_t>(l), width, nullptr, nullptr, what);
      continue;
    }
    below = CheckChain(a.levels[l], l == 0 ? PageKind::kData : PageKind::kIndex, a.id, static_cast<uint8_t>(l), width,
                       &a.schema, l == 0 ? nullptr : &*below, what);
    if (l == 0 && (report_.problems_raised != raised || !below)) t.whole[a.id.value] = false;
  }
  per_process_ = nullptr;
  expect_process_.reset();
  if (below && a.levels.size() > 1 && below->size() != 1) {
    Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: array '{}': the top level holds {} pages, not one root",
                                                   store_.name(), a.name, below->size())));
  } else if (below) {
    Summary s(a.schema);
    for (const IndexEntry& e : *below) s.Merge(e.summary);
    t.totals[a.id.value] = std::move(s);
  }
}

// Invariant 14: each per-process array holds its parent's records of its process; a sole-process
// array's records are all of its process. Not compared where either side's records are damaged.
void StoreChecker::CheckPerProcessArrays(ArrayTotals& t) {
  const Catalogue& cat = store_.catalogue();
  std::vector<bool> skipped(cat.arrays.size() + 1, false);
  for (const ArrayDesc& a : cat.arrays) {
    const uint32_t parent_id = a.per_process() ? a.parent.value : a.id.value;
    if ((a.sole_process || a.per_process()) && parent_id < t.whole.size() &&
        (!t.whole[parent_id] || !t.whole[a.id.value])) {
      if (!skipped[parent_id]) {
        skipped[parent_id] = true;
        const ArrayDesc* p = cat.Get(ArrayId(parent_id));
        report_.warnings.push_back(
            fmt::format("{}: array '{}': its P index was not compared with its records (invariant 14): pages of them "
                        "are damaged (the problems listed)",
                        store_.name(), p != nullptr ? p->name : a.name));
      }
      t.by_process[a.id.value].clear();
      if (a.per_process()) t.by_process[parent_id].erase(a.process);
      continue;
    }
    if (a.sole_process) {
      auto& mine = t.by_process[a.id.value];
      if (mine.size() > 1 || (mine.size() == 1 && mine.begin()->first != a.process)) {
        Problem(Error(ErrorCode::kCorrupt,
                      fmt::format("{}: array '{}': of sole process {}, yet it holds records of {} processes (the "
                                  "first {})",
                                  store_.name(), a.name, a.process, mine.size(), mine.begin()->first)));
      }
      mine.clear();
      continue;
    }
    if (!a.per_process()) continue;
    auto& parent = t.by_process[a.parent.value];
    auto it = parent.find(a.process);
    const std::string what = fmt::format("{}: array '{}'", store_.name(), a.name);
    if (it == parent.end()) {
      Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: its parent has no record of process {}", what, a.process)));
      continue;
    }
    if (t.totals[a.id.value] && !t.totals[a.id.value]->SameUpToRounding(it->second)) {
      Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: {} records, its parent has {} of process {} (or their "
                                                     "aggregates differ)",
                                                     what, t.totals[a.id.value]->count, it->second.count, a.process)));
    }
    parent.erase(it);
  }
  for (auto& [id, left] : t.by_process) {
    if (!left.empty() && !skipped[id]) {
      Problem(Error(ErrorCode::kCorrupt,
                    fmt::format("{}: array '{}': {} processes (the first {}) have no per-process "
                                "array",
                                store_.name(), cat.arrays[id - 1].name, left.size(), left.begin()->first)));
    }
  }
}

void StoreChecker::CheckProcessTrees(const std::vector<std::optional<Summary>>& totals) {
  for (const ArrayDesc& a : store_.catalogue().arrays) {
    if (!a.process_index) continue;
    space_full_ = space_shadow_ = &report_.space[a.id.value].process_tree;
    CheckProcessTree(a, totals);
  }
  space_full_ = space_shadow_ = nullptr;
}

void StoreChecker::CheckLeaks() {
  const Superblock& sb = store_.superblock();
  // An id no chain names is a replaced shadow's, which the map forgets; one the map still has is
  // leaked.
  for (uint32_t id = 1; id < id_roles_.size(); ++id) {
    if (id_roles_[id] == 0 && map_[id].stored()) {
      Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: chain page {} is stored at offset {} but no chain names it "
                                                     "(leaked)",
                                                     store_.name(), id, map_[id].offset)));
    }
  }
  for (uint32_t p = f::kFirstDataPage; p < sb.page_count; ++p) {
    if (report_.roles[p] == Role::kUnclaimed) {
      Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: page {} (offset {}) is neither used nor free (leaked)",
                                                     store_.name(), p, uint64_t{p} * sb.page_size)));
    }
  }
}

// The state of one chain's check, shared by the functions that check its parts.
struct StoreChecker::ChainWalk {
  const ChainDesc& chain;
  PageKind kind;
  ArrayId array;
  uint8_t level;
  uint32_t width;
  const Schema* schema;                  // null: page contents are not compared
  const std::vector<IndexEntry>* below;  // the level underneath (index levels only)
  const std::string& what;
  uint32_t cap;
  uint64_t full;                      // full pages the entry count implies
  std::vector<std::byte> page;        // the page checked last
  std::vector<IndexEntry> summaries;  // one per page with entries, for the level above
  bool failed = false;
  // The heap is a run of (u32 length, bytes) strings; where the next one starts.
  uint64_t heap_pos = 0;
  uint64_t next_string = 0;
  std::byte prefix[f::kStringPrefixSize];
  uint32_t prefix_got = 0;
  // Index entries seen so far on this level, to match against `below` in order.
  uint64_t entry_no = 0;
  bool edge_seen = false;  // the shadow checked ends in a right-edge entry
};

std::optional<std::vector<IndexEntry>> StoreChecker::CheckChain(const ChainDesc& chain, PageKind kind, ArrayId array,
                                                                uint8_t level, uint32_t width, const Schema* schema,
                                                                const std::vector<IndexEntry>* below,
                                                                const std::string& what) {
  const uint32_t cap = PageCapacity(store_.page_size(), width);
  ChainWalk w{chain,
              kind,
              array,
              level,
              width,
              schema,
              below,
              what,
              cap,
              chain.FullPages(cap),
              std::vector<std::byte>(store_.page_size())};
  if (!CheckFullPages(w)) {
    chains_cut_ = true;  // the pages after the one that failed were not read
    return std::nullopt;
  }
  if (!CheckOpenPage(w)) return std::nullopt;
  CheckCoverage(w);
  CheckHeapEnd(w);
  if (w.failed) return std::nullopt;
  return std::move(w.summaries);
}

bool StoreChecker::CheckFullPages(ChainWalk& w) {
  PageHeader want;
  want.kind = w.kind;
  want.level = w.level;
  want.array = w.array;
  PageId id = w.chain.head, prev = kNoPage;
  for (uint64_t i = 0; i < w.full; ++i) {
    if (!ClaimId(id, false, w.what)) return false;
    want.entry_count = w.cap;  // every page but the open one is full
    want.prev = prev;
    want.next = i + 1 == w.full ? w.chain.open : PageId(UINT32_MAX);
    want.logical = id;
    if (!CheckPage(w, id, PageKey::Chain(id), want, "full", false)) return false;
    prev = id;
    id = PageHeader::Decode(w.page.data()).next;
    if (id == kNoPage) {
      Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: page {}: {}: next link is 0 after {} of {} full pages",
                                                     store_.name(), prev.value, w.what, i + 1, w.full)));
      return false;
    }
  }
  if (w.full > 0 && prev != w.chain.last_full) {
    Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: {}: the last full page is {}, the catalogue says {}",
                                                   store_.name(), w.what, prev.value, w.chain.last_full.value)));
  }
  return true;
}

bool StoreChecker::CheckOpenPage(ChainWalk& w) {
  if (w.chain.open != kNoPage) ClaimId(w.chain.open, true, w.what);
  if (w.chain.shadow == kNoPage || !ClaimId(w.chain.shadow, false, w.what)) return true;
  if (!CheckLocation(w.chain.shadow, w.chain.shadow_location,
                     fmt::format("{}: the chain descriptor of the {}", store_.name(), w.what))) {
    return false;
  }
  PageHeader want;
  want.kind = w.kind;
  want.level = w.level;
  want.array = w.array;
  want.flags = f::kFlagShadow;
  want.entry_count = w.chain.OpenEntries(w.cap);
  want.prev = w.chain.last_full;
  want.next = kNoPage;
  want.logical = w.chain.open;
  return CheckPage(w, w.chain.open, PageKey::Chain(w.chain.shadow), want, "shadow (open)", w.level > 0);
}

// A stored page, read where the checker's own reading of the map says, and decoded (invariant 18).
Status StoreChecker::ReadStoredPage(PageId id, std::vector<std::byte>& page, bool shadow) {
  const Location loc = id.value < map_.size() ? map_[id.value] : Location{};
  XTFQ_TRY(PageMapReader::CheckStored(loc, id, store_.page_size(), store_.page_count(), store_.name()));
  stored_.emplace_back(loc, shadow);
  std::vector<std::byte> bytes;
  XTFQ_TRY(ReadStored(store_.file(), id, loc, bytes, page));
  const uint8_t codec = LoadLe<uint8_t>(bytes.data() + f::kPhCodec);
  ++report_.stored_pages[codec];
  report_.stored_bytes[codec] += loc.length;
  if (uint64_t* bytes = shadow ? space_shadow_ : space_full_; bytes != nullptr) *bytes += loc.length;
  return Ok();
}

bool StoreChecker::CheckPage(ChainWalk& w, PageId logical, PageKey physical, const PageHeader& want,
                             std::string_view role, bool edge_allowed) {
  const std::string where = fmt::format("{}: {}: {} page of the {}", store_.name(), physical.Name(), role, w.what);
  Status s =
      physical.chain() ? ReadStoredPage(physical.id(), w.page, want.shadow()) : store_.ReadPage(physical.id(), w.page);
  ++report_.pages_read;
  if (!s.ok()) {
    Problem(Error(s.error().code(), s.error().message() + fmt::format(" ({} page of the {})", role, w.what)));
    return false;
  }
  PageHeader h = PageHeader::Decode(w.page.data());
  PageHeader expect = want;
  if (expect.next == PageId(UINT32_MAX)) expect.next = h.next;  // an inner link: any page, checked by the next step
  if (edge_allowed && (h.flags & f::kFlagRightEdge) != 0) {
    expect.flags |= f::kFlagRightEdge;
    ++expect.entry_count;
    w.edge_seen = true;
  }
  Status e = ExpectHeader(h, expect, where);
  if (!e.ok()) {
    Problem(std::move(e).error());
    return false;
  }
  const std::byte* payload = w.page.data() + f::kPageHeaderSize;
  if (w.kind == PageKind::kHeap) ScanHeap(w, payload, h.entry_count, logical);
  if (w.schema == nullptr) return true;
  IndexEntry sum;
  sum.summary = Summary(*w.schema);
  sum.child = h.logical;
  if (w.level == 0) {
    CheckRecords(w, payload, h, where, sum);
  } else {
    CheckIndexEntries(w, payload, h, where, sum);
  }
  if (h.entry_count > 0) w.summaries.push_back(std::move(sum));
  return true;
}

void StoreChecker::ScanHeap(ChainWalk& w, const std::byte* payload, uint32_t n, PageId id) {
  for (uint32_t i = 0; i < n; ++i, ++w.heap_pos) {
    if (w.heap_pos < w.next_string) continue;
    w.prefix[w.prefix_got++] = payload[i];
    if (w.prefix_got == f::kStringPrefixSize) {
      w.next_string = w.heap_pos + 1 + LoadLe<uint32_t>(w.prefix);
      w.prefix_got = 0;
      if (w.next_string > w.chain.entries) {
        Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: page {}: string heap: a string of {} bytes at heap "
                                                       "byte {} runs past the heap's end ({} bytes)",
                                                       store_.name(), id.value, LoadLe<uint32_t>(w.prefix),
                                                       w.heap_pos - 3, w.chain.entries)));
        w.next_string = w.chain.entries;
      }
    }
  }
}

void StoreChecker::CheckRecords(ChainWalk& w, const std::byte* payload, const PageHeader& h, const std::string& where,
                                IndexEntry& sum) {
  const Schema& schema = *w.schema;
  for (uint32_t i = 0; i < h.entry_count; ++i) {
    const std::byte* p = payload + size_t{i} * w.width;
    if (i == 0) sum.key = schema.time_field() ? schema.Time(p) : static_cast<int64_t>(w.entry_no);
    if (schema.time_field() && i > 0 && schema.Time(p) < schema.Time(p - w.width)) {
      Problem(Error(ErrorCode::kCorrupt,
                    fmt::format("{}: record {} has time {}, before the record ahead of it", where, i, schema.Time(p))));
      w.failed = true;
    }
    sum.summary.Add(schema, p);
    ++w.entry_no;
    if (per_process_ != nullptr) {
      auto [it, fresh] = per_process_->try_emplace(schema.Process(p), schema);
      it->second.Add(schema, p);
    }
    if (expect_process_ && schema.Process(p) != *expect_process_) {
      Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: record {} is of process {}, not {}", where, i,
                                                     schema.Process(p), *expect_process_)));
      w.failed = true;
    }
  }
}

void StoreChecker::CheckIndexEntries(ChainWalk& w, const std::byte* payload, const PageHeader& h,
                                     const std::string& where, IndexEntry& sum) {
  const std::vector<IndexEntry>& below = *w.below;
  for (uint32_t i = 0; i < h.entry_count; ++i) {
    const IndexEntry e = IndexEntry::DecodeFor(*w.schema, payload + size_t{i} * w.width);
    const bool edge = (h.flags & f::kFlagRightEdge) != 0 && i + 1 == h.entry_count;
    // Real entries cover the full pages below in order; a right-edge entry covers the open page.
    const uint64_t want_no = edge ? below.size() - 1 : w.entry_no;
    if (!edge) ++w.entry_no;
    auto bad = [&](const std::string& m) {
      Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: index entry {}: {}", where, i, m)));
      w.failed = true;
    };
    if (want_no >= below.size() || (edge && below.size() == w.entry_no)) {
      bad("has no page below it to cover");
      continue;
    }
    const IndexEntry& c = below[want_no];
    if (e.child != c.child)
      bad(fmt::format("child is page {}, page {} expected", e.child.value, c.child.value));
    else if (!CheckLocation(edge ? kNoPage : e.child, e.child_location, fmt::format("{}: index entry {}", where, i)))
      w.failed = true;
    else if (e.summary.count != c.summary.count)
      bad(fmt::format("count is {}, the subtree holds {}", e.summary.count, c.summary.count));
    else if (e.key != c.key)
      bad(fmt::format("key is {}, the subtree starts at {}", e.key, c.key));
    else if (!(e.summary == c.summary))
      bad("aggregates differ from the subtree's");
    if (i == 0) sum.key = e.key;
    sum.summary.Merge(e.summary);
  }
}

void StoreChecker::CheckCoverage(ChainWalk& w) {
  if (w.level == 0 || w.below == nullptr || w.failed) return;
  // Every page below is covered: its full pages by real entries, its open page by a right edge.
  const bool below_open = w.below->size() == w.chain.entries + 1;
  if (w.entry_no != w.chain.entries || below_open != w.edge_seen) {
    Problem(Error(ErrorCode::kCorrupt,
                  fmt::format("{}: {}: {} entries and {} right edge cover {} pages below", store_.name(), w.what,
                              w.entry_no, w.edge_seen ? "a" : "no", w.below->size())));
    w.failed = true;
  }
}

void StoreChecker::CheckHeapEnd(ChainWalk& w) {
  if (w.kind == PageKind::kHeap && w.prefix_got != 0) {
    Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: string heap ends inside a length prefix", store_.name())));
  }
}

void StoreChecker::CheckProcessTree(const ArrayDesc& a, const std::vector<std::optional<Summary>>& totals) {
  const Catalogue& cat = store_.catalogue();
  const std::string what = fmt::format("process tree of array '{}'", a.name);
  std::vector<uint32_t> children;  // ids of a's per-process arrays, each to be named once
  for (const ArrayDesc& c : cat.arrays) {
    if (c.parent == a.id) children.push_back(c.id.value);
  }
  if (a.sole_process) children.push_back(a.id.value);  // its tree names the array itself
  if (a.process_root == kNoPage) {
    if (!children.empty()) {
      Problem(Error(ErrorCode::kCorrupt,
                    fmt::format("{}: {}: no tree for {} per-process arrays", store_.name(), what, children.size())));
    }
    return;
  }
  const uint32_t width = IndexEntry::Width(a.schema);
  const uint32_t cap = PageCapacity(store_.page_size(), width);
  std::vector<std::byte> page(store_.page_size());
  std::vector<bool> named(cat.arrays.size() + 1, false);
  // Levels from the root down; `want` holds the entries the level above promises, in order.
  std::vector<IndexEntry> want;
  PageId first = a.process_root;
  if (!CheckLocation(first, a.process_root_location,
                     fmt::format("{}: the descriptor of array '{}'", store_.name(), a.name))) {
    return;
  }
  for (int level = a.process_levels - 1; level >= 0; --level) {
    std::vector<IndexEntry> got;           // one per page of this level: first key, page, merged summary
    std::vector<IndexEntry> entries_here;  // the entries of this level (above level 0), for the next
    PageId prev = kNoPage, next_first = kNoPage;
    bool have_key = false;
    int64_t last_key = 0;
    for (PageId id = first; id != kNoPage;) {
      const std::string where = fmt::format("{}: page {}: {} level {}", store_.name(), id.value, what, level);
      if (!ClaimId(id, false, what)) return;
      // (in the shadow pack, as shadows are: a replaced tree's bytes may lie beside it)
      Status s = ReadStoredPage(id, page, true);
      ++report_.pages_read;
      if (!s.ok()) {
        Problem(Error(s.error().code(), s.error().message() + " (" + what + ")"));
        return;
      }
      const PageHeader h = PageHeader::Decode(page.data());
      PageHeader w;
      w.page_id = w.logical = id;
      w.kind = PageKind::kProcess;
      w.level = static_cast<uint8_t>(level);
      w.array = a.id;
      w.prev = prev;
      w.next = h.next;
      w.entry_count = h.next == kNoPage ? std::clamp<uint32_t>(h.entry_count, 1, cap) : cap;
      if (Status e = ExpectHeader(h, w, where); !e.ok()) {
        Problem(std::move(e).error());
        return;
      }
      IndexEntry sum;
      sum.child = id;
      sum.summary = Summary(a.schema);
      for (uint32_t i = 0; i < h.entry_count; ++i) {
        const IndexEntry e = IndexEntry::DecodeFor(a.schema, page.data() + f::kPageHeaderSize + size_t{i} * width);
        auto bad = [&](const std::string& m) {
          Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: entry {}: {}", where, i, m)));
        };
        if (have_key && e.key <= last_key) bad(fmt::format("key {} does not follow {}", e.key, last_key));
        have_key = true;
        last_key = e.key;
        if (i == 0) sum.key = e.key;
        sum.summary.Merge(e.summary);
        if (!CheckLocation(level > 0 ? e.child : kNoPage, e.child_location, fmt::format("{}: entry {}", where, i))) {
          return;
        }
        if (level > 0) {
          if (next_first == kNoPage) next_first = e.child;
          entries_here.push_back(e);
          continue;
        }
        const ArrayDesc* c = cat.Get(ArrayId(e.child.value));
        if (c == nullptr || !a.HoldsProcess(*c, e.key)) {
          bad(fmt::format("names array {}, not the per-process array of process {}", e.child.value, e.key));
        } else if (named[c->id.value]) {
          bad(fmt::format("names array {} a second time", e.child.value));
        } else {
          named[c->id.value] = true;
          if (totals[c->id.value] && !(*totals[c->id.value] == e.summary)) {
            bad(fmt::format("count {} or aggregates differ from the {} records of array '{}'", e.summary.count,
                            totals[c->id.value]->count, c->name));
          }
        }
      }
      got.push_back(std::move(sum));
      prev = id;
      id = h.next;
      if (got.size() > id_roles_.size()) return;  // a cycle; ClaimId has reported it
    }
    // The level above promised exactly these pages, keys and summaries.
    if (!want.empty()) {
      bool same = want.size() == got.size();
      for (size_t k = 0; same && k < want.size(); ++k) {
        same = want[k].child == got[k].child && want[k].key == got[k].key && want[k].summary == got[k].summary;
      }
      if (!same) {
        Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: {}: the entries of level {} do not match the {} pages of "
                                                       "level {} (page, first key, count or aggregates)",
                                                       store_.name(), what, level + 1, got.size(), level)));
        return;
      }
    } else if (got.size() != 1) {
      Problem(Error(ErrorCode::kCorrupt,
                    fmt::format("{}: {}: the root level has {} pages", store_.name(), what, got.size())));
      return;
    } else if (got[0].summary.count != a.record_count()) {
      Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: {}: the root counts {} records, the array holds {}",
                                                     store_.name(), what, got[0].summary.count, a.record_count())));
    }
    want = std::move(entries_here);
    first = next_first;
  }
  for (uint32_t id : children) {
    if (!named[id]) {
      Problem(Error(ErrorCode::kCorrupt, fmt::format("{}: {}: per-process array '{}' is missing", store_.name(), what,
                                                     cat.arrays[id - 1].name)));
    }
  }
}

}  // namespace xtfq
