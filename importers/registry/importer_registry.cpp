#include "importers/registry/importer_registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "importers/darshan/darshan_file_importer.h"
#include "importers/darshan/darshan_importer.h"
#include "importers/darshan/darshan_text_importer.h"
#include "importers/events/events_file_importer.h"
#include "importers/jobstats/jobstats_file_importer.h"
#include "importers/slurm/slurm_hdf5_importer.h"
#include "importers/slurm/slurm_hdf5_reader.h"
#include "importers/slurm/slurm_influx_importer.h"
#include "importers/slurm/slurm_influx_parser.h"
#include "store/format.h"
#include "store/posix_file.h"

namespace xtfq {

Result<std::unique_ptr<Importer>> ImporterRegistry::Make(std::string_view format, const ImportOptions& options) {
  if (format == "events") return std::unique_ptr<Importer>(new EventsFileImporter(options));
  if (format == "darshan")
    return std::unique_ptr<Importer>(new DarshanFileImporter(options, DarshanFileImporter::Mode::kBinary, &Sniff));
  if (format == "darshan-text")
    return std::unique_ptr<Importer>(new DarshanFileImporter(options, DarshanFileImporter::Mode::kText, &Sniff));
  if (format == "darshan-any")
    return std::unique_ptr<Importer>(new DarshanFileImporter(options, DarshanFileImporter::Mode::kSniff, &Sniff));
  if (format == "jobstats") return std::unique_ptr<Importer>(new JobStatsFileImporter(options, &Sniff));
  if (format == "slurm-hdf5") return std::unique_ptr<Importer>(new SlurmHdf5Importer(options, &Sniff));
  if (format == "slurm-influx") return std::unique_ptr<Importer>(new SlurmInfluxImporter(options, &Sniff));
  return Error(
      ErrorCode::kUsage,
      fmt::format("'{}' is not an input format (events, darshan, darshan-text, jobstats, slurm-hdf5, slurm-influx)",
                  format));
}

Result<Importer::Inputs> ImporterRegistry::Expand(const std::vector<std::string>& inputs, std::string_view format) {
  return ExpandInputs(inputs, format, &ImporterRegistry::Sniff);
}

Result<std::string> ImporterRegistry::Sniff(const std::string& path) {
  if (std::filesystem::path(path).extension() == ".bin") return std::string("events");
  if (std::filesystem::is_directory(path)) return std::string("jobstats");
  XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(path, PosixFile::Mode::kRead));
  std::vector<std::byte> head(256);
  XTFQ_ASSIGN_OR_RETURN(size_t got, file->ReadAt(0, head));
  head.resize(got);
  if (DarshanImporter::LooksBinary(head)) return std::string("darshan");
  if (SlurmHdf5Reader::LooksLikeHdf5(head)) return std::string("slurm-hdf5");
  if (DarshanTextImporter::LooksLikeText(head)) return std::string("darshan-text");
  if (SlurmInfluxParser::LooksLikeInflux(std::string_view(reinterpret_cast<const char*>(head.data()), head.size())))
    return std::string("slurm-influx");
  if (JobStatsFileImporter::LooksLikeJobStats(
          std::string_view(reinterpret_cast<const char*>(head.data()), head.size()))) {
    return std::string("jobstats");
  }
  return Error(ErrorCode::kInvalidArgument, fmt::format("{}: cannot tell the format (not a Darshan log, darshan-parser "
                                                        "text, job_stats, a Slurm profile (HDF5 or influxdb) or "
                                                        ".bin); give --format",
                                                        path));
}

uint32_t ImporterRegistry::PageSizeFor(const std::vector<std::string>& formats) {
  const bool larger = !formats.empty() && std::all_of(formats.begin(), formats.end(), [](const std::string& f) {
    return f == "darshan-any" || f == "darshan" || f == "darshan-text" || f == "jobstats";
  });
  return larger ? 8192 : format::kDefaultPageSize;
}

}  // namespace xtfq
