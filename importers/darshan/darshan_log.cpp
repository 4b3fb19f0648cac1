#include "importers/darshan/darshan_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <sstream>

#include "layouts/darshan_layout.h"
#include "store/endian.h"
#include "store/posix_file.h"

namespace xtfq {

namespace {
constexpr uint32_t kHeader341 = 1328, kHeaderOld = 360;
constexpr uint32_t kJob341 = 1080, kJobOld = 1064, kMetadataBytes = 1024;

// Inserts an empty slot at `at`, moving the higher slots (and their partial bits) up by one, as
// darshan-util does for modules added in later formats.
template <class A>
void InsertSlot(A& a, int at) {
  for (int i = static_cast<int>(a.size()) - 1; i > at; --i) a[i] = a[i - 1];
  a[at] = typename A::value_type{};
}
uint64_t InsertBit(uint64_t flags, int at) {
  const uint64_t low = flags & ((uint64_t{1} << at) - 1);
  return low | ((flags >> at) << (at + 1));
}
}  // namespace

std::string_view DarshanLog::ModuleName(int slot) { return DarshanLayout::ModuleName(slot); }

uint64_t DarshanLog::U64(const std::byte* p) const {
  const uint64_t v = LoadLe<uint64_t>(p);
  return swap_ ? __builtin_bswap64(v) : v;
}
uint32_t DarshanLog::U32(const std::byte* p) const {
  const uint32_t v = LoadLe<uint32_t>(p);
  return swap_ ? __builtin_bswap32(v) : v;
}
double DarshanLog::F64(const std::byte* p) const { return std::bit_cast<double>(U64(p)); }

Error DarshanLog::Bad(std::string_view region, uint64_t offset, std::string_view message) const {
  return Error(ErrorCode::kCorrupt, fmt::format("{}: {} at byte {}: {}", name(), region, offset, message));
}

Result<std::unique_ptr<DarshanLog>> DarshanLog::Open(const std::string& path) {
  XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(path, PosixFile::Mode::kRead));
  return Open(std::move(file));
}

Result<std::unique_ptr<DarshanLog>> DarshanLog::Open(std::unique_ptr<File> file) {
  std::unique_ptr<DarshanLog> log(new DarshanLog());
  log->file_ = std::move(file);
  XTFQ_ASSIGN_OR_RETURN(log->file_size_, log->file_->Size());
  XTFQ_TRY(log->ReadHeader());
  XTFQ_TRY(log->ReadJob());
  XTFQ_TRY(log->ReadNames());
  return log;
}

Status DarshanLog::ReadHeader() {
  std::array<std::byte, kHeader341> h{};
  XTFQ_ASSIGN_OR_RETURN(size_t got, file_->ReadAt(0, std::span(h).first(std::min<uint64_t>(16, file_size_))));
  if (got < 16) return Bad("header", 0, fmt::format("the file has {} bytes, too few for a Darshan header", file_size_));
  char vs[9] = {};
  std::memcpy(vs, h.data(), 8);
  version_ = vs;
  int major = 0, minor = 0;
  char dot = 0;
  std::istringstream in(version_);
  in >> major >> dot >> minor;
  if (!in || dot != '.' || major != 3 || (minor != 0 && minor != 10 && minor != 20 && minor != 21 && minor != 41)) {
    std::string shown;
    for (char c : version_)
      shown += (c >= 32 && c < 127) ? std::string(1, c) : fmt::format("\\x{:02x}", static_cast<uint8_t>(c));
    return Bad("header", 0,
               fmt::format("unknown log format version '{}' (3.00, 3.10, 3.20, 3.21 and 3.41 are read)", shown));
  }
  minor_ = minor;
  const uint64_t magic = LoadLe<uint64_t>(h.data() + 8);
  if (magic == kMagic)
    swap_ = false;
  else if (__builtin_bswap64(magic) == kMagic)
    swap_ = true;
  else
    return Bad("header", 8, fmt::format("bad magic number {:#x} (not a Darshan log)", magic));
  header_bytes_ = minor == 41 ? kHeader341 : kHeaderOld;
  XTFQ_ASSIGN_OR_RETURN(got, file_->ReadAt(0, std::span(h).first(std::min<uint64_t>(header_bytes_, file_size_))));
  if (got < header_bytes_) {
    return Bad("header", got,
               fmt::format("the file ends inside the {}-byte header of format {}", header_bytes_, version_));
  }
  const uint8_t comp = static_cast<uint8_t>(h[16]);
  if (comp > 2) return Bad("header", 16, fmt::format("unknown compression type {}", comp));
  comp_ = static_cast<DarshanCompression>(comp);
  auto region = [&](size_t at) { return Region{U64(h.data() + at), U64(h.data() + at + 8)}; };
  if (minor == 41) {
    partial_ = U64(h.data() + 24);
    names_ = region(32);
    for (int i = 0; i < kSlots; ++i) mods_[i] = region(48 + 16 * static_cast<size_t>(i));
    for (int i = 0; i < kSlots; ++i) mod_ver_[i] = U32(h.data() + 1072 + 4 * static_cast<size_t>(i));
  } else {
    partial_ = U32(h.data() + 20);
    names_ = region(24);
    for (int i = 0; i < 16; ++i) mods_[i] = region(40 + 16 * static_cast<size_t>(i));
    for (int i = 0; i < 16; ++i) mod_ver_[i] = U32(h.data() + 296 + 4 * static_cast<size_t>(i));
    if (minor < 20) {  // H5D arrived at slot 4 in 3.20
      InsertSlot(mods_, 4);
      InsertSlot(mod_ver_, 4);
      partial_ = InsertBit(partial_, 4);
    }
    InsertSlot(mods_, 6);  // PNETCDF_VAR arrived at slot 6 in 3.41
    InsertSlot(mod_ver_, 6);
    partial_ = InsertBit(partial_, 6);
  }
  // The job region has no map entry: it runs from the header to the next region.
  uint64_t job_end = names_.off;
  for (int i = 0; i < kSlots && job_end == 0; ++i) job_end = mods_[i].off;
  if (job_end == 0) job_end = file_size_;
  if (job_end < header_bytes_)
    return Bad("header", 32, fmt::format("the record table starts at byte {}, inside the header", job_end));
  job_ = Region{header_bytes_, job_end - header_bytes_};
  auto check = [&](const Region& r, std::string_view what, size_t at) -> Status {
    if (r.len > file_size_ || r.off > file_size_ - r.len) {
      return Bad("header", at,
                 fmt::format("the {} region (bytes {} to {}) lies beyond the end of the file ({} bytes)", what, r.off,
                             r.off + r.len, file_size_));
    }
    if (r.len > 0 && r.off < header_bytes_)
      return Bad("header", at, fmt::format("the {} region starts at byte {}, inside the header", what, r.off));
    return Ok();
  };
  XTFQ_TRY(check(names_, "record table", minor == 41 ? 32 : 24));
  for (int i = 0; i < kSlots; ++i) {
    const std::string_view n = ModuleName(i);
    XTFQ_TRY(check(mods_[i], n.empty() ? fmt::format("module {}", i) : fmt::format("{} module", n),
                   minor == 41 ? 48 + 16 * i : 40));
  }
  return Ok();
}

