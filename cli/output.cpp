#include "cli/output.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cmath>

namespace xtfq::cli {

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

Result<int64_t> ParseJobId(const std::string& text, std::string_view what) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end || v < 0 || v > (int64_t{1} << 62)) {
    return Error(ErrorCode::kUsage,
                 fmt::format("{} '{}' is not a job id (a whole number, as Slurm gives it)", what, text));
  }
  return v;
}

std::string NumText(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e18 ? fmt::format("{:.0f}", v) : fmt::format("{}", v);
}

std::string UtcText(int64_t epoch_s) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                     std::chrono::sys_time<std::chrono::seconds>(std::chrono::seconds(epoch_s)));
}

std::string Counted(uint64_t n, std::string_view noun, std::string_view plural) {
  if (n == 1) return fmt::format("1 {}", noun);
  return plural.empty() ? fmt::format("{} {}s", n, noun) : fmt::format("{} {}", n, plural);
}

Result<std::unique_ptr<StoreReader>> OpenForReading(const std::string& path, const ReaderOptions& options) {
  XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<StoreReader> r, StoreReader::Open(path, options));
  const Store& s = r->store();
  if (s.Rollback()) {
    // The other slot names the next generation: that commit was torn or damaged after. Else its
    // generation field is damaged too, and whether a newer generation was lost cannot be told.
    const bool next = s.other_generation() && *s.other_generation() == s.generation() + 1;
    fmt::print(stderr, "xtfq: warning: {}; {}: this reads generation {}{} ('xtfq check {}' says more)\n",
               s.other_superblock() ? s.other_superblock()->message()
                                    : fmt::format("{}: superblock {} is not valid", path, 1 - s.superblock_slot()),
               next ? fmt::format("generation {} was lost", s.generation() + 1)
                    : std::string("whether a newer generation was lost cannot be told"),
               s.generation(), next ? ", the commit before it" : "", path);
  }
  return r;
}

std::string BinaryBytes(uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", n) : fmt::format("{:.1f} {}", v, units[u]);
}

}  // namespace xtfq::cli
