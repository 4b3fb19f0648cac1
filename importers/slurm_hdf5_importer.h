// SlurmHdf5Importer: the Importer of Slurm acct_gather_profile/hdf5 files (format
// "slurm-hdf5"): node-step files "<job>_<step>_<node>.h5" and sh5util's merged "job_<job>.h5", or
// directories of them (docs/format.md, "Slurm layout"). Each dataset becomes a series of
// slurm.series and each of its rows a record of slurm/<job>/tasks, fs, net or other, sorted by
// time within the job. Every value read is stored as read; what is derived from it is stored
// beside it and said:
//  - ReadMB and WriteMB are Slurm's byte counts / 2^20: the bytes are stored exactly (a value
//    that is not a whole number of bytes is rounded and flagged);
//  - row 0 of a series (Slurm zeroes its deltas) and a row at the same EpochTime as the one before
//    it are flagged, and kept;
//  - Filesystem series (the lustre gatherer, Slurm up to 25.05) are running totals: each row's
//    change is stored beside it, a decrease flagged as a reset;
//  - Network series of the sysfs gatherer hold bytes under PacketsIn/Out and packets / 2^16 under
//    InMB/OutMB: detected per series (bytes above packets) and stored by what they count;
//  - a merged file repeats its node-step files' datasets: a series with the same job, step, node,
//    kind, task and rows as one read before is recorded as a duplicate, without its rows again.
// A job whose arrays the store already holds is refused (import all of a job's files in one run:
// records of an array are kept in time order).
//
// Thread-safety: one import at a time (libhdf5 is serial).
#pragma once

#include <string_view>

#include "importers/importer.h"

namespace xtfq {

class SlurmHdf5Importer final : public Importer {
 public:
  explicit SlurmHdf5Importer(ImportOptions options) : options_(std::move(options)) {}
  std::string_view format() const override { return "slurm-hdf5"; }
  Result<ImportReport> Import(const std::vector<std::string>& inputs, RecordSink& sink,
                              RecordSource* existing) override;

 private:
  ImportOptions options_;
};

}  // namespace xtfq
