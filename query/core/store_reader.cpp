#include "query/core/store_reader.h"

#include <fmt/format.h>

#include "index/string_heap_reader.h"
#include "index/tn_tree.h"
#include "layouts/jobstats_layout.h"
#include "layouts/slurm_layout.h"
#include "store/posix_file.h"

namespace xtfq {

Result<std::unique_ptr<StoreReader>> StoreReader::Open(const std::string& path, ReaderOptions options) {
  XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(path, PosixFile::Mode::kRead));
  return Open(std::move(file), options);
}

Result<std::unique_ptr<StoreReader>> StoreReader::Open(std::unique_ptr<File> file, ReaderOptions options) {
  std::unique_ptr<StoreReader> r(new StoreReader());
  XTFQ_ASSIGN_OR_RETURN(r->store_, Store::Open(std::move(file)));
  XTFQ_ASSIGN_OR_RETURN(r->source_, r->store_->MakeSource(options.backend));
  r->cache_ = std::make_unique<PageCache>(*r->source_, options.cache_bytes);
  return r;
}

Result<const ArrayDesc*> StoreReader::Array(std::string_view name) const {
  if (const ArrayDesc* a = store_->catalogue().Find(name)) return a;
  std::string names;
  for (const ArrayDesc& a : store_->catalogue().arrays) {
    if (!a.per_process()) names += (names.empty() ? "" : ", ") + a.name;
  }
  return Error(ErrorCode::kNotFound,
               fmt::format("{}: no array '{}' (arrays: {})", store_->name(), name, names.empty() ? "none" : names));
}

Status StoreReader::ForEach(const ArrayDesc& array, const std::function<Status(const std::byte*)>& fn) {
  ChainCursor c = Records(array);
  XTFQ_ASSIGN_OR_RETURN(bool more, c.First());
  while (more) {
    XTFQ_TRY(fn(c.entry()));
    XTFQ_ASSIGN_OR_RETURN(more, c.Next());
  }
  return Ok();
}

Status StoreReader::ScanAt(const ArrayDesc& array, uint64_t first, uint64_t last,
                           const std::function<Result<bool>(const std::byte*)>& fn) {
  if (!read_ahead_) return ForEachAt(array, first, last, fn);
  return TnTree(*cache_, array).Scan(first, last, fn);
}

Status StoreReader::ForEachAt(const ArrayDesc& array, uint64_t first, uint64_t last,
                              const std::function<Result<bool>(const std::byte*)>& fn) {
  return TnTree(*cache_, array).ForEach(first, last, fn);
}

ChainCursor StoreReader::Records(const ArrayDesc& array) {
  return ChainCursor(*cache_, array.levels[0], PageKind::kData, array.id, array.schema.record_width());
}

Result<TimeFrame> StoreReader::Frame(const ArrayDesc& a) {
  // job_stats and Slurm profile arrays count epoch seconds: their frame is the wall clock's
  // (@EPOCH and ISO 8601 windows, durations from the first record).
  const bool epoch = JobStatsLayout::Owns(a.name) || SlurmLayout::Owns(a.name);
  auto frame = [&](int64_t first, int64_t last) {
    return epoch ? TimeFrame::JobStats(first, last) : TimeFrame::Raw(first, last);
  };
  if (a.record_count() == 0 || !a.schema.time_field()) return frame(0, 0);
  TnTree t(*cache_, a);
  std::vector<std::byte> r(a.schema.record_width());
  XTFQ_TRY(t.Record(0, r));
  const int64_t first = a.schema.Time(r.data());
  XTFQ_TRY(t.Record(a.record_count() - 1, r));
  return frame(first, a.schema.Time(r.data()));
}

Result<std::string> StoreReader::String(StringRef ref) {
  return StringHeapReader(*cache_, store_->catalogue().heap).Read(ref);
}

}  // namespace xtfq
