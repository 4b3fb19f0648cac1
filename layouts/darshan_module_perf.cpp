#include "layouts/darshan_module_perf.h"

#include <variant>

namespace xtfq {

void DarshanModulePerf::Encode(std::byte* record) const {
  const Schema& s = DarshanLayout::PerfSchema();
  size_t f = 0;
  for (int64_t v : {slot, records, total_bytes, slowest_rank}) s.Set(record, f++, v);
  for (double v : {slowest_rank_io_time, slowest_rank_meta_only_time, slowest_rank_rw_only_time, time_by_slowest,
                   agg_time_by_slowest, agg_perf_by_slowest}) {
    s.Set(record, f++, v);
  }
  for (const DarshanFileCategory& c : files) {
    for (int64_t v : {c.count, c.bytes, c.max_offset}) s.Set(record, f++, v);
  }
}

DarshanModulePerf DarshanModulePerf::Decode(const std::byte* record) {
  const Schema& s = DarshanLayout::PerfSchema();
  DarshanModulePerf p;
  size_t f = 0;
  for (int64_t* v : {&p.slot, &p.records, &p.total_bytes, &p.slowest_rank}) *v = std::get<int64_t>(s.Get(record, f++));
  for (double* v : {&p.slowest_rank_io_time, &p.slowest_rank_meta_only_time, &p.slowest_rank_rw_only_time,
                    &p.time_by_slowest, &p.agg_time_by_slowest, &p.agg_perf_by_slowest}) {
    *v = std::get<double>(s.Get(record, f++));
  }
  for (DarshanFileCategory& c : p.files) {
    for (int64_t* v : {&c.count, &c.bytes, &c.max_offset}) *v = std::get<int64_t>(s.Get(record, f++));
  }
  return p;
}

}  // namespace xtfq
