#include "importers/darshan/darshan_dxt_reader.h"

#include <fmt/format.h>

#include <cstring>

namespace xtfq {

DarshanDxtReader::DarshanDxtReader(DarshanLog& log, int slot)
    : log_(log),
      posix_(slot == kPosixSlot),
      version_(log.module_version(slot)),
      has_thread_(posix_ ? version_ >= 2 : version_ >= 3),
      reader_(log.ModuleReader(slot)) {}

Result<bool> DarshanDxtReader::Next(DxtRecord& out) {
  std::byte head[104];
  XTFQ_ASSIGN_OR_RETURN(size_t got, reader_->Read(head));
  if (got == 0) return false;
  if (got < sizeof head) {
    return reader_->Fail(fmt::format("the region ends {} bytes into a DXT record header of 104 bytes", got));
  }
  out.id = log_.U64(head);
  out.rank = static_cast<int64_t>(log_.U64(head + 8));
  const char* host = reinterpret_cast<const char*>(head + 24);
  out.hostname.assign(host, strnlen(host, 64));
  out.writes = static_cast<int64_t>(log_.U64(head + 88));
  out.reads = static_cast<int64_t>(log_.U64(head + 96));
  constexpr int64_t kMaxSegments = int64_t{1} << 27;
  if (out.writes < 0 || out.reads < 0 || out.writes > kMaxSegments || out.reads > kMaxSegments ||
      out.writes + out.reads > kMaxSegments) {
    return reader_->Fail(fmt::format("a DXT record of {} writes and {} reads", out.writes, out.reads));
  }
  const size_t seg_bytes = has_thread_ ? 40 : 32;
  const auto total = static_cast<size_t>(out.writes + out.reads);
  XTFQ_TRY(reader_->ReadGrowing(raw_, total * seg_bytes, "the DXT segments"));
  out.segments.resize(total);
  for (size_t i = 0; i < total; ++i) {
    const std::byte* sg = raw_.data() + i * seg_bytes;
    DxtSegment& s = out.segments[i];
    s.offset = (!posix_ && version_ == 1) ? -1 : static_cast<int64_t>(log_.U64(sg));
    s.length = static_cast<int64_t>(log_.U64(sg + 8));
    s.start = log_.F64(sg + 16);
    s.end = log_.F64(sg + 24);
    s.thread = has_thread_ ? log_.U64(sg + 32) : 0;
  }
  return true;
}

}  // namespace xtfq
