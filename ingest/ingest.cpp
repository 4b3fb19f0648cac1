#include "ingest/ingest.h"

#include <algorithm>

#include "importers/registry/importer_registry.h"
#include "query/core/store_reader.h"
#include "query/jobstats/jobstats_view.h"

namespace xtfq {

std::vector<std::string> IngestPlan::formats() const {
  std::vector<std::string> out;
  for (const InputGroup& g : groups) out.push_back(g.format);
  return out;
}

Result<IngestPlan> Ingest::Plan(const std::vector<std::string>& files, const std::string& format) {
  IngestPlan plan;
  if (files.empty()) return Error(ErrorCode::kInvalidArgument, "no input file to import");
  std::vector<InputGroup>& groups = plan.groups;
  for (const std::string& in : files) {
    std::string f = format;
    if (f == "auto") {
      XTFQ_ASSIGN_OR_RETURN(f, ImporterRegistry::Sniff(in));
      if (f == "darshan" || f == "darshan-text") f = "darshan-any";  // each log sniffed again by the importer
    }
    auto it = std::find_if(groups.begin(), groups.end(), [&](const InputGroup& g) { return g.format == f; });
    if (it == groups.end()) it = groups.insert(groups.end(), InputGroup{f, {}});
    it->inputs.push_back(in);
  }
  const bool jobstats =
      std::any_of(groups.begin(), groups.end(), [](const InputGroup& g) { return g.format == "jobstats"; });
  if (jobstats && groups.size() > 1) {
    return Error(ErrorCode::kUsage, "import job_stats snapshots on their own, not mixed with other inputs");
  }
  const auto slurm = std::count_if(groups.begin(), groups.end(),
                                   [](const InputGroup& g) { return g.format.starts_with("slurm-"); });
  if (slurm > 1) {
    return Error(ErrorCode::kUsage, "import Slurm HDF5 files and influxdb captures in separate runs");
  }
  return plan;
}

uint64_t Ingest::PendingChanges() const {
  const Catalogue pending = writer_.Pending();
  uint64_t n = pending.arrays.size();
  for (const ArrayDesc& a : pending.arrays) n += a.record_count();
  return n;
}

Result<IngestReport> Ingest::ImportAndCommit(const std::vector<InputGroup>& groups, RecordSource* existing) {
  IngestReport out;
  const uint64_t before = PendingChanges();
  for (const InputGroup& g : groups) {
    XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<Importer> importer, ImporterRegistry::Make(g.format, options_));
    Result<ImportReport> report = importer->Import(g.inputs, writer_, existing);
    if (options_.progress != nullptr) options_.progress->Finish();
    if (!report.ok()) return report.error();
    if (g.format.starts_with("slurm-")) out.slurm_totals += (out.slurm_totals.empty() ? "" : "; ") + report->totals;
    ImportReport& t = out.total;
    t.records += report->records, t.segments += report->segments, t.source_bytes += report->source_bytes;
    t.inputs += report->inputs, t.entries += report->entries, t.steps += report->steps, t.totals = report->totals;
    out.groups.push_back(std::move(*report));
  }
  // A store that exists and gained nothing (every input skipped, or held already): no commit.
  if (existing != nullptr && PendingChanges() == before) return out;
  XTFQ_TRY(writer_.Commit());
  out.committed = true;
  return out;
}

Result<DeriveReport> Ingest::Derive(bool jobstats, bool read_ahead) {
  DeriveReport out;
  XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<StoreReader> reader, StoreReader::Open(path_));
  if (jobstats) {
    XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<JobStatsView> view, JobStatsView::Open(*reader));
    XTFQ_ASSIGN_OR_RETURN(out.jobstats, JobStatsSummary::Extend(*view, writer_));
    out.committed = out.jobstats->extended;
  } else {
    reader->set_read_ahead(read_ahead);
    GridBuildOptions options;
    options.progress = options_.progress;
    XTFQ_ASSIGN_OR_RETURN(out.grids, GridBuilder::BuildMissing(*reader, writer_, options));
    if (options_.progress != nullptr) options_.progress->Finish();
    out.committed = !out.grids->built.empty();
  }
  if (out.committed) XTFQ_TRY(writer_.Commit());
  return out;
}

}  // namespace xtfq
