#include "importers/common/importer.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

namespace xtfq {

Result<Importer::Inputs> ExpandInputs(const std::vector<std::string>& inputs, std::string_view format,
                                      const InputSniffer& sniff) {
  namespace fs = std::filesystem;
  Importer::Inputs out;
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
      kinds.emplace_back(f, fs::file_size(f, ec) == 0 ? Result<std::string>(std::string()) : sniff(f));
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

}  // namespace xtfq
