// SlurmInfluxParser: InfluxDB line protocol as Slurm's acct_gather_profile/influxdb plugin sends it
// (`<Field>,job=<id>,step=<id>,task=<task|Network|Filesystem|Energy>,host=<node> value=<v> <time>`,
// one line per field of a sample), from a capture of its request bodies or of whole requests
// (lines starting with '#' are comments; a "### ... POST /write?...&precision=P" comment sets the
// time unit of the lines after it, seconds by default). The lines of each (job, step, task, host)
// are put back into rows: a row holds the fields of one time, and a field seen twice at one time
// starts a new row (the plugin repeats a sample). Each (job, step, task, host) becomes one
// SlurmDataset with EpochTime and its fields, integers as u64 (i64 when negative) and numbers with
// a point or an exponent as f64 (the plugin prints doubles with %.2f: they are what the line says).
//
// Errors name the file and line: a line without job, step, task and host tags, without a value, or
// with a number that does not parse; a time unit it does not know.
//
// Thread-safety: stateless.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "importers/slurm_dataset.h"
#include "store/result.h"

namespace xtfq {

struct SlurmInfluxCapture {
  std::vector<SlurmDataset> datasets;
  uint64_t lines = 0;      // lines of line protocol read
  uint64_t comments = 0;   // comment lines (request headers) skipped
  uint64_t subsecond = 0;  // times that were not whole seconds (truncated to the second)
};

class SlurmInfluxParser {
 public:
  static Result<SlurmInfluxCapture> Parse(std::string_view text, std::string_view file);
  // Whether the first bytes look like such a capture: a "### ... /write?" request line, or a first
  // line of protocol with job, step and task tags.
  static bool LooksLikeInflux(std::string_view head);
};

}  // namespace xtfq
