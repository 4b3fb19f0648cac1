#include "importers/darshan/darshan_record_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "importers/darshan/darshan_module_tables.h"
#include "store/endian.h"

namespace xtfq {

namespace {
using L = DarshanLayout;

// Seconds from the job's start as the time key: nanoseconds, rounded; -1 ("not available") and
// anything not finite count as 0.
int64_t Nanos(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return 0;
  if (seconds > 9.2e9) return INT64_MAX;
  return std::llround(seconds * 1e9);
}
}  // namespace

DarshanRecordWriter::DarshanRecordWriter(RecordSink& sink, int64_t log, DarshanImportOptions options)
    : sink_(sink), log_(log), options_(std::move(options)) {}

Status DarshanRecordWriter::AddSource(std::span<const std::byte> bytes) {
  stats_.source_bytes += bytes.size();
  while (!bytes.empty()) {
    const size_t n = std::min<size_t>(bytes.size(), L::kSourceChunk - chunk_.size());
    chunk_.append(reinterpret_cast<const char*>(bytes.data()), n);
    bytes = bytes.subspan(n);
    if (chunk_.size() == L::kSourceChunk) XTFQ_TRY(FlushChunk());
  }
  return Ok();
}

Status DarshanRecordWriter::FlushChunk() {
  if (chunk_.empty()) return Ok();
  if (!source_) {
    source_ = sink_.FindArrayId(L::kSource);
    if (!source_) {
      XTFQ_ASSIGN_OR_RETURN(source_, sink_.CreateArray(L::kSource, L::SourceSchema()));
    }
  }
  const Schema& s = L::SourceSchema();
  XTFQ_ASSIGN_OR_RETURN(StringRef ref, sink_.AddString(chunk_));
  std::vector<std::byte> r(s.record_width());
  s.Set(r.data(), 0, L::SourceKey(log_, chunks_));
  s.Set(r.data(), 1, log_);
  s.Set(r.data(), 2, uint64_t{chunks_});
  s.Set(r.data(), 3, uint64_t{chunk_.size()});
  s.Set(r.data(), 4, ref.Pack());
  XTFQ_TRY(sink_.Append(*source_, r));
  ++chunks_;
  chunk_.clear();
  return Ok();
}

Status DarshanRecordWriter::AddName(uint64_t id, std::string_view name) {
  if (!names_) {
    XTFQ_ASSIGN_OR_RETURN(names_, sink_.CreateArray(L::ArrayName(log_, "names"), L::NamesSchema()));
  }
  XTFQ_ASSIGN_OR_RETURN(StringRef ref, sink_.AddString(name));
  std::byte r[16];
  StoreLe<uint64_t>(r, id);
  StoreLe<uint64_t>(r + 8, ref.Pack());
  ++stats_.names;
  return sink_.Append(*names_, r);
}

Status DarshanRecordWriter::BeginCounters(int slot, std::string_view module) {
  const DarshanModuleTables::Counters* names = nullptr;
  for (const auto& c : DarshanModuleTables::CounterNames()) {
    if (c.module == module) names = &c;
  }
  if (names == nullptr) {
    return Error(ErrorCode::kUnsupported, fmt::format("no counter names for the {} module (slot {})", module, slot));
  }
  module_ = module;
  // Record counts per kind come from the current record version's layout: the names list holds
  // ints, then floats, then a file record id for H5D and PNETCDF_VAR.
  file_rec_ = !names->names.empty() && names->names.back().ends_with("_FILE_REC_ID");
  tail_ = module == "DFS" || module == "DAOS";
  const size_t counters = names->names.size() - (file_rec_ ? 1 : 0);
  floats_ = 0;
  for (size_t i = 0; i < counters; ++i) {
    if (names->names[i].find("_F_") != std::string_view::npos) ++floats_;
  }
  ints_ = counters - floats_;
  std::vector<std::string_view> fields(names->names.begin(), names->names.begin() + static_cast<ptrdiff_t>(counters));
  XTFQ_ASSIGN_OR_RETURN(schema_, L::CounterSchema(fields, ints_, file_rec_, tail_));
  open_time_.reset();
  for (size_t i = ints_; i < counters; ++i) {
    if (fields[i].ends_with("_F_OPEN_START_TIMESTAMP")) open_time_ = i;
  }
  XTFQ_ASSIGN_OR_RETURN(array_, sink_.CreateArray(L::ArrayName(log_, module), schema_));
  slot_ = slot;
  accumulator_ = DarshanAccumulator::For(module, fields, ints_);
  counter_names_ = fields;
  sorter_ = std::make_unique<RecordSorter>(schema_.record_width(), schema_.fields()[2].offset, options_.sort_memory,
                                           options_.temp_dir);
  rec_.assign(schema_.record_width(), std::byte{0});
  return Ok();
}

Status DarshanRecordWriter::AddCounters(const DarshanCounterRecord& r) {
  if (r.ints.size() != ints_ || r.floats.size() != floats_) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("a {} record of {} int and {} float counters (expected {} and {})", module_, r.ints.size(),
                             r.floats.size(), ints_, floats_));
  }
  std::byte* p = rec_.data();
  StoreLe<uint64_t>(p, r.id);
  StoreLe<int64_t>(p + 8, r.rank);
  StoreLe<int64_t>(p + 16, open_time_ ? Nanos(r.floats[*open_time_ - ints_]) : 0);
  p += 24;
  for (int64_t v : r.ints) StoreLe<int64_t>(p, v), p += 8;
  for (double v : r.floats) StoreLe<double>(p, v), p += 8;
  if (file_rec_) StoreLe<uint64_t>(p, r.file_rec_id), p += 8;
  if (tail_) {
    XTFQ_ASSIGN_OR_RETURN(
        StringRef ref, sink_.AddString(std::string_view(reinterpret_cast<const char*>(r.tail.data()), r.tail.size())));
    StoreLe<uint64_t>(p, ref.Pack());
  }
  ++stats_.records;
  if (accumulator_) accumulator_->Add(r);
  return sorter_->Add(rec_);
}

