#include "importers/darshan/darshan_counter_record.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "store/endian.h"

namespace xtfq {

namespace {
constexpr int kPosix = 1, kMpiio = 2, kH5f = 3, kH5d = 4, kPnetcdfFile = 5, kPnetcdfVar = 6, kBgq = 7, kStdio = 9,
              kDfs = 16, kDaos = 17;

// Stored int and float counts per (slot, version); 0 ints and floats means unknown.
struct Layout {
  uint32_t ints, floats;
  bool file_rec;
  uint32_t skip;      // bytes between the base record and the counters
  uint32_t tail = 0;  // bytes after the counters (DFS: pool and container UUIDs; DAOS: those and the OID)
};
Layout StoredLayout(int slot, uint32_t v) {
  switch (slot) {
    case kPosix:
      return v == 4   ? Layout{69, 17, false, 0}
             : v == 3 ? Layout{64, 17, false, 0}
             : v == 2 ? Layout{64, 15, false, 0}
             : v == 1 ? Layout{68, 15, false, 0}
                      : Layout{};
    case kMpiio:
      return v == 3 ? Layout{51, 17, false, 0} : (v == 1 || v == 2) ? Layout{51, 15, false, 0} : Layout{};
    case kStdio:
      return v == 2 ? Layout{14, 15, false, 0} : v == 1 ? Layout{13, 15, false, 0} : Layout{};
    case kH5f:
      return v == 3   ? Layout{3, 5, false, 0}
             : v == 2 ? Layout{1, 4, false, 0}
             : v == 1 ? Layout{1, 2, false, 0}
                      : Layout{};
    case kH5d:
      return v == 2 ? Layout{94, 17, true, 0} : v == 1 ? Layout{94, 17, false, 0} : Layout{};
    case kPnetcdfFile:
      return v == 3   ? Layout{9, 8, false, 0}
             : v == 2 ? Layout{2, 4, false, 0}
             : v == 1 ? Layout{2, 2, false, 0}
                      : Layout{};
    case kPnetcdfVar:
      return v == 1 ? Layout{120, 17, true, 0} : Layout{};
    case kBgq:
      return v == 2 ? Layout{11, 1, false, 0} : v == 1 ? Layout{11, 1, false, 8} : Layout{};
    case kDfs:
      return v == 1 ? Layout{52, 15, false, 0, 32} : Layout{};
    case kDaos:
      return v == 1 ? Layout{64, 15, false, 0, 48} : Layout{};
    default:
      return Layout{};
  }
}
bool FixedSize(int slot) {
  return slot == kPosix || slot == kMpiio || slot == kStdio || slot == kH5f || slot == kH5d || slot == kPnetcdfFile ||
         slot == kPnetcdfVar || slot == kBgq || slot == kDfs || slot == kDaos;
}

template <class T>
void InsertAt(std::vector<T>& v, size_t at, std::initializer_list<T> values) {
  v.insert(v.begin() + static_cast<ptrdiff_t>(at), values);
}
}  // namespace

Result<DarshanCounterDecoder> DarshanCounterDecoder::For(const DarshanLog& log, int slot) {
  const std::string_view name = DarshanLog::ModuleName(slot);
  if (!FixedSize(slot)) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: the {} module has no fixed-size counter records", log.name(), name));
  }
  const uint32_t v = log.module_version(slot);
  const Layout l = StoredLayout(slot, v);
  if (l.ints == 0) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: {} module: unknown record version {}", log.name(), name, v));
  }
  DarshanCounterDecoder d;
  d.log_ = &log;
  d.slot_ = slot;
  d.version_ = v;
  d.ints_ = l.ints;
  d.floats_ = l.floats;
  d.file_rec_ = l.file_rec;
  d.skip_ = l.skip;
  d.tail_ = l.tail;
  d.bytes_ = 16 + l.skip + (l.file_rec ? 8 : 0) + 8 * (l.ints + l.floats) + l.tail;
  return d;
}

namespace {
// POSIX records older than version 4, up-converted byte for byte as darshan-util 3.5 does: in a
// zeroed 1024-byte scratch buffer, each step moves the tail of the record to open a gap and fills
// the gap. The moves use the length of the record as stored (not as grown by earlier steps), so
// the last 16 bytes of a version 3 record (and more of older ones) are lost: POSIX_F_VARIANCE_RANK_TIME
// and _BYTES read back as 0. Values it sets are native (little-endian) numbers; the rest stay in
// the log's byte order.
void UpconvertPosix(const std::byte* raw, uint32_t v, std::byte* scratch) {
  std::memset(scratch, 0, 1024);
  constexpr size_t kBase = 16, kI = 8;
  size_t rec_len = v == 1 ? 680 : v == 2 ? 648 : 664;
  std::memcpy(scratch, raw, rec_len);
  auto set_f = [&](size_t at, double d) { StoreLe<double>(scratch + at, d); };
  auto set_i = [&](size_t at, int64_t i) { StoreLe<int64_t>(scratch + at, i); };
  if (v == 1) {  // drop the four stdio counters at ints 6-9
    const size_t dest = kBase + 6 * kI;
    const size_t src = dest + 4 * kI;
    std::memmove(scratch + dest, scratch + src, rec_len - src);
  }
  if (v <= 2) {
    const size_t dest = kBase + 64 * kI + 5 * 8, src = dest - 2 * 8;
    std::memmove(scratch + dest, scratch + src, 12 * 8);
    set_f(src, -1.0);
    set_f(src + 8, -1.0);
  }
  size_t dest = kBase + 3 * kI, src = dest - 2 * kI;
  std::memmove(scratch + dest, scratch + src, rec_len - src);
  set_i(src, -1);
  set_i(src + kI, -1);
  dest = kBase + 13 * kI, src = dest - 3 * kI;
  std::memmove(scratch + dest, scratch + src, rec_len - src);
  set_i(src, -1);
  set_i(src + kI, -1);
  set_i(src + 2 * kI, 0);
}
}  // namespace

