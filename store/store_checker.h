// StoreChecker: reads every live page of a committed snapshot and checks every format invariant
// of docs/format.md ("Invariants"): checksums, headers, chain links and counts, shadow pages,
// the heap's string framing, that every slot is accounted for exactly once (superblock,
// catalogue, pack, page map, shadow, process tree, or free), that every chain id is one full or
// open page, and that packs hold their stored pages back to back with zero padding (invariants
// 16 to 19). `xtfq check` prints its report.
//
// For every array's TN tree it also checks that each index entry's key, child, count and
// aggregates equal what is below it, level by level (docs/format.md, invariants 11 to 13), and
// the P index: per-process arrays against their parent's records, process trees against the
// per-process arrays' totals (invariants 14 and 15).
//
// The checker collects problems instead of stopping at the first, up to a limit, and never
// trusts a page before its checksum passed.
//
// Thread-safety: one checker per Store at a time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/format.h"
#include "store/index_entry.h"
#include "store/location.h"
#include "store/page_key.h"
#include "store/store.h"

namespace xtfq {

class StoreChecker {
 public:
  // What a page is in the snapshot; kUnclaimed after a run means leaked.
  enum class Role : uint8_t {
    kUnclaimed = 0,
    kSuperblock = 1,
    kCatalogue = 2,
    kPack = 3,     // a slot of a pack: stored pages (full, shadows, process trees)
    kPageMap = 4,  // a leaf of the page map
    kFree = 5,
  };

  struct Report {
    std::vector<Error> problems;        // each names the page or superblock
    uint64_t problems_raised = 0;       // all of them, also those past max_problems (not listed)
    std::vector<std::string> warnings;  // what a crash leaves legitimately, and may also be damage
    // The superblock slot not in use is invalid and does not read as the generation before the
    // one in use: the store may have been rolled back one generation (invariant 10). Not a problem of the generation
    // checked, so not in ok(); the command line refuses it unless told to accept it.
    std::optional<std::string> rollback;
    uint64_t pages_read = 0;
    std::vector<Role> roles;  // by slot
    // Stored pages by the codec byte they are stored with (0 raw, 1 lz4, 2 lz4 over columns), and
    // their stored bytes.
    uint64_t stored_pages[format::kMaxCodec + 1] = {};
    uint64_t stored_bytes[format::kMaxCodec + 1] = {};
    // The live stored pages (offset, length), sorted: every byte of them is checked. Pack bytes
    // outside them are padding (checked to be zero between sealed pages) or replaced shadows.
    std::vector<std::pair<uint64_t, uint32_t>> stored;
    // Where the stored bytes go (`xtfq check --space`): per array of its own by id (its per-process
    // arrays and process tree counted in it), the string heap as id 0; each page's stored length,
    // header included.
    struct Space {
      std::string name;  // the array's, or "string heap"
      uint64_t records = 0;
      uint64_t data = 0, index = 0;  // full pages of level 0, of the levels above
      uint64_t shadow = 0;           // the open pages' shadows (every level)
      uint64_t per_process = 0;      // the per-process arrays' pages (P index), shadows included
      uint64_t process_tree = 0;     // the process tree's pages
      uint64_t total() const { return data + index + shadow + per_process + process_tree; }
      void Add(const Space& o) {
        records += o.records, data += o.data, index += o.index, shadow += o.shadow;
        per_process += o.per_process, process_tree += o.process_tree;
      }
    };
    std::map<uint32_t, Space> space;
    bool ok() const { return problems.empty(); }
  };

  explicit StoreChecker(Store& store, size_t max_problems = 100) : store_(store), max_problems_(max_problems) {}

  Report Run();

