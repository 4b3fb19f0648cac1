#include "cli/collect_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <thread>
#include <utility>

#include "importers/registry/importer_registry.h"
#include "ingest/ingest.h"
#include "layouts/jobstats_layout.h"
#include "query/core/store_reader.h"
#include "store/endian.h"
#include "store/store_writer.h"

namespace xtfq::cli {

namespace {

// The newest collection time the store holds (the last collection record: they are in time order).
Result<int64_t> Newest(StoreReader& reader) {
  int64_t t = std::numeric_limits<int64_t>::min();
  const ArrayDesc* cols = reader.catalogue().Find(JobStatsLayout::kCollections);
  if (cols == nullptr || cols->record_count() == 0) return t;
  XTFQ_TRY(reader.ForEachAt(*cols, cols->record_count() - 1, cols->record_count(), [&](const std::byte* r) {
    t = I64At(r, JobStatsLayout::kColT);
    return Result<bool>(false);
  }));
  return t;
}

// The store's writer; waits up to `wait` while another writer holds it, creates it when absent
// (or when what is there was never committed: StoreWriter::OpenOrCreatePath) in the page size
// `xtfq import` gives job_stats.
Result<StoreWriter::Opened> OpenWriter(const std::string& path, std::chrono::milliseconds wait) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  StoreOptions options;
  options.page_size = ImporterRegistry::PageSizeFor({"jobstats"});
  for (;;) {
    std::error_code ec;
    const bool exists = std::filesystem::exists(path, ec);
    auto w = StoreWriter::OpenOrCreatePath(path, options);
    if (w.ok()) return w;
    // Busy, or another process created the store between the test and the creation.
    const bool again = w.error().code() == ErrorCode::kBusy || (!exists && std::filesystem::exists(path, ec));
    const auto waited = Clock::now() - start;
    if (!again || waited >= wait) {
      if (w.error().code() != ErrorCode::kBusy) return w.error();
      return Error(ErrorCode::kBusy, fmt::format("{} (waited {:.1f} s)", w.error().message(),
                                                 std::chrono::duration<double>(waited).count()));
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(50), wait - waited));
  }
}
}  // namespace

CollectAppend CollectStore::Append(std::vector<SnapshotDirectory::Snapshot> snapshots) const {
  CollectAppend out;
  if (snapshots.empty()) return out;
  std::stable_sort(snapshots.begin(), snapshots.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
  auto stop = [&](size_t i, const Error& e) {
    out.stopped = e;
    out.waiting.assign(snapshots.begin() + static_cast<std::ptrdiff_t>(i), snapshots.end());
    return out;
  };
  auto writer = OpenWriter(path_, busy_wait_);
  if (!writer.ok()) return stop(0, writer.error());
  std::unique_ptr<StoreWriter> w = std::move(writer->writer);
  std::optional<std::string> created_note = std::move(writer->note);
  ReaderOptions ro;
  ro.cache_bytes = size_t{16} << 20;
  // What the store holds (this writer's commits included), for the importer to continue from;
  // opened again after each commit.
  std::unique_ptr<StoreReader> reader;
  int64_t newest = 0;
  for (size_t i = 0; i < snapshots.size(); ++i) {
    const SnapshotDirectory::Snapshot& s = snapshots[i];
    if (reader == nullptr) {
      auto r = StoreReader::Open(path_, ro);
      if (!r.ok()) return stop(i, r.error());
      reader = std::move(*r);
      auto n = Newest(*reader);
      if (!n.ok()) return stop(i, n.error());
      newest = *n;
    }
    if (s.time < newest) {
      out.behind.push_back(s);
      continue;
    }
    Ingest ingest(*w, path_, options_);
    auto report = ingest.ImportAndCommit({InputGroup{"jobstats", {s.path}}}, reader.get());
    // A failed import may have appended part of the file: the writer is dropped uncommitted.
    if (!report.ok()) return stop(i, report.error());
    CollectAppend::Done d;
    d.snapshot = s;
    d.appended = report->committed;
    if (d.appended) reader.reset();
    ImportReport& r = report->groups.front();
    d.entries = r.entries, d.steps = r.steps, d.generation = w->generation();
    d.notes = std::move(r.notes), d.warnings = std::move(r.warnings);
    if (created_note) d.notes.insert(d.notes.begin(), *std::exchange(created_note, std::nullopt));
    out.done.push_back(std::move(d));
  }
  // The job_stats summaries to the new seal, in a commit of their own: the snapshots are in
  // whatever happens to it (a window past the summaries reads the steps).
  if (!out.done.empty() && out.done.back().appended) {
    Result<DeriveReport> d = Ingest(*w, path_, options_).Derive(/*jobstats=*/true, /*read_ahead=*/false);
    if (d.ok() && d->committed) out.done.back().generation = w->generation();
    if (!d.ok()) {
      out.done.back().warnings.push_back(
          fmt::format("the job_stats summaries were not extended: {}", d.error().message()));
    }
  }
  return out;
}

}  // namespace xtfq::cli
