#include "importers/importer.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "importers/darshan_file_importer.h"
#include "importers/darshan_importer.h"
#include "importers/darshan_text_importer.h"
#include "importers/events_file_importer.h"
#include "importers/jobstats_file_importer.h"
#include "importers/slurm_hdf5_importer.h"
#include "importers/slurm_hdf5_reader.h"
#include "importers/slurm_influx_importer.h"
#include "importers/slurm_influx_parser.h"
#include "store/format.h"
#include "store/posix_file.h"

namespace xtfq {

Result<std::unique_ptr<Importer>> Importer::Make(std::string_view format, const ImportOptions& options) {
  if (format == "events") return std::unique_ptr<Importer>(new EventsFileImporter(options));
  if (format == "darshan")
    return std::unique_ptr<Importer>(new DarshanFileImporter(options, DarshanFileImporter::Mode::kBinary));
  if (format == "darshan-text")
    return std::unique_ptr<Importer>(new DarshanFileImporter(options, DarshanFileImporter::Mode::kText));
  if (format == "darshan-any")
    return std::unique_ptr<Importer>(new DarshanFileImporter(options, DarshanFileImporter::Mode::kSniff));
  if (format == "jobstats") return std::unique_ptr<Importer>(new JobStatsFileImporter(options));
  if (format == "slurm-hdf5") return std::unique_ptr<Importer>(new SlurmHdf5Importer(options));
  if (format == "slurm-influx") return std::unique_ptr<Importer>(new SlurmInfluxImporter(options));
  return Error(
      ErrorCode::kUsage,
      fmt::format("'{}' is not an input format (events, darshan, darshan-text, jobstats, slurm-hdf5, slurm-influx)",
                  format));
}

Result<Importer::Inputs> Importer::Expand(const std::vector<std::string>& inputs, std::string_view format) {
  namespace fs = std::filesystem;
  Inputs out;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      out.files.push_back(in);
      continue;
    }
    // The directory and its subdirectories (Slurm writes profile/<user>/<job>_<step>_<node>.h5),
    // without following links to directories; hidden ones are skipped and named.
    std::vector<std::string> files;
    fs::recursive_directory_iterator it(in, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const fs::directory_entry& e = *it;
      const std::string name = e.path().filename().string();
      std::error_code dec;
      if (e.is_directory(dec)) {
        if (name.starts_with(".")) {
          out.skipped.push_back(fmt::format("{}: a hidden directory, not read", e.path().string()));
          it.disable_recursion_pending();
        }
        continue;
      }
      // Temporary files of `xtfq collect`'s atomic writes and its lock files are never inputs.
      if (e.is_regular_file(dec) && name.find(".tmp-") == std::string::npos && !name.ends_with(".collect.lock"))
        files.push_back(e.path().string());
    }
    if (ec) return Error(ErrorCode::kIo, fmt::format("{}: cannot list: {}", in, ec.message()));
    std::sort(files.begin(), files.end());
    // Darshan's own tools' text beside a binary log (X.darshan.txt, X.darshan.dxt.txt, ...) is the
    // same run: the log itself is imported, with its DXT segments and exact doubles, not its text.
    std::vector<std::pair<std::string, Result<std::string>>> kinds;
    std::map<std::string, std::string> binary;  // a log's path and its path without ".darshan" -> the log
    for (const std::string& f : files) {
      kinds.emplace_back(f, fs::file_size(f, ec) == 0 ? Result<std::string>(std::string()) : Sniff(f));
      if (kinds.back().second.ok() && *kinds.back().second == "darshan") {
        binary.emplace(f, f);
        if (f.ends_with(".darshan")) binary.emplace(f.substr(0, f.size() - 8), f);
      }
    }
    auto text_of = [&](const std::string& f) -> std::optional<std::string> {
      // The binary log X (or X.darshan) such that f is "X.<something>", the longest such X.
      const size_t name = f.rfind('/') == std::string::npos ? 0 : f.rfind('/') + 1;
      for (size_t dot = f.rfind('.'); dot != std::string::npos && dot > name; dot = f.rfind('.', dot - 1)) {
        if (auto it = binary.find(f.substr(0, dot)); it != binary.end()) return it->second;
      }
      return std::nullopt;
    };
    for (auto& [f, kind] : kinds) {
      if (kind.ok() && kind->empty()) {
        out.skipped.push_back(fmt::format("{}: empty", f));
        continue;
      }
      if (kind.ok() && *kind == "darshan-text" && format != "darshan-text") {
        if (auto log = text_of(f)) {
          out.skipped.push_back(
              fmt::format("{}: Darshan's text of {}, which is imported from the log itself", f, *log));
          continue;
        }
      }
      if (!kind.ok()) {
        out.skipped.push_back(
            fmt::format("{}: not an input (not a Darshan log, darshan-parser text, job_stats, a Slurm profile (HDF5 or "
                        "influxdb) or "
                        ".bin)",
                        f));
      } else if (format != "auto" && *kind != format && !(format == "darshan-text" && *kind == "darshan")) {
        out.skipped.push_back(fmt::format("{}: {} input, not {}", f, *kind, format));
      } else {
        out.files.push_back(f);
      }
    }
  }
  return out;
}

Result<std::string> Importer::Sniff(const std::string& path) {
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

uint32_t Importer::PageSizeFor(const std::vector<std::string>& formats) {
  const bool larger = !formats.empty() && std::all_of(formats.begin(), formats.end(), [](const std::string& f) {
    return f == "darshan-any" || f == "darshan" || f == "darshan-text" || f == "jobstats";
  });
  return larger ? 8192 : format::kDefaultPageSize;
}

}  // namespace xtfq