bool DarshanCounterDecoder::Decode(const std::byte* raw, DarshanCounterRecord& out, bool parser_quirks) const {
  const DarshanLog& log = *log_;
  if (slot_ == kPosix && version_ < 4) {
    // darshan-util drops version 1 records whose fopen count (int 6) is positive, a test it
    // makes before the byte swap (on the unswapped count, in a big-endian log).
    if (version_ == 1) {
      const std::byte* fopens = raw + 16 + 6 * 8;
      if ((parser_quirks ? LoadLe<int64_t>(fopens) : static_cast<int64_t>(log.U64(fopens))) > 0) return false;
    }
    std::byte scratch[1024];
    UpconvertPosix(raw, version_, scratch);
    out.id = log.U64(scratch);
    out.rank = static_cast<int64_t>(log.U64(scratch + 8));
    out.file_rec_id = 0;
    out.ints.resize(69);
    for (size_t i = 0; i < 69; ++i) out.ints[i] = static_cast<int64_t>(log.U64(scratch + 16 + 8 * i));
    out.floats.resize(17);
    for (size_t i = 0; i < 17; ++i) {
      const std::byte* f = scratch + 16 + 69 * 8 + 8 * i;
      // Set by the up-conversion (native), or left unswapped by darshan-util's swap loop, whose
      // skip test compares float indexes with the int indexes of the rename counters (10-12).
      const bool native = (version_ < 3 && (i == 3 || i == 4)) || (parser_quirks && (i == 10 || i == 11 || i == 12));
      out.floats[i] = native ? LoadLe<double>(f) : log.F64(f);
    }
    return true;
  }
  out.id = log.U64(raw);
  out.rank = static_cast<int64_t>(log.U64(raw + 8));
  const std::byte* p = raw + 16 + skip_;
  out.file_rec_id = 0;
  if (file_rec_) {
    // darshan_log_get_hdf5_dataset swaps the file record id only when the log's H5F version
    // (not H5D's) is at least 2.
    const bool unswapped = parser_quirks && slot_ == kH5d && log.module_version(kH5f) < 2;
    out.file_rec_id = unswapped ? LoadLe<uint64_t>(p) : log.U64(p);
    p += 8;
  }
  out.ints.resize(ints_);
  for (uint32_t i = 0; i < ints_; ++i) out.ints[i] = static_cast<int64_t>(log.U64(p + 8 * size_t{i}));
  p += 8 * size_t{ints_};
  out.floats.resize(floats_);
  for (uint32_t i = 0; i < floats_; ++i) out.floats[i] = log.F64(p + 8 * size_t{i});
  p += 8 * size_t{floats_};
  out.tail.assign(p, p + tail_);
  const uint32_t v = version_;
  switch (slot_) {
    case kMpiio:
      if (v <= 2) InsertAt(out.floats, 3, {-1.0, -1.0});
      break;
    case kStdio:
      if (v == 1) InsertAt(out.ints, 1, {int64_t{-1}});
      break;
    case kH5f:
      if (v == 1) InsertAt(out.floats, 1, {-1.0, -1.0});  // OPEN_START, CLOSE_END -> four timestamps
      if (v <= 2) {
        InsertAt(out.ints, 1, {int64_t{-1}, int64_t{-1}});
        out.floats.push_back(-1.0);
      }
      break;
    case kPnetcdfFile:
      if (v == 1) InsertAt(out.floats, 1, {-1.0, -1.0});
      if (v <= 2) {
        // darshan_log_get_pnetcdf_file adds INDEP_OPENS to COLL_OPENS before the byte swap, so
        // in a big-endian log it adds the unswapped values.
        int64_t opens = static_cast<int64_t>(static_cast<uint64_t>(out.ints[0]) + static_cast<uint64_t>(out.ints[1]));
        if (parser_quirks && log.big_endian()) {
          const std::byte* c = raw + 16;
          std::byte sum[8];
          StoreLe<uint64_t>(sum, LoadLe<uint64_t>(c) + LoadLe<uint64_t>(c + 8));
          opens = static_cast<int64_t>(log.U64(sum));
        }
        out.ints = {-1, opens, -1, -1, -1, -1, -1, -1, -1};
        const std::vector<double> f = out.floats;  // OPEN_START CLOSE_START OPEN_END CLOSE_END
        out.floats = {f[0], f[1], -1.0, f[2], f[3], -1.0, -1.0, -1.0};
      }
      break;
    default:
      break;
  }
  return true;
}

Result<bool> DarshanCounterDecoder::Next(DarshanRegionReader& reader, std::vector<std::byte>& raw,
                                         DarshanCounterRecord& out, bool parser_quirks) const {
  raw.resize(bytes_);
  for (;;) {
    XTFQ_ASSIGN_OR_RETURN(size_t got, reader.Read(raw));
    if (got == 0) return false;
    if (got < raw.size()) {
      return reader.Fail(fmt::format("{} bytes of a last record of {} bytes (the region does not divide into records)",
                                     got, raw.size()));
    }
    if (Decode(raw.data(), out, parser_quirks)) return true;
  }
}

}  // namespace xtfq
