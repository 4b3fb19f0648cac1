#include "importers/events/events_importer.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "importers/events/event_record.h"

namespace xtfq {

Result<uint64_t> EventsImporter::Import(File& in, RecordSink& sink, std::string_view array_name,
                                        const std::function<void(uint64_t)>& at) {
  XTFQ_ASSIGN_OR_RETURN(uint64_t size, in.Size());
  if (size % EventRecord::kSize != 0) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: offset {}: {} trailing bytes are not a whole {}-byte event", in.name(),
                             size - size % EventRecord::kSize, size % EventRecord::kSize, EventRecord::kSize));
  }
  XTFQ_ASSIGN_OR_RETURN(ArrayId array, sink.CreateArray(array_name, EventRecord::StoreSchema()));
  constexpr size_t kBlock = size_t{1} << 20;
  std::vector<std::byte> buf(kBlock);
  int64_t prev_t = INT64_MIN;
  for (uint64_t off = 0; off < size;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kBlock, size - off));
    XTFQ_TRY(ReadExact(in, off, std::span(buf).first(n)));
    for (size_t i = 0; i < n; i += EventRecord::kSize) {
      const EventRecord e = EventRecord::Decode(buf.data() + i);
      auto bad = [&](const std::string& m) {
        return Error(ErrorCode::kInvalidArgument, fmt::format("{}: offset {} (event {}): {}", in.name(), off + i,
                                                              (off + i) / EventRecord::kSize, m));
      };
      if (e.t < prev_t) return bad(fmt::format("time {} is before the previous event's {}", e.t, prev_t));
      if (e.bytes < 0) return bad(fmt::format("negative size {}", e.bytes));
      if (!(e.dur >= 0) || !std::isfinite(e.dur))
        return bad(fmt::format("duration {} is not a finite non-negative number", e.dur));
      prev_t = e.t;
      XTFQ_TRY(sink.Append(array, std::span(buf).subspan(i, EventRecord::kSize)));
    }
    off += n;
    if (at) at(off);
  }
  return size / EventRecord::kSize;
}

}  // namespace xtfq
