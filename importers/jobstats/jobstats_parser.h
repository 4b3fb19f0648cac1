// JobStatsParser: Lustre job_stats text, line by line, every variant of
// ../shared/docs/lustre-jobstats.md (sections 2-3): `lctl get_param` framing (several targets,
// one-line empty targets `...job_stats=job_stats:`, empty values, other parameters mixed in and
// skipped) or a plain `cat` of one file (the target then comes from the caller); the header forms
// (integer epoch; 2.15.0-2.15.1's unindented since-boot `secs.nsecs`; indented epoch `secs.nsecs`;
// snapshot only) with start_time and elapsed_time; counters keyed by name in any order, unknown
// names kept; `unit`, `min`/`max`/`sum` (with or without the space after the colon), `sumsq` and
// `hist`; quoted and `\xHH`-escaped job ids; line-wrapped captures joined (a counter line whose
// braces are not closed takes the following lines).
//
// Comment lines start with '#'; "# collected_at: <epoch>" (written by `xtfq collect`) gives the
// collection time, which snapshot_time is not (it is an entry's last update).
//
// A malformed entry is reported (file and line) and skipped up to the next entry; the rest of
// the file is still read. A counter whose '{' is never closed ends at the next entry or target
// line (or at kMaxCounterText bytes, past which it is no longer kept): the entry is reported and
// skipped, and the line read as usual. Every line is examined a bounded number of times, so a
// parse is linear in the file's size (Summary::scanned counts the bytes examined). Duplicate (target, job id) entries
// of one dump are all delivered; the caller keeps the last (docs section 2.4).
//
// Thread-safety: stateless.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/file.h"

namespace xtfq {

struct JobStatsCounter {
  std::string op;
  uint64_t samples = 0;
  std::string unit;  // "reqs", "bytes", "usecs", or empty when absent
  std::optional<uint64_t> min, max, sum, sumsq;
  std::vector<std::pair<std::string, uint64_t>> hist;  // bucket label ("4K"), count
  uint64_t line = 0;                                   // where it starts
};

struct JobStatsEntry {
  std::string target;   // "scratch-OST000f"; empty when unknown
  std::string job_id;   // the decoded bytes
  bool quoted = false;  // printed in quotes (2.15.2+ escaping)
  // Seconds; since_boot when the header is 2.15.0-2.15.1's monotonic clock (or below 1e9).
  double snapshot_time = 0;
  std::optional<double> start_time, elapsed_time;
  bool since_boot = false;
  std::vector<JobStatsCounter> counters;
  uint64_t line = 0;  // of the job_id line
};

struct JobStatsProblem {
  uint64_t line;
  std::string message;
};

class JobStatsParser {
 public:
  struct Summary {
    uint64_t entries = 0, lines = 0;
    std::vector<std::string> targets;       // in order of appearance, including empty ones
    std::vector<JobStatsProblem> problems;  // entries skipped (or lines not read)
    // Read and kept, but worth a word: counters with a unit other than reqs, bytes or usecs (one
    // per unit, at its first line; past kMaxUnitWarnings units, one for the rest).
    std::vector<JobStatsProblem> warnings;
    std::optional<double> collected_at;  // from a "# collected_at: <epoch>" line
    // Bytes of entry lines examined by brace counting and counter parsing: at most twice the
    // file's size (each counter line once, then once more as part of its joined counter).
    uint64_t scanned = 0;
  };
  // Entry times (snapshot_time, start_time, elapsed_time) are seconds from 0 to kMaxTime
  // (9999-12-31T23:59:59Z, the last second ISO 8601 writes): anything else (NaN, inf, 1e300, a
  // negative time) skips the entry, as unreadable text does.
  static constexpr double kMaxTime = 253402300799.0;
  // Job ids longer than this (Lustre's hold at most 31 bytes) or holding a NUL byte (Lustre's are
  // C strings) skip the entry.
  static constexpr size_t kMaxJobId = 1024;
  static constexpr size_t kMaxUnitWarnings = 8;
  // The longest counter kept while its braces are open (a wrapped capture joined): 64 KiB.
  static constexpr size_t kMaxCounterText = size_t{64} << 10;
  // Reads `in`; `target` names the target of a plain `cat` (no `param=` lines). Calls `entry`
  // for each complete entry (which it may move from); an error it returns stops the parse.
  // `one_pass` false reads every counter line by the general parser only (tests compare the two:
  // the one-pass reader of the common line gives way to it on anything else).
  static Result<Summary> Parse(File& in, const std::string& target, const std::function<Status(JobStatsEntry&)>& entry,
                               bool one_pass = true);
  // The targets `in` holds entries of or names in a `param=` line (`target` for a plain `cat`
  // with entries), non-empty names once each, in order: what Parse would give as its targets and
  // its entries' targets, or more (entries it would skip as unreadable still name theirs), read
  // without parsing an entry.
  static Result<std::vector<std::string>> Targets(File& in, const std::string& target);
  // When a snapshot was collected, from its file name: "...-<epoch>.txt" (seconds, maybe with a
  // fraction) or an ISO 8601 UTC stamp "...-2026-11-22T10:00:00Z.txt" (also "20261122T100000Z").
  static std::optional<double> TimeFromName(std::string_view file_name);
  // Whether `line` is a "# collected_at: <epoch>" comment; *time is its epoch, or nullopt when
  // the value is not one.
  static bool CollectedAt(std::string_view line, std::optional<double>* time);
  // A job id as printed after "job_id:": trimmed, unquoted, `\xHH` decoded.
  static std::optional<std::string> DecodeJobId(std::string_view text, bool* quoted);
};

}  // namespace xtfq
