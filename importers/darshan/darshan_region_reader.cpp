#include "importers/darshan/darshan_region_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace xtfq {

namespace {
constexpr size_t kInputBlock = size_t{1} << 20;
}  // namespace

DarshanRegionReader::DarshanRegionReader(File& file, DarshanCompression comp, uint64_t offset, uint64_t len,
                                         std::string what)
    : file_(file), comp_(comp), begin_(offset), end_(offset + len), pos_(offset), what_(std::move(what)) {
  in_.resize(std::min<uint64_t>(kInputBlock, std::max<uint64_t>(len, 1)));
}

DarshanRegionReader::~DarshanRegionReader() { EndStream(); }

Error DarshanRegionReader::Fail(std::string_view message) const {
  const uint64_t at = pos_ - (in_size_ - in_used_);
  return Error(ErrorCode::kCorrupt, fmt::format("{}: {} at byte {}: {}", file_.name(), what_, at, message));
}

void DarshanRegionReader::EndStream() {
  if (!in_stream_) return;
  if (comp_ == DarshanCompression::kZlib) inflateEnd(&z_);
  if (comp_ == DarshanCompression::kBzip2) BZ2_bzDecompressEnd(&bz_);
  in_stream_ = false;
}

Status DarshanRegionReader::StartStream() {
  if (comp_ == DarshanCompression::kZlib) {
    z_ = z_stream{};
    if (inflateInit(&z_) != Z_OK) return Fail("cannot start zlib");
  } else if (comp_ == DarshanCompression::kBzip2) {
    bz_ = bz_stream{};
    if (BZ2_bzDecompressInit(&bz_, 0, 0) != BZ_OK) return Fail("cannot start bzip2");
  }
  in_stream_ = true;
  return Ok();
}

Status DarshanRegionReader::Refill() {
  if (in_used_ < in_size_ || pos_ >= end_) return Ok();
  const size_t n = static_cast<size_t>(std::min<uint64_t>(in_.size(), end_ - pos_));
  Result<size_t> got = file_.ReadAt(pos_, std::span(in_).first(n));
  if (!got.ok()) return got.error();
  if (*got == 0) return Fail(fmt::format("the file ends; the region runs to byte {}", end_));
  pos_ += *got;
  in_used_ = 0;
  in_size_ = *got;
  return Ok();
}

Result<size_t> DarshanRegionReader::Read(std::span<std::byte> out) {
  size_t done = 0;
  while (done < out.size()) {
    XTFQ_TRY(Refill());
    if (in_used_ == in_size_ && pos_ >= end_) {  // the region's bytes are used up
      if (in_stream_ && comp_ != DarshanCompression::kNone) return Fail("the region ends inside a compressed stream");
      break;
    }
    if (comp_ == DarshanCompression::kNone) {
      const size_t n = std::min(out.size() - done, in_size_ - in_used_);
      std::memcpy(out.data() + done, in_.data() + in_used_, n);
      in_used_ += n;
      done += n;
      continue;
    }
    if (!in_stream_) XTFQ_TRY(StartStream());
    const size_t avail_in = in_size_ - in_used_;
    const size_t want_out = out.size() - done;
    bool ended = false;
    size_t used = 0, made = 0;
    if (comp_ == DarshanCompression::kZlib) {
      z_.next_in = reinterpret_cast<Bytef*>(in_.data() + in_used_);
      z_.avail_in = static_cast<uInt>(avail_in);
      z_.next_out = reinterpret_cast<Bytef*>(out.data() + done);
      z_.avail_out = static_cast<uInt>(std::min<size_t>(want_out, UINT32_MAX));
      const int rc = inflate(&z_, Z_NO_FLUSH);
      used = avail_in - z_.avail_in;
      made = std::min<size_t>(want_out, UINT32_MAX) - z_.avail_out;
      if (rc == Z_STREAM_END)
        ended = true;
      else if (rc != Z_OK && !(rc == Z_BUF_ERROR && (used > 0 || made > 0))) {
        return Fail(fmt::format("corrupt zlib stream ({})", z_.msg != nullptr ? z_.msg : zError(rc)));
      }
    } else {
      bz_.next_in = reinterpret_cast<char*>(in_.data() + in_used_);
      bz_.avail_in = static_cast<unsigned>(avail_in);
      bz_.next_out = reinterpret_cast<char*>(out.data() + done);
      bz_.avail_out = static_cast<unsigned>(std::min<size_t>(want_out, UINT32_MAX));
      const int rc = BZ2_bzDecompress(&bz_);
      used = avail_in - bz_.avail_in;
      made = std::min<size_t>(want_out, UINT32_MAX) - bz_.avail_out;
      if (rc == BZ_STREAM_END)
        ended = true;
      else if (rc != BZ_OK)
        return Fail(fmt::format("corrupt bzip2 stream (error {})", rc));
    }
    in_used_ += used;
    done += made;
    produced_ += made;
    if (ended) EndStream();
    if (!ended && used == 0 && made == 0) return Fail("the compressed stream makes no progress");
  }
  if (comp_ == DarshanCompression::kNone) produced_ += done;
  return done;
}

Status DarshanRegionReader::ReadExact(std::span<std::byte> out, std::string_view item) {
  XTFQ_ASSIGN_OR_RETURN(size_t n, Read(out));
  if (n != out.size()) {
    return Fail(fmt::format("the region ends {} bytes into {} of {} bytes", n, item, out.size()));
  }
  return Ok();
}

Result<std::vector<std::byte>> DarshanRegionReader::ReadAll() {
  std::vector<std::byte> all;
  std::vector<std::byte> block(1 << 16);
  for (;;) {
    XTFQ_ASSIGN_OR_RETURN(size_t n, Read(block));
    all.insert(all.end(), block.begin(), block.begin() + static_cast<ptrdiff_t>(n));
    if (n < block.size()) return all;
  }
}

Status DarshanRegionReader::ReadGrowing(std::vector<std::byte>& out, size_t bytes, std::string_view item) {
  out.clear();
  while (out.size() < bytes) {
    const size_t at = out.size(), n = std::min<size_t>(bytes - at, size_t{1} << 20);
    out.resize(at + n);
    XTFQ_TRY(ReadExact(std::span(out).subspan(at, n), item));
  }
  return Ok();
}

}  // namespace xtfq
