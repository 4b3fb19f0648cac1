// JobStatsGenGrammar: how one Lustre variant prints a job_stats snapshot, for JobStatsGenerator
// (../shared/docs/lustre-jobstats.md; the variants are A: 2.6-2.13, B: 2.14.0, C: EXAScaler 6,
// D: 2.15.0-2.15.1, E1: 2.15.2+, E2: 2.16, F: 2.17). It knows the printed ops of an MDT and of an
// OST in the variant's order (docs section 3), how the variant prints a job id (section 5.4), an
// entry's times (since boot for D, secs.nsecs for E1, E2 and F, whole seconds before), a counter's
// line (with a size histogram for byte counters in E2 and F), a target's framing (F prints nothing
// for an empty target), and the name of a snapshot file. It draws nothing at random: the same
// counters print the same bytes.
//
// Thread-safety: value type; const methods may be called from several threads.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace xtfq {

class JobStatsGenGrammar {
 public:
  struct Op {
    std::string_view name;  // a string literal
    bool bytes = false;     // a bytes counter (read_bytes, write_bytes); else events
  };
  struct Counter {
    uint64_t samples = 0, sum = 0, min = 0, max = 0, sumsq = 0;
    std::map<int, uint64_t> hist;  // log2 of the size -> count
  };
  struct EntryTimes {
    int64_t snapshot = 0;   // the entry's last update (epoch seconds)
    int64_t start = 0;      // its start_time (epoch seconds)
    int64_t collected = 0;  // the collection that prints it (epoch seconds)
  };

  // REQUIRES: JobStatsGenerator::KnownVariant(variant).
  explicit JobStatsGenGrammar(std::string_view variant);

  // The printed ops of an MDT or an OST, in the order the variant prints them.
  std::vector<Op> Ops(bool mdt) const;
  // Whether entries carry start_time, so a reader sees every reset (D, E1, E2, F).
  bool PrintsStartTime() const;
  // Appends one entry to out: its job_id line, its times and one line per op.
  // REQUIRES: counters.size() == ops.size().
  void AppendEntry(std::string& out, const std::string& id, const EntryTimes& times, const std::vector<Op>& ops,
                   const std::vector<Counter>& counters) const;
  // Appends a target's part of a snapshot to out: "<param>=" and its entries (body, empty for none).
  void AppendTarget(std::string& out, const std::string& param, const std::string& body) const;
  // The file name of the snapshot of `server` collected at `collected` (epoch seconds).
  std::string FileName(uint32_t server, int64_t collected) const;

 private:
  std::string Id(const std::string& id) const;
  std::string TimeLines(const EntryTimes& times) const;
  void AppendCounterLine(std::string& out, const Op& op, const Counter& counter) const;

  std::string variant_;
};

}  // namespace xtfq
