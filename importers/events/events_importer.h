// EventsImporter: reads a file of 32-byte events (../shared/bench format, EventRecord) and appends
// them to an array of a RecordSink, checking as it goes.
//
// Errors name the file and the byte offset: a length that is not a whole number of records, a
// time earlier than the record before (the index needs time order; equal times are allowed), a
// negative size or duration. Reading is streamed in 1 MiB blocks, so memory stays bounded.
//
// Thread-safety: one import per sink at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "store/file.h"
#include "store/record_sink.h"

namespace xtfq {

class EventsImporter {
 public:
  // Creates array `array_name` in `sink` and appends every event of `in`; returns how many.
  // `at` (may be empty) is told how far into the file the reading is.
  static Result<uint64_t> Import(File& in, RecordSink& sink, std::string_view array_name,
                                 const std::function<void(uint64_t)>& at = {});
};

}  // namespace xtfq