Status DarshanLog::ReadJob() {
  DarshanRegionReader r(*file_, comp_, job_.off, job_.len, "job region");
  const uint32_t size = minor_ == 41 ? kJob341 : kJobOld;
  std::vector<std::byte> job(size);
  XTFQ_TRY(r.ReadExact(job, "the job record"));
  auto i64 = [&](size_t at) { return static_cast<int64_t>(U64(job.data() + at)); };
  uid = i64(0);
  if (minor_ == 41) {
    start_sec = i64(8), start_nsec = i64(16), end_sec = i64(24), end_nsec = i64(32), nprocs = i64(40), jobid = i64(48);
  } else {
    start_sec = i64(8), end_sec = i64(16), nprocs = i64(24), jobid = i64(32);
  }
  const char* meta = reinterpret_cast<const char*>(job.data() + (size - kMetadataBytes));
  metadata.assign(meta, strnlen(meta, kMetadataBytes));
  // Then the exe and mount string, NUL-terminated, in the same region.
  XTFQ_ASSIGN_OR_RETURN(std::vector<std::byte> rest, r.ReadAll());
  std::string s(reinterpret_cast<const char*>(rest.data()), rest.size());
  s.resize(strnlen(s.c_str(), s.size()));
  const size_t nl = s.find('\n');
  exe = nl == std::string::npos ? std::string() : s.substr(0, nl);
  // After each newline, the next two whitespace-separated words are a mount's fs type and path.
  // darshan-util reads them with sscanf("%s\t%s") from there, so a line with one word takes its
  // second from the next line (an exe string with a newline in it makes such entries).
  for (size_t p = nl; p != std::string::npos; p = s.find('\n', p + 1)) {
    std::istringstream words(s.substr(p + 1));
    Mount m;
    if (!(words >> m.fs_type >> m.path)) {
      const size_t end = s.find('\n', p + 1);
      return Bad("job region", job_.off,
                 fmt::format("poorly formatted mount table line '{}'",
                             s.substr(p + 1, end == std::string::npos ? std::string::npos : end - p - 1)));
    }
    mounts.push_back(std::move(m));
  }
  std::stable_sort(mounts.begin(), mounts.end(),
                   [](const Mount& a, const Mount& b) { return a.path.size() > b.path.size(); });
  return Ok();
}

Status DarshanLog::ReadNames() {
  if (names_.len == 0) return Ok();
  DarshanRegionReader r(*file_, comp_, names_.off, names_.len, "record table");
  XTFQ_ASSIGN_OR_RETURN(std::vector<std::byte> all, r.ReadAll());
  size_t at = 0;
  auto garbage = [&](const std::string& m) {
    return r.Fail(fmt::format("name record at byte {} of the decompressed table: {}", at, m));
  };
  while (at < all.size()) {
    if (all.size() - at < 8) return garbage(fmt::format("{} bytes left, too few for a record id", all.size() - at));
    const uint64_t id = U64(all.data() + at);
    std::string name;
    size_t next = 0;
    if (minor_ == 0) {
      if (all.size() - at < 12) return garbage("the name length is cut off");
      const uint32_t len = U32(all.data() + at + 8);
      if (len > all.size() - at - 12) return garbage(fmt::format("a name of {} bytes runs past the table's end", len));
      name.assign(reinterpret_cast<const char*>(all.data() + at + 12), len);
      next = at + 12 + len;
    } else {
      const auto* b = reinterpret_cast<const char*>(all.data() + at + 8);
      const size_t max = all.size() - at - 8;
      const size_t len = strnlen(b, max);
      if (len == max) return garbage("the name has no terminating NUL before the table's end");
      name.assign(b, len);
      next = at + 8 + len + 1;
    }
    auto [it, fresh] = names_by_id_.try_emplace(id, name);
    if (!fresh && it->second.empty() && !name.empty()) it->second = std::move(name);
    at = next;
  }
  return Ok();
}

std::unique_ptr<DarshanRegionReader> DarshanLog::ModuleReader(int slot) {
  const std::string_view n = ModuleName(slot);
  return std::make_unique<DarshanRegionReader>(
      *file_, comp_, mods_[slot].off, mods_[slot].len,
      n.empty() ? fmt::format("module {}", slot) : fmt::format("{} module", n));
}

}  // namespace xtfq
