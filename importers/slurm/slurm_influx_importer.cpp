#include "importers/slurm/slurm_influx_importer.h"

#include <fmt/format.h>

#include "importers/common/input_progress.h"
#include "importers/slurm/slurm_influx_parser.h"
#include "importers/slurm/slurm_series_writer.h"
#include "layouts/slurm_layout.h"
#include "store/posix_file.h"

namespace xtfq {

Result<ImportReport> SlurmInfluxImporter::Import(const std::vector<std::string>& inputs, RecordSink& sink,
                                                 RecordSource* existing) {
  XTFQ_ASSIGN_OR_RETURN(Inputs expanded, ExpandInputs(inputs, "slurm-influx", sniff_));
  ImportReport report;
  for (const std::string& x : expanded.skipped) report.warnings.push_back(fmt::format("{} (left out)", x));
  SlurmSeriesWriter writer(sink, existing, options_.slurm_version);
  std::vector<SlurmInfluxCapture> captures;
  captures.reserve(expanded.files.size());
  InputProgress progress(options_.progress, expanded.files);
  for (const std::string& f : expanded.files) {
    progress.Begin(f);
    XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(f, PosixFile::Mode::kRead));
    XTFQ_ASSIGN_OR_RETURN(uint64_t size, file->Size());
    std::string text(size, '\0');
    XTFQ_TRY(ReadExact(*file, 0, std::as_writable_bytes(std::span(text))));
    XTFQ_ASSIGN_OR_RETURN(SlurmInfluxCapture c, SlurmInfluxParser::Parse(text, f));
    if (c.subsecond > 0) {
      report.warnings.push_back(
          fmt::format("{}: {} time{} not a whole second; kept to the second (the store keeps EpochTime in seconds)", f,
                      c.subsecond, c.subsecond == 1 ? " was" : "s were"));
    }
    if (c.unterminated > 0) {
      report.warnings.push_back(
          fmt::format("{}: line {}, the last, ends without a newline: it may be cut short (the plugin ends every line)",
                      f, c.unterminated));
    }
    captures.push_back(std::move(c));
    XTFQ_TRY(writer.Add(
        f, SlurmLayout::kInflux,
        fmt::format("influxdb capture ({} lines, {} comment lines)", captures.back().lines, captures.back().comments),
        captures.back().datasets, report));
    progress.End();
  }
  XTFQ_TRY(writer.Finish(report));
  report.inputs = expanded.files.size();
  return report;
}

}  // namespace xtfq
