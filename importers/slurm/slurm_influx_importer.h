// SlurmInfluxImporter: the Importer of captures of Slurm's acct_gather_profile/influxdb plugin
// (format "slurm-influx"): InfluxDB line protocol, as request bodies or whole logged requests
// (SlurmInfluxParser). Its series are laid out like the HDF5 files' (SlurmSeriesWriter,
// docs/format.md "Slurm layout"), with source influxdb: no ElapsedTime and no node attributes
// (the plugin sends neither), and doubles as the plugin printed them (%.2f, or %.9g in 26.05's
// grouped form).
//
// Thread-safety: one import at a time.
#pragma once

#include <string_view>

#include "importers/common/importer.h"

namespace xtfq {

class SlurmInfluxImporter final : public Importer {
 public:
  // `sniff` tells the format of each file of an input directory (ExpandInputs).
  SlurmInfluxImporter(ImportOptions options, InputSniffer sniff)
      : options_(std::move(options)), sniff_(std::move(sniff)) {}
  std::string_view format() const override { return "slurm-influx"; }
  Result<ImportReport> Import(const std::vector<std::string>& inputs, RecordSink& sink,
                              RecordSource* existing) override;

 private:
  ImportOptions options_;
  InputSniffer sniff_;
};

}  // namespace xtfq
