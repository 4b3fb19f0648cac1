#include "query/darshan/darshan_source_file.h"

#include <fmt/format.h>

#include <cstring>

#include "layouts/darshan_layout.h"

namespace xtfq {

DarshanSourceFile::DarshanSourceFile(StoreReader& reader, const ArrayDesc& source, int64_t log, uint64_t size,
                                     std::string name)
    : reader_(reader), tree_(reader.cache(), source), log_(log), size_(size), name_(std::move(name)) {}

Status DarshanSourceFile::Load(uint64_t chunk) {
  if (chunk == loaded_) return Ok();
  const int64_t key = DarshanLayout::SourceKey(log_, chunk);
  XTFQ_ASSIGN_OR_RETURN(uint64_t pos, tree_.LowerBound(key));
  const Schema& s = tree_.array().schema;
  std::vector<std::byte> rec(s.record_width());
  if (pos < tree_.size()) XTFQ_TRY(tree_.Record(pos, rec));
  if (pos >= tree_.size() || s.Time(rec.data()) != key) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: source chunk {} is missing from darshan.source", name_, chunk));
  }
  const auto bytes = std::get<uint64_t>(s.Get(rec.data(), 3));
  XTFQ_ASSIGN_OR_RETURN(chunk_, reader_.String(StringRef::Unpack(std::get<uint64_t>(s.Get(rec.data(), 4)))));
  if (chunk_.size() != bytes) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: source chunk {} holds {} bytes, its record says {}", name_,
                                                  chunk, chunk_.size(), bytes));
  }
  loaded_ = chunk;
  return Ok();
}

Result<size_t> DarshanSourceFile::ReadAt(uint64_t offset, std::span<std::byte> out) {
  size_t done = 0;
  while (done < out.size() && offset + done < size_) {
    const uint64_t at = offset + done;
    XTFQ_TRY(Load(at / DarshanLayout::kSourceChunk));
    const uint64_t in = at % DarshanLayout::kSourceChunk;
    if (in >= chunk_.size()) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: source chunk {} ends before byte {}", name_, loaded_, at));
    }
    const size_t n = static_cast<size_t>(std::min<uint64_t>(out.size() - done, chunk_.size() - in));
    std::memcpy(out.data() + done, chunk_.data() + in, n);
    done += n;
  }
  return done;
}

Status DarshanSourceFile::WriteAt(uint64_t, std::span<const std::byte>) {
  return Error(ErrorCode::kInvalidArgument, fmt::format("{}: a log kept in a store is read-only", name_));
}
Status DarshanSourceFile::Truncate(uint64_t) {
  return Error(ErrorCode::kInvalidArgument, fmt::format("{}: a log kept in a store is read-only", name_));
}

}  // namespace xtfq
