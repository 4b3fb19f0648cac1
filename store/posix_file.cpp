#include "store/posix_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace xtfq {

Result<std::unique_ptr<PosixFile>> PosixFile::Open(const std::string& path, Mode mode) {
  int flags = O_CLOEXEC;
  switch (mode) {
    case Mode::kRead:
      flags |= O_RDONLY;
      break;
    case Mode::kWrite:
      flags |= O_RDWR;
      break;
    case Mode::kCreateNew:
      flags |= O_RDWR | O_CREAT | O_EXCL;
      break;
  }
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) {
    int e = errno;
    return Error(e == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
                 fmt::format("{}: cannot open: {}", path, std::strerror(e)));
  }
  if (mode != Mode::kRead && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK) {
      return Error(ErrorCode::kBusy, fmt::format("{}: another writer has the store open", path));
    }
    return Error(ErrorCode::kIo, fmt::format("{}: cannot lock: {}", path, std::strerror(e)));
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error(ErrorCode::kInvalidArgument, fmt::format("{}: not a regular file", path));
  }
  return std::unique_ptr<PosixFile>(new PosixFile(path, fd));
}

Result<std::unique_ptr<PosixFile>> PosixFile::CreateTemporary(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::string path = dir + "/xtfq-tmp-XXXXXX";
    fd = ::mkstemp(path.data());
    if (fd >= 0) ::unlink(path.c_str());
  }
  if (fd < 0) {
    return Error(ErrorCode::kIo, fmt::format("{}: cannot create a temporary file: {}", dir, std::strerror(errno)));
  }
  return std::unique_ptr<PosixFile>(new PosixFile(dir + " (temporary file)", fd));
}

Status PosixFile::WriteAtomically(const std::string& path, std::span<const std::byte> data) {
  std::string tmp = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return Error(ErrorCode::kIo, fmt::format("{}: cannot create: {}", tmp, std::strerror(errno)));
  PosixFile f(tmp, fd);
  Status s = f.WriteAt(0, data);
  if (s.ok()) s = f.Sync();
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    s = Error(ErrorCode::kIo, fmt::format("{}: cannot rename to {}: {}", tmp, path, std::strerror(errno)));
  }
  if (!s.ok()) ::unlink(tmp.c_str());
  return s;
}

PosixFile::~PosixFile() { ::close(fd_); }

Error PosixFile::Errno(std::string_view what, uint64_t offset) const {
  int e = errno;
  return Error(ErrorCode::kIo, fmt::format("{}: {} at offset {} failed: {}", path_, what, offset, std::strerror(e)));
}

Result<size_t> PosixFile::ReadAt(uint64_t offset, std::span<std::byte> out) {
  for (;;) {
    ssize_t n = ::pread(fd_, out.data(), out.size(), static_cast<off_t>(offset));
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR) return Errno("read", offset);
  }
}

Status PosixFile::WriteAt(uint64_t offset, std::span<const std::byte> data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::pwrite(fd_, data.data() + done, data.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("write", offset + done);
    }
    done += static_cast<size_t>(n);
  }
  return Ok();
}

Status PosixFile::Sync() {
  if (::fdatasync(fd_) != 0) return Errno("fdatasync", 0);
  return Ok();
}

Result<uint64_t> PosixFile::Size() {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return Errno("fstat", 0);
  return static_cast<uint64_t>(st.st_size);
}

Status PosixFile::Truncate(uint64_t size) {
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) return Errno("ftruncate", size);
  return Ok();
}

}  // namespace xtfq
