// SlurmHdf5Importer: the Importer of Slurm acct_gather_profile/hdf5 files (format
// "slurm-hdf5"): node-step files "<job>_<step>_<node>.h5" and sh5util's merged "job_<job>.h5", or
// directories of them (docs/format.md, "Slurm layout"). Each dataset becomes a series of
// slurm.series and each of its rows a record of slurm/<job>/tasks, fs, net or other, sorted by
// time within the job, by SlurmSeriesWriter (which says what is derived from the values and how).
// The job comes from the file's name; import all of a job's files in one run.
//
// Thread-safety: one import at a time (libhdf5 is serial).
#pragma once

#include <string_view>

#include "importers/common/importer.h"

namespace xtfq {

class SlurmHdf5Importer final : public Importer {
 public:
  // `sniff` tells the format of each file of an input directory (ExpandInputs).
  SlurmHdf5Importer(ImportOptions options, InputSniffer sniff)
      : options_(std::move(options)), sniff_(std::move(sniff)) {}
  std::string_view format() const override { return "slurm-hdf5"; }
  Result<ImportReport> Import(const std::vector<std::string>& inputs, RecordSink& sink,
                              RecordSource* existing) override;

 private:
  ImportOptions options_;
  InputSniffer sniff_;
};

}  // namespace xtfq
