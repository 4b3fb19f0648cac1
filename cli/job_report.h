// JobReport: renders a JobTimelineAnswer (query/answers/job_timeline.h) as text (a line per window), JSON
// (one object) or CSV in long form (t1,t2,source,store,entity,metric,value). Rates are bytes per
// second over the window, in MiB/s in the text; totals are exact bytes in JSON and CSV.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "query/answers/job_timeline.h"

namespace xtfq::cli {

class JobReport {
 public:
  static std::string Text(const JobTimelineAnswer& a);
  static std::string Json(const JobTimelineAnswer& a);
  static std::string Csv(const JobTimelineAnswer& a);
};

}  // namespace xtfq::cli
