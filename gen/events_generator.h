// EventsGenerator: the synthetic trace of ../shared/bench/README.md, record for record: N events
// with strictly increasing t (exponential gaps, mean 10 us), rank uniform in [0, R), a skewed
// log-uniform mixture of request sizes, 40% writes, duration from a random bandwidth. Deterministic
// for (R, seed): the same seed gives the same bytes as the shared generator (events_test.cpp
// checks this against the shared generator itself when ../shared is present).
//
// Thread-safety: one generator per thread.
#pragma once

#include <cstdint>

#include "importers/events/event_record.h"

namespace xtfq {

class EventsGenerator {
 public:
  explicit EventsGenerator(int32_t ranks = 1024, uint64_t seed = 42);

  EventRecord Next();

 private:
  uint64_t NextU64();
  double Uniform();
  int64_t DrawBytes();

  uint64_t s_[4];
  int32_t ranks_;
  int64_t t_ = 0;
};

}  // namespace xtfq