Status DarshanRecordWriter::EndCounters() {
  XTFQ_TRY(sorter_->Drain([&](std::span<const std::byte> r) { return sink_.Append(array_, r); }));
  sorter_.reset();
  if (accumulator_) {
    perf_.push_back(accumulator_->Emit());
    perf_.back().slot = slot_;
    XTFQ_TRY(WriteTotal());
  }
  accumulator_.reset();
  return Ok();
}

Status DarshanRecordWriter::WriteTotal() {
  XTFQ_ASSIGN_OR_RETURN(Schema s, L::TotalSchema(counter_names_, ints_));
  XTFQ_ASSIGN_OR_RETURN(ArrayId a, sink_.CreateArray(L::ArrayName(log_, module_ + ".total"), s));
  const DarshanCounterRecord& t = accumulator_->Total();
  std::vector<std::byte> r(s.record_width());
  std::byte* p = r.data();
  StoreLe<uint64_t>(p, t.id);
  StoreLe<int64_t>(p + 8, -1);
  StoreLe<int64_t>(p + 16, 0);
  p += 24;
  for (int64_t v : t.ints) StoreLe<int64_t>(p, v), p += 8;
  for (double v : t.floats) StoreLe<double>(p, v), p += 8;
  return sink_.Append(a, r);
}

// The array is written even without a module to fill it, so that a reader tells a log without
// such modules from a store written before the array existed.
Status DarshanRecordWriter::WritePerf() {
  std::sort(perf_.begin(), perf_.end(), [](const auto& a, const auto& b) { return a.slot < b.slot; });
  const Schema& s = L::PerfSchema();
  XTFQ_ASSIGN_OR_RETURN(ArrayId a, sink_.CreateArray(L::ArrayName(log_, "perf"), s));
  std::vector<std::byte> r(s.record_width());
  for (const DarshanModulePerf& p : perf_) {
    p.Encode(r.data());
    XTFQ_TRY(sink_.Append(a, r));
  }
  return Ok();
}

Status DarshanRecordWriter::BeginDxt(std::string_view module) {
  module_ = module;
  const Schema& s = L::DxtSchema();
  XTFQ_ASSIGN_OR_RETURN(read_array_, sink_.CreateArray(L::ArrayName(log_, fmt::format("{}.read", module)), s));
  XTFQ_ASSIGN_OR_RETURN(write_array_, sink_.CreateArray(L::ArrayName(log_, fmt::format("{}.write", module)), s));
  XTFQ_ASSIGN_OR_RETURN(files_array_,
                        sink_.CreateArray(L::ArrayName(log_, fmt::format("{}.files", module)), L::DxtFileSchema()));
  reads_ = std::make_unique<RecordSorter>(s.record_width(), 0, options_.sort_memory / 2, options_.temp_dir);
  writes_ = std::make_unique<RecordSorter>(s.record_width(), 0, options_.sort_memory / 2, options_.temp_dir);
  rec_.assign(s.record_width(), std::byte{0});
  return Ok();
}

