// EventRecord: the 32-byte event of ../shared/bench (the shape of a DXT segment) and the schema
// xtfq stores it under. The store's record bytes equal the file's bytes: both are little-endian
// t:i64 bytes:i64 dur:f64 rank:i32 op:i32 (docs/format.md, "Events array").
//
// Thread-safety: value type.
#pragma once

#include <cstdint>

#include "store/schema.h"

namespace xtfq {

struct EventRecord {
  int64_t t = 0;      // start time, ns since trace start
  int64_t bytes = 0;  // request size
  double dur = 0;     // seconds
  int32_t rank = 0;   // process
  int32_t op = 0;     // 0 read, 1 write

  static constexpr uint32_t kSize = 32;
  void Encode(std::byte* out) const;
  static EventRecord Decode(const std::byte* in);
  // t:i64 bytes:i64* dur:f64* rank:i32 op:i32: aggregates bytes and dur, time t, process rank.
  static const Schema& StoreSchema();
  bool operator==(const EventRecord&) const = default;
};

}  // namespace xtfq
