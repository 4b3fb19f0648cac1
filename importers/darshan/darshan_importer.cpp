#include "importers/darshan/darshan_importer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "importers/darshan/darshan_counter_record.h"
#include "importers/darshan/darshan_dxt_reader.h"
#include "importers/darshan/darshan_heatmap_reader.h"
#include "store/endian.h"

namespace xtfq {

DarshanJob DarshanImporter::Job(const DarshanLog& log) {
  DarshanJob j;
  j.job = log.jobid, j.uid = log.uid, j.nprocs = log.nprocs;
  j.start_sec = log.start_sec, j.start_nsec = log.start_nsec, j.end_sec = log.end_sec, j.end_nsec = log.end_nsec;
  j.format_minor = log.minor();
  j.partial = log.partial_flags();
  j.exe = log.exe, j.metadata = log.metadata;
  for (const auto& m : log.mounts) j.mounts.emplace_back(m.path, m.fs_type);
  j.source = DarshanLayout::SourceKind::kBinary;
  j.file = log.name();
  return j;
}

bool DarshanImporter::LooksBinary(std::span<const std::byte> head) {
  if (head.size() < 16 || std::memcmp(head.data(), "3.", 2) != 0) return false;
  const uint64_t m = LoadLe<uint64_t>(head.data() + 8);
  return m == DarshanLog::kMagic || __builtin_bswap64(m) == DarshanLog::kMagic;
}

Result<DarshanImportStats> DarshanImporter::Import(DarshanLog& log, RecordSink& sink, int64_t log_index,
                                                   const DarshanImportOptions& options) {
  DarshanRecordWriter w(sink, log_index, options);
  // The source: the log file as it is.
  {
    XTFQ_ASSIGN_OR_RETURN(uint64_t size, log.file().Size());
    std::vector<std::byte> buf(DarshanLayout::kSourceChunk);
    for (uint64_t off = 0; off < size;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), size - off));
      XTFQ_TRY(ReadExact(log.file(), off, std::span(buf).first(n)));
      XTFQ_TRY(w.AddSource(std::span(buf).first(n)));
      off += n;
    }
  }
  std::vector<std::pair<uint64_t, const std::string*>> names;
  names.reserve(log.names().size());
  for (const auto& [id, name] : log.names()) names.emplace_back(id, &name);
  std::sort(names.begin(), names.end());
  for (const auto& [id, name] : names) XTFQ_TRY(w.AddName(id, *name));
  for (int slot = 0; slot < DarshanLog::kSlots; ++slot) {
    if (log.module(slot).len == 0) continue;
    if (slot == DarshanDxtReader::kPosixSlot || slot == DarshanDxtReader::kMpiioSlot) {
      XTFQ_TRY(w.BeginDxt(DarshanLog::ModuleName(slot)));
      DarshanDxtReader reader(log, slot);
      DxtRecord rec;
      for (uint64_t n = 0;; ++n) {
        XTFQ_ASSIGN_OR_RETURN(bool more, reader.Next(rec));
        if (!more) break;
        XTFQ_TRY(w.AddDxt(rec));
        if (options.at && n % 256 == 0) options.at(reader.region().file_position());
      }
      XTFQ_TRY(w.EndDxt());
      continue;
    }
    if (slot == DarshanHeatmapReader::kSlot) {
      DarshanHeatmapReader reader(log);
      HeatmapRecord rec;
      for (;;) {
        XTFQ_ASSIGN_OR_RETURN(bool more, reader.Next(rec));
        if (!more) break;
        auto n = log.names().find(rec.id);
        XTFQ_TRY(w.AddHeatmap(rec, n == log.names().end() ? std::string_view() : std::string_view(n->second)));
      }
      XTFQ_TRY(w.EndHeatmaps());
      continue;
    }
    auto dec = DarshanCounterDecoder::For(log, slot);
    if (!dec.ok()) {
      if (dec.error().code() == ErrorCode::kInvalidArgument) continue;  // not fixed-size: kept in the source
      return dec.error();
    }
    XTFQ_TRY(w.BeginCounters(slot, DarshanLog::ModuleName(slot)));
    auto reader = log.ModuleReader(slot);
    std::vector<std::byte> raw;
    DarshanCounterRecord rec;
    for (;;) {
      XTFQ_ASSIGN_OR_RETURN(bool more, dec->Next(*reader, raw, rec, true));
      if (!more) break;
      XTFQ_TRY(w.AddCounters(rec));
    }
    XTFQ_TRY(w.EndCounters());
  }
  XTFQ_TRY(w.Finish(Job(log)));
  return w.stats();
}

}  // namespace xtfq
