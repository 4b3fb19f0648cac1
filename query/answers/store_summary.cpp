#include "query/answers/store_summary.h"

#include <fmt/format.h>

#include <functional>

#include "index/tn_tree.h"
#include "layouts/slurm_layout.h"
#include "query/core/store_kind.h"
#include "query/jobstats/jobstats_view.h"
#include "query/slurm/slurm_view.h"
#include "store/endian.h"
#include "store/format.h"
#include "store/index_entry.h"

namespace xtfq {

namespace {

struct ChainPages {
  uint64_t full = 0;
  uint64_t shadow = 0;  // 0 or 1
};

ChainPages Count(const ChainDesc& c, uint32_t page_size, uint32_t width) {
  const uint32_t cap = PageCapacity(page_size, width);
  return ChainPages{c.FullPages(cap), c.shadow != kNoPage ? 1u : 0u};
}

// Data and index pages of one array (each counting the open page's shadow once), and its levels.
struct ArrayPages {
  uint64_t data = 0, index = 0;
  std::vector<StoreSummary::Level> levels;
};

}  // namespace

Result<StoreSummary> StoreSummary::Of(StoreReader& reader) {
  const Store& s = reader.store();
  const Superblock& sb = s.superblock();
  const Catalogue& cat = s.catalogue();
  StoreSummary out;
  out.store = s.name();
  out.format_version = sb.version, out.page_size = sb.page_size, out.superblock_slot = s.superblock_slot();
  out.generation = sb.generation, out.commit_time_ns = sb.commit_time_ns, out.page_count = sb.page_count,
  out.file_bytes = s.file_size();
  const ChainPages heap = Count(cat.heap, sb.page_size, 1);
  Pages& pg = out.pages;
  pg.superblock = format::kSuperblockSlots, pg.catalogue = sb.catalogue_pages, pg.heap = heap.full;
  pg.shadow = heap.shadow, pg.free = cat.free_pages.size();
  for (PageId leaf : cat.map_leaves) pg.page_map += leaf != kNoPage ? 1 : 0;
  std::vector<ArrayPages> pages(cat.arrays.size());
  for (const ArrayDesc& a : cat.arrays) {
    ArrayPages& ap = pages[a.id.value - 1];
    for (size_t l = 0; l < a.levels.size(); ++l) {
      const uint32_t width = l == 0 ? a.schema.record_width() : IndexEntry::Width(a.schema);
      const ChainPages lc = Count(a.levels[l], sb.page_size, width);
      (l == 0 ? pg.data : pg.index) += lc.full;
      pg.shadow += lc.shadow;
      (l == 0 ? ap.data : ap.index) += lc.full + lc.shadow;
      ap.levels.push_back({lc.full + lc.shadow, PageCapacity(sb.page_size, width)});
    }
  }
  for (const ArrayDesc& a : cat.arrays) {
    if (a.per_process()) continue;
    const ArrayPages& ap = pages[a.id.value - 1];
    Array x;
    x.id = a.id.value, x.name = a.name, x.records = a.record_count(), x.desc = &a;
    x.record_bytes = a.schema.record_width();
    x.records_per_page = PageCapacity(sb.page_size, x.record_bytes);
    x.full_pages = a.levels[0].FullPages(x.records_per_page);
    x.open_page_records = a.levels[0].OpenEntries(x.records_per_page);
    x.levels = ap.levels, x.index_pages = ap.index;
    x.index_overhead = ap.data == 0 ? 0.0 : static_cast<double>(ap.index) / static_cast<double>(ap.data);
    uint64_t all_pages = ap.data + ap.index;
    if (a.process_index) {
      ProcessIndex pi;
      if (a.sole_process) pi.sole = a.process;
      for (const ArrayDesc* c : cat.Children(a.id, INT64_MIN, INT64_MAX)) {
        ++pi.processes;
        if (c->id == a.id) continue;  // a sole-process array: no copy
        pi.data_pages += pages[c->id.value - 1].data, pi.index_pages += pages[c->id.value - 1].index;
      }
      pi.tree_pages = ProcessTreePages(pi.processes, PageCapacity(sb.page_size, IndexEntry::Width(a.schema)));
      pi.tree_height = a.process_levels;
      pg.process_tree += pi.tree_pages;
      all_pages += pi.data_pages + pi.index_pages + pi.tree_pages;
      x.process_index = pi;
    }
    x.bytes_per_record = a.record_count() == 0
                             ? 0.0
                             : static_cast<double>(all_pages * sb.page_size) / static_cast<double>(a.record_count());
    out.arrays.push_back(std::move(x));
  }
  // Every slot not otherwise used is a pack slot (docs/format.md, invariant 9).
  pg.pack = sb.page_count - pg.superblock - pg.catalogue - pg.page_map - pg.free;
  out.free_bytes = pg.free * sb.page_size, out.heap_bytes = cat.heap.entries, out.catalogue_bytes = sb.catalogue_bytes;
  // The summaries of the kinds of data read data pages: a damaged page leaves its part out, said.
  auto part = [&](std::string_view what, const std::function<Status()>& read) -> Status {
    Status st = read();
    if (st.ok() || st.error().code() != ErrorCode::kCorrupt) return st;
    out.unreadable.push_back(Error(ErrorCode::kCorrupt, fmt::format("{} ({} left out)", st.error().message(), what)));
    return Ok();
  };
  XTFQ_TRY(part("the Darshan logs", [&]() -> Status {
    XTFQ_ASSIGN_OR_RETURN(out.darshan_logs, DarshanLogs::List(reader));
    return Ok();
  }));
  XTFQ_TRY(part("the job_stats summary", [&]() -> Status { return JobStatsPart(reader, out); }));
  XTFQ_TRY(part("the Slurm jobs", [&]() -> Status { return SlurmPart(reader, out); }));
  return out;
}

Status StoreSummary::JobStatsPart(StoreReader& reader, StoreSummary& out) {
  if (StoreContents::Of(reader.catalogue()).jobstats) {
    XTFQ_ASSIGN_OR_RETURN(auto js, JobStatsView::Open(reader));
    XTFQ_ASSIGN_OR_RETURN(auto span, js->Span());
    JobStats j;
    j.targets = js->targets().size(), j.collections = js->collections(), j.entries = js->entries(),
    j.series = js->series().size();
    j.ops = js->ops();
    for (size_t c = 0; c < kJobIdClasses; ++c) j.classes[std::string(JobIdClassName(static_cast<JobIdClass>(c)))] = 0;
    for (const JobStatsSeriesInfo& x : js->series()) ++j.classes[std::string(JobIdClassName(x.cls))];
    if (span) j.first = span->first, j.last = span->second;
    out.jobstats = std::move(j);
  }
  return Ok();
}

Status StoreSummary::SlurmPart(StoreReader& reader, StoreSummary& out) {
  if (StoreContents::Of(reader.catalogue()).slurm) {
    using L = SlurmLayout;
    XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<SlurmView> view, SlurmView::Open(reader));
    std::map<int64_t, SlurmJob> jobs;
    for (const SlurmSeries& x : view->series()) {
      SlurmJob& j = jobs[x.job];
      j.job = x.job;
      ++j.series;
      j.duplicates += x.duplicate();
      if (!x.duplicate()) j.rows += x.rows;
      j.steps.insert(x.step);
      j.nodes.insert(x.node);
      j.sources.insert(std::string(L::SourceName(x.source)));
      if (x.start != INT64_MIN) j.first = std::min(j.first, x.start);
    }
    std::vector<SlurmJob> done;
    for (auto& [id, j] : jobs) {
      for (const char* kind : {"tasks", "fs", "net", "other"}) {
        auto a = reader.Array(L::JobArrayName(id, kind));
        if (!a.ok() || (*a)->record_count() == 0) continue;
        XTFQ_ASSIGN_OR_RETURN(TimeFrame f, reader.Frame(**a));
        j.first = std::min(j.first, f.first), j.last = std::max(j.last, f.last);
      }
      done.push_back(std::move(j));
    }
    out.slurm_jobs = std::move(done);  // all of them or, when a page fails, none
  }
  return Ok();
}

}  // namespace xtfq
