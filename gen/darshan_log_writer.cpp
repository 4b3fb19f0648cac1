#include "gen/darshan_log_writer.h"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>

#include "store/endian.h"
#include "store/posix_file.h"

namespace xtfq {

namespace {
constexpr uint32_t kHeader = 1328;

#define XTFQ_MIX64(a, b, c) \
  {                         \
    a -= b;                 \
    a -= c;                 \
    a ^= (c >> 43);         \
    b -= c;                 \
    b -= a;                 \
    b ^= (a << 9);          \
    c -= a;                 \
    c -= b;                 \
    c ^= (b >> 8);          \
    a -= b;                 \
    a -= c;                 \
    a ^= (c >> 38);         \
    b -= c;                 \
    b -= a;                 \
    b ^= (a << 23);         \
    c -= a;                 \
    c -= b;                 \
    c ^= (b >> 5);          \
    a -= b;                 \
    a -= c;                 \
    a ^= (c >> 35);         \
    b -= c;                 \
    b -= a;                 \
    b ^= (a << 49);         \
    c -= a;                 \
    c -= b;                 \
    c ^= (b >> 11);         \
    a -= b;                 \
    a -= c;                 \
    a ^= (c >> 12);         \
    b -= c;                 \
    b -= a;                 \
    b ^= (a << 18);         \
    c -= a;                 \
    c -= b;                 \
    c ^= (b >> 22);         \
  }
}  // namespace

uint64_t DarshanLogWriter::Hash(std::string_view name) {
  const auto* k = reinterpret_cast<const uint8_t*>(name.data());
  size_t len = name.size();
  uint64_t a = 0, b = 0, c = 0x9e3779b97f4a7c13ULL;  // level 0, the golden ratio
  auto word = [](const uint8_t* p, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
    return v;
  };
  while (len >= 24) {
    a += word(k, 8), b += word(k + 8, 8), c += word(k + 16, 8);
    XTFQ_MIX64(a, b, c);
    k += 24, len -= 24;
  }
  c += name.size();
  // The last 23 bytes: a gets bytes 0-7, b bytes 8-15, c bytes 16-22 shifted past its low byte.
  if (len > 16) c += word(k + 16, len - 16) << 8;
  if (len > 8) b += word(k + 8, std::min<size_t>(len, 16) - 8);
  if (len > 0) a += word(k, std::min<size_t>(len, 8));
  XTFQ_MIX64(a, b, c);
  return c;
}
#undef XTFQ_MIX64

DarshanLogWriter::DarshanLogWriter(std::unique_ptr<File> file) : file_(std::move(file)), pos_(kHeader) {}

DarshanLogWriter::~DarshanLogWriter() {
  if (open_) deflateEnd(&z_);
}

Result<std::unique_ptr<DarshanLogWriter>> DarshanLogWriter::Create(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);  // a new log replaces an old one
  XTFQ_ASSIGN_OR_RETURN(auto f, PosixFile::Open(path, PosixFile::Mode::kCreateNew));
  return std::unique_ptr<DarshanLogWriter>(new DarshanLogWriter(std::move(f)));
}

Status DarshanLogWriter::BeginRegion() {
  std::memset(&z_, 0, sizeof z_);
  // The runtime uses Z_DEFAULT_COMPRESSION; level 1 writes the same format several times faster.
  if (deflateInit(&z_, 1) != Z_OK) return Error(ErrorCode::kIo, fmt::format("{}: deflateInit failed", file_->name()));
  open_ = true;
  region_start_ = pos_;
  out_.resize(size_t{1} << 20);
  return Ok();
}

Status DarshanLogWriter::Drain(int flush) {
  for (;;) {
    z_.next_out = reinterpret_cast<Bytef*>(out_.data());
    z_.avail_out = static_cast<uInt>(out_.size());
    const int rc = deflate(&z_, flush);
    if (rc == Z_STREAM_ERROR) return Error(ErrorCode::kIo, fmt::format("{}: deflate failed", file_->name()));
    const size_t n = out_.size() - z_.avail_out;
    if (n > 0) {
      XTFQ_TRY(file_->WriteAt(pos_, std::span(out_).first(n)));
      pos_ += n;
    }
    if (flush == Z_FINISH ? rc == Z_STREAM_END : (z_.avail_in == 0 && z_.avail_out != 0)) return Ok();
  }
}

