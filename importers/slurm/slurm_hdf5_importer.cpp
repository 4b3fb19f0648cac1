#include "importers/slurm/slurm_hdf5_importer.h"

#include <fmt/format.h>

#include <filesystem>

#include "importers/common/input_progress.h"
#include "importers/slurm/slurm_hdf5_reader.h"
#include "importers/slurm/slurm_series_writer.h"
#include "layouts/slurm_layout.h"

namespace xtfq {

namespace {

// What a file's name says: Slurm names node-step files "<job>_<step>_<node>.h5" and sh5util
// writes "job_<job>.h5".
struct FileName {
  int64_t job = 0;
  std::string step, node;  // node-step files only
};

Result<FileName> ParseName(const std::string& path, bool merged) {
  const std::string name = std::filesystem::path(path).filename().string();
  auto bad = [&] {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: cannot tell the job from the file's name: Slurm names a node-step file "
                             "<job>_<step>_<node>.h5 and sh5util a merged one job_<job>.h5 (this file is {})",
                             path, merged ? "merged" : "a node-step file"));
  };
  if (!name.ends_with(".h5")) return bad();
  const std::string stem = name.substr(0, name.size() - 3);
  FileName f;
  if (merged) {
    if (!stem.starts_with("job_")) return bad();
    auto job = SlurmSeriesWriter::Number(stem.substr(4));
    if (!job) return bad();
    f.job = *job;
    return f;
  }
  const size_t a = stem.find('_');
  const size_t b = a == std::string::npos ? a : stem.find('_', a + 1);
  if (b == std::string::npos) return bad();
  auto job = SlurmSeriesWriter::Number(stem.substr(0, a));
  if (!job) return bad();
  f.job = *job;
  f.step = stem.substr(a + 1, b - a - 1);
  f.node = stem.substr(b + 1);
  return f;
}

// A step's id: its number, or Slurm's negative ids for its named steps.

}  // namespace

Result<ImportReport> SlurmHdf5Importer::Import(const std::vector<std::string>& inputs, RecordSink& sink,
                                               RecordSource* existing) {
  XTFQ_ASSIGN_OR_RETURN(Inputs expanded, ExpandInputs(inputs, "slurm-hdf5", sniff_));
  ImportReport report;
  for (const std::string& x : expanded.skipped) report.warnings.push_back(fmt::format("{} (left out)", x));
  SlurmSeriesWriter writer(sink, existing, options_.slurm_version);
  // The files stay in memory until every job is sorted: profiles are small (a task sampled every
  // second for a day is 86,400 rows of 80 bytes).
  std::vector<SlurmHdf5File> files;
  files.reserve(expanded.files.size());
  InputProgress progress(options_.progress, expanded.files);
  for (const std::string& f : expanded.files) {
    progress.Begin(f);
    XTFQ_ASSIGN_OR_RETURN(SlurmHdf5File file, SlurmHdf5Reader::Read(f));
    XTFQ_ASSIGN_OR_RETURN(FileName name, ParseName(f, file.merged));
    for (SlurmDataset& d : file.datasets) {
      d.job = name.job;
      if (file.merged) continue;
      d.step = name.step;
      if (d.node != name.node) {
        report.warnings.push_back(
            fmt::format("{}: {}: node group '{}' where the file's name says '{}'", f, d.path, d.node, name.node));
      }
    }
    files.push_back(std::move(file));
    const std::string what =
        files.back().merged ? "merged file" : fmt::format("node-step file (step {} on {})", name.step, name.node);
    XTFQ_TRY(writer.Add(f, files.back().merged ? SlurmLayout::kMerged : SlurmLayout::kNodeStep, what,
                        files.back().datasets, report));
    progress.End();
  }
  XTFQ_TRY(writer.Finish(report));
  report.inputs = expanded.files.size();
  return report;
}

}  // namespace xtfq