Status DarshanRecordWriter::AddDxt(const DxtRecord& r) {
  {
    XTFQ_ASSIGN_OR_RETURN(StringRef host, sink_.AddString(r.hostname));
    std::byte f[40];
    StoreLe<uint64_t>(f, r.id);
    StoreLe<int64_t>(f + 8, r.rank);
    StoreLe<uint64_t>(f + 16, host.Pack());
    StoreLe<int64_t>(f + 24, r.writes);
    StoreLe<int64_t>(f + 32, r.reads);
    XTFQ_TRY(sink_.Append(files_array_, f));
  }
  std::byte* p = rec_.data();
  for (int op = 0; op < 2; ++op) {  // writes, then reads
    const bool write = op == 0;
    const size_t first = write ? 0 : static_cast<size_t>(r.writes);
    const size_t n = static_cast<size_t>(write ? r.writes : r.reads);
    RecordSorter& sorter = write ? *writes_ : *reads_;
    int64_t last = 0;
    for (size_t i = 0; i < n; ++i) {
      const DxtSegment& s = r.segments[first + i];
      StoreLe<int64_t>(p + L::kDxtOffsetT, Nanos(s.start));
      StoreLe<int64_t>(p + L::kDxtOffsetRank, r.rank);
      StoreLe<uint64_t>(p + L::kDxtOffsetFile, r.id);
      StoreLe<int64_t>(p + L::kDxtOffsetOffset, s.offset);
      StoreLe<int64_t>(p + L::kDxtOffsetLength, s.length);
      StoreLe<double>(p + L::kDxtOffsetDuration, s.end - s.start);
      p[L::kDxtOffsetSeq] = std::byte{s.offset > last};
      // Wrapping arithmetic: a damaged log may hold any offset and length.
      const auto u_offset = static_cast<uint64_t>(s.offset), u_last = static_cast<uint64_t>(last);
      p[L::kDxtOffsetConsec] = std::byte{u_offset == u_last + 1};
      last = static_cast<int64_t>(u_offset + static_cast<uint64_t>(s.length) - 1);
      std::memset(p + L::kDxtOffsetSizeClasses, 0, L::kSizeClasses);
      p[L::kDxtOffsetSizeClasses + L::SizeClass(s.length)] = std::byte{1};
      StoreLe<uint64_t>(p + L::kDxtOffsetThread, s.thread);
      XTFQ_TRY(sorter.Add(rec_));
    }
  }
  stats_.segments += r.segments.size();
  ++stats_.records;
  return Ok();
}

Status DarshanRecordWriter::EndDxt() {
  XTFQ_TRY(reads_->Drain([&](std::span<const std::byte> r) { return sink_.Append(read_array_, r); }));
  XTFQ_TRY(writes_->Drain([&](std::span<const std::byte> r) { return sink_.Append(write_array_, r); }));
  reads_.reset();
  writes_.reset();
  return Ok();
}

Status DarshanRecordWriter::AddHeatmap(const HeatmapRecord& r, std::string_view name) {
  const std::string part =
      name.starts_with("heatmap:") ? fmt::format("HEATMAP.{}", name.substr(8)) : fmt::format("HEATMAP.{}", r.id);
  auto& sorter = heatmaps_[part];
  const Schema& s = L::HeatmapSchema();
  if (!sorter)
    sorter = std::make_unique<RecordSorter>(s.record_width(), 0, options_.sort_memory / 4, options_.temp_dir);
  std::vector<std::byte> rec(s.record_width());
  for (size_t i = 0; i < r.read.size(); ++i) {
    if (r.read[i] == 0 && r.write[i] == 0) continue;
    StoreLe<int64_t>(rec.data() + L::kHeatOffsetT, Nanos(static_cast<double>(i) * r.width));
    StoreLe<int64_t>(rec.data() + L::kHeatOffsetRank, r.rank);
    StoreLe<uint32_t>(rec.data() + L::kHeatOffsetBin, static_cast<uint32_t>(i));
    StoreLe<double>(rec.data() + L::kHeatOffsetWidth, r.width);
    StoreLe<int64_t>(rec.data() + L::kHeatOffsetRead, r.read[i]);
    StoreLe<int64_t>(rec.data() + L::kHeatOffsetWrite, r.write[i]);
    XTFQ_TRY(sorter->Add(rec));
  }
  ++stats_.records;
  return Ok();
}

Status DarshanRecordWriter::EndHeatmaps() {
  for (auto& [part, sorter] : heatmaps_) {
    XTFQ_ASSIGN_OR_RETURN(ArrayId a, sink_.CreateArray(L::ArrayName(log_, part), L::HeatmapSchema()));
    XTFQ_TRY(sorter->Drain([&](std::span<const std::byte> r) { return sink_.Append(a, r); }));
  }
  heatmaps_.clear();
  return Ok();
}

Status DarshanRecordWriter::Finish(const DarshanJob& job) {
  XTFQ_TRY(FlushChunk());
  XTFQ_TRY(WritePerf());
  stats_.job = job;
  const Schema& s = L::LogSchema();
  std::vector<std::byte> r(s.record_width());
  std::string mounts;
  for (const auto& [path, type] : job.mounts) mounts += path + "\t" + type + "\n";
  size_t f = 0;
  for (int64_t v : {log_, job.job, job.uid, job.start_sec, job.start_nsec, job.end_sec, job.end_nsec, job.nprocs,
                    job.format_minor}) {
    s.Set(r.data(), f++, v);
  }
  s.Set(r.data(), f++, job.partial);
  s.Set(r.data(), f++, uint64_t{static_cast<uint8_t>(job.source)});
  s.Set(r.data(), f++, stats_.source_bytes);
  for (const std::string* str :
       std::initializer_list<const std::string*>{&job.exe, &job.metadata, &mounts, &job.file}) {
    XTFQ_ASSIGN_OR_RETURN(StringRef ref, sink_.AddString(*str));
    s.Set(r.data(), f++, ref.Pack());
  }
  std::optional<ArrayId> logs = sink_.FindArrayId(L::kLogs);
  if (!logs) {
    XTFQ_ASSIGN_OR_RETURN(logs, sink_.CreateArray(L::kLogs, s));
  }
  return sink_.Append(*logs, r);
}

}  // namespace xtfq