 private:
  void Problem(Error e);
  bool Claim(PageId id, Role role, std::string_view what);
  // Claims chain id `id` as a full page (open false) or a chain's open page (invariant 16).
  bool ClaimId(PageId id, bool open, std::string_view what);
  // Invariant 20: a Location that names where chain page `id` is stored (an index entry's, a chain
  // descriptor's) is the page map's; kNoPage: it must be unstored. Returns whether it is.
  bool CheckLocation(PageId id, const Location& given, std::string_view where);
  // Reads stored page `id` where the map says and decodes it into `page` (invariant 18), counting
  // its codec and bytes; `shadow`: in the shadow pack, a shadow or a process-tree page (its neighbours' bytes are not
  // checked, invariant 19).
  Status ReadStoredPage(PageId id, std::vector<std::byte>& page, bool shadow);
  // Reads every map leaf (invariant 17): fills map_.
  void LoadMap();
  // The packs (invariant 19): stored pages do not overlap, each starts where the one before ends or
  // at a slot boundary, skipped bytes are zero; every slot they cover is claimed as a pack slot.
  void CheckPacks();
  // The parts of Run, in the order it calls them.
  // Claims both superblock slots, and reports the slot not in use (invariant 10) and the bytes past
  // the last committed page.
  void CheckSuperblocks();
  // Claims the catalogue's pages and the free list's.
  void ClaimCatalogue();
  // Checks the string heap's chain, counting its pages as Report::space's id 0.
  void CheckHeap();
  // What the arrays' check gathers for the P index's, by array id.
  struct ArrayTotals;
  // Checks every array's levels, bottom up (CheckArray).
  ArrayTotals CheckArrays();
  void CheckArray(const ArrayDesc& a, ArrayTotals& t);
  // Invariant 14: the per-process and sole-process arrays against their parents' records.
  void CheckPerProcessArrays(ArrayTotals& t);
  // Checks the process tree of each process-indexed array (invariant 15).
  void CheckProcessTrees(const std::vector<std::optional<Summary>>& totals);
  // Chain ids and slots that nothing claimed: leaked (invariants 9 and 16).
  void CheckLeaks();
  // Checks one chain (invariants 6 to 8, and 11 to 14 for array levels with a `schema`). For an
  // array level, returns one entry per page (its full pages, then its open page if it has entries)
  // summarizing it, for the level above to be checked against; `below` is that list for the level
  // underneath (index levels only). nullopt after a problem.
  std::optional<std::vector<IndexEntry>> CheckChain(const ChainDesc& chain, PageKind kind, ArrayId array, uint8_t level,
                                                    uint32_t width, const Schema* schema,
                                                    const std::vector<IndexEntry>* below, const std::string& what);
  // The parts of CheckChain, in the order it calls them, over the state of one chain's check.
  struct ChainWalk;
  // Links: the full pages from `head` by `next`, each claimed and checked by CheckPage, the last
  // one's `next` the open page and its id `last_full` (invariant 6). False: stop checking the chain.
  bool CheckFullPages(ChainWalk& w);
  // The reserved open page claimed, and the shadow checked by CheckPage (invariant 7).
  bool CheckOpenPage(ChainWalk& w);
  // One page: read and verified, its header the one `want` describes (fullness: its entry count;
  // a right-edge entry added where allowed), then its contents: heap framing or records or index
  // entries. `logical` is the id the page stands for.
  bool CheckPage(ChainWalk& w, PageId logical, PageKey physical, const PageHeader& want, std::string_view role,
                 bool edge_allowed);
  // Heap framing: no string runs past the heap's end (invariant 8).
  void ScanHeap(ChainWalk& w, const std::byte* payload, uint32_t n, PageId id);
  // A data page's records: time order, and the process of each (invariants 13 and 14); adds them
  // to `sum`, the page's entry for the level above.
  void CheckRecords(ChainWalk& w, const std::byte* payload, const PageHeader& h, const std::string& where,
                    IndexEntry& sum);
  // An index page's entries against the pages below, in order (invariant 12); merges them into `sum`.
  void CheckIndexEntries(ChainWalk& w, const std::byte* payload, const PageHeader& h, const std::string& where,
                         IndexEntry& sum);
  // Every page below is covered by one entry, its open page by a right edge (invariant 11).
  void CheckCoverage(ChainWalk& w);
  // The heap does not end inside a length prefix (invariant 8).
  void CheckHeapEnd(ChainWalk& w);

  // Checks the process tree of `a` against `totals` (the root summary of every array by id).
  void CheckProcessTree(const ArrayDesc& a, const std::vector<std::optional<Summary>>& totals);

  Store& store_;
  size_t max_problems_;
  bool chains_cut_ = false;  // a chain's walk stopped at a page that failed
  Report report_;
  // While the data pages of an array with a process index are checked: its records' summary per
  // process. While those of a per-process array are: its process.
  std::map<int64_t, Summary>* per_process_ = nullptr;
  std::optional<int64_t> expect_process_;
  std::vector<Location> map_;                      // every chain id's Location, from the leaves
  std::vector<uint8_t> id_roles_;                  // by chain id: 0 unclaimed, 1 full page, 2 open page
  std::vector<std::pair<Location, bool>> stored_;  // the Locations of stored pages read, and shadow or not
  // Where ReadStoredPage counts the stored bytes of the pages being checked (Report::space): the
  // field of their array's entry for full pages, and for shadows; null: not counted.
  uint64_t* space_full_ = nullptr;
  uint64_t* space_shadow_ = nullptr;
};

std::string_view RoleName(StoreChecker::Role role);

}  // namespace xtfq