Status DarshanLogWriter::Write(std::span<const std::byte> bytes) {
  z_.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(bytes.data()));
  z_.avail_in = static_cast<uInt>(bytes.size());
  return Drain(Z_NO_FLUSH);
}

Status DarshanLogWriter::EndRegion(uint64_t& off, uint64_t& len) {
  z_.next_in = nullptr;
  z_.avail_in = 0;
  XTFQ_TRY(Drain(Z_FINISH));
  deflateEnd(&z_);
  open_ = false;
  off = region_start_;
  len = pos_ - region_start_;
  return Ok();
}

Status DarshanLogWriter::WriteJob(const DarshanJob& job) {
  XTFQ_TRY(BeginRegion());
  std::vector<std::byte> j(1080);
  int64_t fields[] = {job.uid, job.start_sec, job.start_nsec, job.end_sec, job.end_nsec, job.nprocs, job.job};
  for (size_t i = 0; i < 7; ++i) StoreLe<int64_t>(j.data() + 8 * i, fields[i]);
  std::memcpy(j.data() + 56, job.metadata.data(), std::min<size_t>(job.metadata.size(), 1023));
  XTFQ_TRY(Write(j));
  std::string exe = job.exe;
  for (const auto& [path, type] : job.mounts) exe += "\n" + type + "\t" + path;
  exe.resize(std::min<size_t>(exe.size(), 3015));
  exe.push_back('\0');
  XTFQ_TRY(Write(std::as_bytes(std::span(exe.data(), exe.size()))));
  uint64_t off = 0, len = 0;
  return EndRegion(off, len);
}

Status DarshanLogWriter::WriteNames(const std::vector<std::pair<uint64_t, std::string>>& names) {
  XTFQ_TRY(BeginRegion());
  std::string buf;
  for (const auto& [id, name] : names) {
    char b[8];
    StoreLe<uint64_t>(reinterpret_cast<std::byte*>(b), id);
    buf.append(b, 8);
    buf += name;
    buf.push_back('\0');
    if (buf.size() > (size_t{1} << 20)) {
      XTFQ_TRY(Write(std::as_bytes(std::span(buf.data(), buf.size()))));
      buf.clear();
    }
  }
  XTFQ_TRY(Write(std::as_bytes(std::span(buf.data(), buf.size()))));
  return EndRegion(names_.first, names_.second);
}

Status DarshanLogWriter::BeginModule(int slot, uint32_t version) {
  slot_ = slot;
  vers_[static_cast<size_t>(slot)] = version;
  return BeginRegion();
}

Status DarshanLogWriter::EndModule() {
  auto& m = mods_[static_cast<size_t>(slot_)];
  return EndRegion(m.first, m.second);
}

Status DarshanLogWriter::Finish(uint64_t partial_flags) {
  std::vector<std::byte> h(kHeader);
  std::memcpy(h.data(), "3.41", 4);
  StoreLe<uint64_t>(h.data() + 8, DarshanLog::kMagic);
  h[16] = std::byte{0};  // ZLIB
  StoreLe<uint64_t>(h.data() + 24, partial_flags);
  StoreLe<uint64_t>(h.data() + 32, names_.first);
  StoreLe<uint64_t>(h.data() + 40, names_.second);
  for (size_t i = 0; i < 64; ++i) {
    StoreLe<uint64_t>(h.data() + 48 + 16 * i, mods_[i].first);
    StoreLe<uint64_t>(h.data() + 56 + 16 * i, mods_[i].second);
    StoreLe<uint32_t>(h.data() + 1072 + 4 * i, vers_[i]);
  }
  XTFQ_TRY(file_->WriteAt(0, h));
  return file_->Sync();
}

}  // namespace xtfq
