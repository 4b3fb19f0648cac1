// JobStatsGenOutput: where a JobStatsGenerator run puts what it makes: each server's snapshot as
// it is collected, each true step and each series. JobStatsGenFiles writes them into a directory
// (the snapshot files, truth_steps.csv and truth_series.csv); a scale run (bench/jobstats_scale)
// imports each snapshot as it comes and keeps only totals of the truth, so that a run of 10^8
// entries needs neither its text nor its truth on disk or in memory.
//
// Calls come in generation order: per collection, per server in server order, the true steps its
// targets' collection reveals and then its snapshot; after the last collection each series once;
// Finish last.
//
// Thread-safety: called by the generating thread only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "store/result.h"

namespace xtfq {

class JobStatsGenOutput {
 public:
  struct Step {
    std::string_view target, id, op;
    int64_t t0 = 0, t1 = 0;
    uint64_t delta = 0;  // bytes for bytes counters, else events
  };
  struct SeriesTruth {
    std::string_view target, id, cls, job, uid, node;
  };

  virtual ~JobStatsGenOutput() = default;
  // One server's snapshot: `name` is the file name the generator gives it (its collection time is
  // in the name), `collected` its collection time.
  virtual Status Snapshot(const std::string& name, int64_t collected, std::string text) = 0;
  virtual Status TrueStep(const Step& step) = 0;
  virtual Status TrueSeries(const SeriesTruth& series) = 0;
  virtual Status Finish() = 0;
};

}  // namespace xtfq
