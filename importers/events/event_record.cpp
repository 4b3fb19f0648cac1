#include "importers/events/event_record.h"

#include "store/endian.h"

namespace xtfq {

void EventRecord::Encode(std::byte* p) const {
  StoreLe<int64_t>(p, t);
  StoreLe<int64_t>(p + 8, bytes);
  StoreLe<double>(p + 16, dur);
  StoreLe<int32_t>(p + 24, rank);
  StoreLe<int32_t>(p + 28, op);
}

EventRecord EventRecord::Decode(const std::byte* p) {
  return EventRecord{LoadLe<int64_t>(p), LoadLe<int64_t>(p + 8), LoadLe<double>(p + 16), LoadLe<int32_t>(p + 24),
                     LoadLe<int32_t>(p + 28)};
}

const Schema& EventRecord::StoreSchema() {
  static const Schema schema = *Schema::Make({{"t", FieldType::kI64},
                                              {"bytes", FieldType::kI64},
                                              {"dur", FieldType::kF64},
                                              {"rank", FieldType::kI32},
                                              {"op", FieldType::kI32}},
                                             {"bytes", "dur"}, "t", "rank");
  return schema;
}

}  // namespace xtfq
