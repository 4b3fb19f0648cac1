// SlurmInfluxParser: InfluxDB line protocol as Slurm's acct_gather_profile/influxdb plugin sends it,
// from a capture of its request bodies or of whole requests (lines starting with '#' are comments;
// a "### ... POST /write?...&precision=P" comment sets the time unit of the lines after it, seconds
// by default). Two forms, which may be mixed (tags in any order, others such as 26.05's cluster,
// sluid, uid and user ignored):
//   per field (every version): one line per field of a sample, the measurement naming the field,
//     `<Field>,job=<id>,step=<id>,task=<task|Network|Filesystem|Energy>,host=<node> value=<v> <time>`
//     (up to 25.11: step as %d, so batch is -5), or from 26.05 `<Field>,host=..,job=..,step=..[,task=..]`
//     (step as %u, so batch is 4294967291; no task tag on a node's series, whose kind the field's
//     name tells: PacketsIn/PacketsOut/InMB/OutMB, Reads/ReadMB/Writes/WriteMB, Energy or *Power);
//     u64 as %PRIu64, doubles as %.2f.
//   grouped (26.05, ProfileInfluxDBFlags=grouped_fields): one line per sample, the measurement
//     naming the series (task, network, filesystem, energy), a field per column,
//     `task,host=<node>,job=<id>,step=<0|batch|extern|interactive>,task=<task> RSS=4644i,CPUTime=0.5 <time>`
//     (no task tag for network, filesystem and energy); u64 as %PRIu64 "i", doubles as %.9g.
// The lines of each (job, step, task or kind, host) are put back into rows: a row holds the fields
// of one time, and a field seen twice at one time starts a new row (the plugin repeats a sample).
// Each becomes one SlurmDataset with EpochTime and its fields, integers as u64 (i64 when negative)
// and other numbers as f64: in the per-field form those with a point or an exponent, in the grouped
// form those without an 'i' (or 'u') suffix. Values are what the line says (%.2f and %.9g round).
// The step is named as the store names it ("batch", "extern", "interactive" for -5/-4/-6 and their
// %u forms); a dataset's path is "job=<id>,step=<as sent>,task=<task or kind>,host=<node>".
//
// Errors name the file and line: a line without job, step and host tags, or a task's (per-field
// form: a field no node series has; grouped: measurement task) without a task tag; a field without
// '=' or value; a number that does not parse, or an integer suffix on one that is not an integer;
// no time; a time unit it does not know; a request (a "### ... /write?" line and its "###"
// headers) whose body is shorter than its Content-Length (a capture cut short).
//
// Thread-safety: stateless.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "importers/slurm/slurm_dataset.h"
#include "store/result.h"

namespace xtfq {

struct SlurmInfluxCapture {
  std::vector<SlurmDataset> datasets;
  uint64_t lines = 0;      // lines of line protocol read
  uint64_t comments = 0;   // comment lines (request headers) skipped
  uint64_t subsecond = 0;  // times that were not whole seconds (truncated to the second)
  // The last line when the text does not end with a newline (it may be cut short); 0 otherwise.
  uint64_t unterminated = 0;
};

class SlurmInfluxParser {
 public:
  static Result<SlurmInfluxCapture> Parse(std::string_view text, std::string_view file);
  // Whether the first bytes look like such a capture: a "### ... /write?" request line, or a first
  // line of protocol with job and step tags, and a task or host tag.
  static bool LooksLikeInflux(std::string_view head);
};

}  // namespace xtfq
