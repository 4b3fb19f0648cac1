// ProcessIndexBuilder: the P index of one array (docs/format.md, "P index"): which per-process
// array holds each process's records, and the process tree over their totals.
//
// The writer appends each record of the array to the per-process array of its process too, found
// here: processes 0..65535 through a dense table (one pointer per id up to the largest seen),
// others through a hash map. Every append marks the tree changed; at commit a changed tree is
// rebuilt from fresh pages (Build): level 0 holds one entry per process in increasing process order
// (its per-process array's totals, key = process, child = array id), each level above one entry per
// page below, up to a single root page. The previous tree's pages are released (writer invariants
// W1 and W2).
//
// While every record of the array is of one process (the parent's desc().sole_process), it has no
// per-process array: the tree's one entry is the array's own totals, naming the array itself.
//
// Invariants (writer invariant W7, CheckInvariants): each per-process array is registered under
// its own process, in the dense table exactly when that is in 0..65535, names this array as its
// parent and follows it; their record counts sum to this array's; each one's totals count its
// records of the last commit; an unchanged tree has ProcessTreePages(processes) pages, among them
// the root, and a root exactly when it has pages (and levels). Its pages are claimed in the
// audit (W5). That each entry holds its process's totals is the checker's (file invariant 15).
//
// Thread-safety: not thread-safe; driven by its writer's thread.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "store/array_desc.h"
#include "store/page_space.h"
#include "store/tn_tree_builder.h"
#include "store/writer_audit.h"

namespace xtfq {

class Store;

class ProcessIndexBuilder {
 public:
  // Processes 0..kDense-1 are found by position, others by hash.
  static constexpr int64_t kDense = 1 << 16;

  // `parent`: the array's own tree (its descriptor says whether it is of a sole process).
  // REQUIRES: `parent` outlives the builder.
  ProcessIndexBuilder(uint32_t page_size, TnTreeBuilder& parent) : page_size_(page_size), parent_(&parent) {}

  // The per-process array of `process`, or nullptr.
  TnTreeBuilder* Find(int64_t process) const {
    if (process >= 0 && process < kDense) {
      return static_cast<size_t>(process) < dense_.size() ? dense_[static_cast<size_t>(process)] : nullptr;
    }
    auto it = sparse_.find(process);
    return it == sparse_.end() ? nullptr : it->second;
  }
  // Registers the per-process array `child` of its process. REQUIRES: `child` outlives the builder.
  void Add(TnTreeBuilder& child);
  // A per-process array changed: the next commit rebuilds the tree.
  void MarkChanged() { changed_ = true; }
  bool changed() const { return changed_; }
  // Processes with records: those with a per-process array, or the sole one.
  size_t processes() const { return parent_->desc().sole_process ? 1 : processes_; }

  // The committed process tree of `parent`: its pages, and each per-process array's totals.
  // REQUIRES: every per-process array of `parent` added.
  Status Load(Store& store, const ArrayDesc& parent);
  // Rebuilds the tree of `parent` from fresh pages, releases the previous one, and sets
  // parent.process_root and parent.process_levels.
  Status Build(ArrayDesc& parent, PageSpace& space);

  // W7 for `parent`, whose record count (appended so far) is `records`; claims the tree's pages (W5).
  // The committed process tree's pages (stored pages, chain ids).
  const std::vector<PageId>& pages() const { return pages_; }
  Status CheckInvariants(const ArrayDesc& parent, uint64_t records, uint32_t chain_ids, WriterAudit& audit) const;

 private:
  uint32_t page_size_;
  TnTreeBuilder* parent_;              // not owned
  std::vector<TnTreeBuilder*> dense_;  // not owned
  std::unordered_map<int64_t, TnTreeBuilder*> sparse_;
  size_t processes_ = 0;
  bool changed_ = false;       // a per-process array changed since the last commit
  std::vector<PageId> pages_;  // the committed process tree's pages (chain ids)
};

}  // namespace xtfq
