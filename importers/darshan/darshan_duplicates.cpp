#include "importers/darshan/darshan_duplicates.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "layouts/darshan_layout.h"
#include "store/endian.h"
#include "store/posix_file.h"
#include "store/schema.h"

namespace xtfq {

namespace {

int64_t Int(const Schema& s, const std::byte* r, std::string_view name) {
  const Field& f = s.fields()[*s.Find(name)];
  return LoadInteger(r + f.offset, f.type);
}

// Whether the files at `a` and `b`, both `size` bytes, hold the same bytes.
Result<bool> SameFiles(const std::string& a, const std::string& b, uint64_t size) {
  XTFQ_ASSIGN_OR_RETURN(auto fa, PosixFile::Open(a, PosixFile::Mode::kRead));
  XTFQ_ASSIGN_OR_RETURN(auto fb, PosixFile::Open(b, PosixFile::Mode::kRead));
  std::vector<std::byte> x(DarshanLayout::kSourceChunk), y(DarshanLayout::kSourceChunk);
  for (uint64_t off = 0; off < size;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(x.size(), size - off));
    XTFQ_TRY(ReadExact(*fa, off, std::span(x).first(n)));
    XTFQ_TRY(ReadExact(*fb, off, std::span(y).first(n)));
    if (std::memcmp(x.data(), y.data(), n) != 0) return false;
    off += n;
  }
  return true;
}

}  // namespace

Result<DarshanDuplicates> DarshanDuplicates::Load(RecordSource* existing) {
  DarshanDuplicates d;
  d.existing_ = existing;
  if (existing == nullptr) return d;
  const ArrayDesc* logs = existing->catalogue().Find(DarshanLayout::kLogs);
  if (logs == nullptr) return d;
  const Schema& s = logs->schema;
  if (!(s == DarshanLayout::LogSchema())) {
    return Error(ErrorCode::kCorrupt, fmt::format("{} does not have the Darshan log schema", DarshanLayout::kLogs));
  }
  XTFQ_TRY(existing->ForEachAt(*logs, 0, logs->record_count(), [&](const std::byte* r) -> Result<bool> {
    Log l;
    l.log = Int(s, r, "log"), l.bytes = static_cast<uint64_t>(Int(s, r, "source_bytes")), l.stored = true;
    l.job = Int(s, r, "job"), l.uid = Int(s, r, "uid"), l.start_sec = Int(s, r, "start_sec");
    l.end_sec = Int(s, r, "end_sec"), l.nprocs = Int(s, r, "nprocs");
    XTFQ_ASSIGN_OR_RETURN(l.file, existing->String(StringRef::Unpack(static_cast<uint64_t>(Int(s, r, "file")))));
    XTFQ_ASSIGN_OR_RETURN(l.exe, existing->String(StringRef::Unpack(static_cast<uint64_t>(Int(s, r, "exe")))));
    d.logs_.push_back(std::move(l));
    return true;
  }));
  return d;
}

Status DarshanDuplicates::ReadSourceRefs() {
  if (source_read_) return Ok();
  source_read_ = true;
  const ArrayDesc* src = existing_->catalogue().Find(DarshanLayout::kSource);
  if (src == nullptr) return Ok();
  const Schema& s = src->schema;
  return existing_->ForEachAt(*src, 0, src->record_count(), [&](const std::byte* r) -> Result<bool> {
    const uint64_t chunk = static_cast<uint64_t>(Int(s, r, "chunk"));
    if (chunk >= kMaxChunks) return true;  // not a log this store could have kept whole
    auto& refs = source_refs_[Int(s, r, "log")];
    if (refs.size() <= chunk) refs.resize(chunk + 1);
    refs[chunk] = static_cast<uint64_t>(Int(s, r, "data"));
    return true;
  });
}

Result<bool> DarshanDuplicates::SameAsStored(const Log& l, const std::string& path, uint64_t size) {
  XTFQ_TRY(ReadSourceRefs());
  const auto it = source_refs_.find(l.log);
  if (it == source_refs_.end()) return false;
  // The log's chunks, in order (a store keeps one record per chunk).
  const auto& refs = it->second;
  const size_t chunks = static_cast<size_t>((size + DarshanLayout::kSourceChunk - 1) / DarshanLayout::kSourceChunk);
  if (refs.size() < chunks) return false;
  if (std::any_of(refs.begin(), refs.begin() + static_cast<ptrdiff_t>(chunks), [](const auto& r) { return !r; })) {
    return false;
  }
  XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(path, PosixFile::Mode::kRead));
  std::vector<std::byte> buf(DarshanLayout::kSourceChunk);
  for (size_t c = 0; c < chunks; ++c) {
    const uint64_t off = uint64_t{c} * DarshanLayout::kSourceChunk;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), size - off));
    XTFQ_ASSIGN_OR_RETURN(std::string stored, existing_->String(StringRef::Unpack(*refs[c])));
    if (stored.size() != n) return false;
    XTFQ_TRY(ReadExact(*file, off, std::span(buf).first(n)));
    if (std::memcmp(stored.data(), buf.data(), n) != 0) return false;
  }
  return true;
}

Result<std::optional<DarshanDuplicates::Earlier>> DarshanDuplicates::Find(const std::string& path) {
  XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(path, PosixFile::Mode::kRead));
  XTFQ_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  for (const Log& l : logs_) {
    if (l.bytes != size) continue;
    XTFQ_ASSIGN_OR_RETURN(bool same, l.stored ? SameAsStored(l, path, size) : SameFiles(l.file, path, size));
    if (same) return std::optional<Earlier>(Earlier{l.log, l.file});
  }
  return std::optional<Earlier>();
}

std::optional<DarshanDuplicates::Earlier> DarshanDuplicates::SameRun(int64_t log, const DarshanJob& job) const {
  for (const Log& l : logs_) {
    if (l.log != log && l.job == job.job && l.uid == job.uid && l.start_sec == job.start_sec &&
        l.end_sec == job.end_sec && l.nprocs == job.nprocs && l.exe == job.exe) {
      return Earlier{l.log, l.file};
    }
  }
  return std::nullopt;
}

Status DarshanDuplicates::Add(int64_t log, const std::string& path, const DarshanJob& job) {
  XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(path, PosixFile::Mode::kRead));
  XTFQ_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  Log l;
  l.log = log, l.bytes = size, l.file = path, l.stored = false;
  l.job = job.job, l.uid = job.uid, l.start_sec = job.start_sec, l.end_sec = job.end_sec, l.nprocs = job.nprocs;
  l.exe = job.exe;
  logs_.push_back(std::move(l));
  return Ok();
}

}  // namespace xtfq
