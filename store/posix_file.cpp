#include "store/posix_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "store/format.h"

namespace xtfq {

namespace {
// An open-file-description lock of `type` on the byte at `offset`: F_OFD_SETLK, or F_OFD_GETLK
// (then `fl` says what conflicts). Returns fcntl's result, retrying on EINTR.
int OfdLock(int fd, int cmd, short type, uint64_t offset, uint64_t len, struct flock& fl) {
  fl = {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(offset);
  fl.l_len = static_cast<off_t>(len);
  int rc;
  do {
    rc = ::fcntl(fd, cmd, &fl);
  } while (rc != 0 && errno == EINTR);
  return rc;
}

// The errors of a file system that takes no byte-range locks.
bool NoLocks(int e) { return e == ENOLCK || e == EOPNOTSUPP || e == ENOTSUP || e == EINVAL || e == ENOSYS; }

// The writer's exclusive lock: a write lock on the byte just below the leases, so that readers'
// leases never conflict with it (a flock would, where NFS emulates it with a whole-file lock).
Status LockWriter(int fd, const std::string& path) {
  struct flock fl;
  if (OfdLock(fd, F_OFD_SETLK, F_WRLCK, format::kWriterLockByte, 1, fl) == 0) return Ok();
  const int e = errno;
  if (e == EAGAIN || e == EACCES) {
    return Error(ErrorCode::kBusy, fmt::format("{}: another writer has the store open", path));
  }
  return Error(ErrorCode::kIo, fmt::format("{}: cannot lock: {}", path, std::strerror(e)));
}
}  // namespace

Result<std::unique_ptr<PosixFile>> PosixFile::Open(const std::string& path, Mode mode) {
  if (mode == Mode::kCreateAside) return OpenAside(path);
  int flags = O_CLOEXEC;
  switch (mode) {
    case Mode::kRead:
      flags |= O_RDONLY;
      break;
    case Mode::kWrite:
      flags |= O_RDWR;
      break;
    case Mode::kCreateNew:
    case Mode::kCreateAside:
      flags |= O_RDWR | O_CREAT | O_EXCL;
      break;
  }
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) {
    int e = errno;
    return Error(e == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
                 fmt::format("{}: cannot open: {}", path, std::strerror(e)));
  }
  if (mode != Mode::kRead) {
    if (Status locked = LockWriter(fd, path); !locked.ok()) {
      ::close(fd);
      return locked.error();
    }
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error(ErrorCode::kInvalidArgument, fmt::format("{}: not a regular file", path));
  }
  return std::unique_ptr<PosixFile>(new PosixFile(path, fd));
}

Result<std::unique_ptr<PosixFile>> PosixFile::OpenAside(const std::string& path) {
  if (::access(path.c_str(), F_OK) == 0) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("{}: exists; refusing to overwrite it", path));
  }
  const std::filesystem::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  std::string aside;
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0) {
    aside = (target.has_parent_path() ? dir + "/" : std::string()) + "." + target.filename().string() + ".new-XXXXXX";
    fd = ::mkostemp(aside.data(), O_CLOEXEC);
    if (fd < 0) {
      return Error(ErrorCode::kIo, fmt::format("{}: cannot create a file in {}: {}", path, dir, std::strerror(errno)));
    }
    ::fchmod(fd, 0644);
  }
  // Nobody else can reach the file yet, so the lock is free; it stays with the file once published.
  if (Status locked = LockWriter(fd, path); !locked.ok()) {
    ::close(fd);
    if (!aside.empty()) ::unlink(aside.c_str());
    return locked.error();
  }
  std::unique_ptr<PosixFile> f(new PosixFile(path, fd));
  f->aside_ = std::move(aside);
  f->unpublished_ = true;
  return f;
}

Status PosixFile::Publish() {
  if (!unpublished_) return Ok();
  int rc;
  if (aside_.empty()) {
    const std::string proc = fmt::format("/proc/self/fd/{}", fd_);
    rc = ::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, path_.c_str(), AT_SYMLINK_FOLLOW);
  } else {
    rc = ::link(aside_.c_str(), path_.c_str());
  }
  if (rc != 0 && aside_.empty() && errno == ENOENT) {
    // No /proc: linking an unnamed file by its descriptor needs CAP_DAC_READ_SEARCH.
    rc = ::linkat(fd_, "", AT_FDCWD, path_.c_str(), AT_EMPTY_PATH);
  }
  if (rc != 0) {
    const int e = errno;
    if (e == EEXIST) {
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("{}: was created by another process meanwhile; refusing to replace it", path_));
    }
    return Error(ErrorCode::kIo, fmt::format("{}: cannot give the new store its name: {}", path_, std::strerror(e)));
  }
  if (!aside_.empty()) ::unlink(aside_.c_str());
  aside_.clear();
  unpublished_ = false;
  // The name must be as durable as the store's first generation.
  const std::filesystem::path target(path_);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Ok();
}

std::optional<File::Identity> PosixFile::identity() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return std::nullopt;
  return Identity{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}

Status PosixFile::HoldGeneration(uint64_t generation) {
  struct flock fl;
  if (OfdLock(fd_, F_OFD_SETLK, F_RDLCK, format::kLeaseLockBase + generation, 1, fl) == 0) return Ok();
  const int e = errno;
  if (NoLocks(e)) {
    return Error(ErrorCode::kUnsupported,
                 fmt::format("{}: the file system takes no byte-range locks: {}", path_, std::strerror(e)));
  }
  return Error(ErrorCode::kIo,
               fmt::format("{}: cannot lease generation {} for reading: {}", path_, generation, std::strerror(e)));
}

void PosixFile::ReleaseGeneration(uint64_t generation) {
  struct flock fl;
  OfdLock(fd_, F_OFD_SETLK, F_UNLCK, format::kLeaseLockBase + generation, 1, fl);
}

Result<std::optional<uint64_t>> PosixFile::OldestHeldGeneration(uint64_t below) {
  // F_OFD_GETLK names one conflicting lock, not the lowest: narrow the range until none is left.
  std::optional<uint64_t> oldest;
  while (below > 0) {
    struct flock fl;
    if (OfdLock(fd_, F_OFD_GETLK, F_WRLCK, format::kLeaseLockBase, below, fl) != 0) {
      return Error(ErrorCode::kIo,
                   fmt::format("{}: cannot ask which generations readers hold: {}", path_, std::strerror(errno)));
    }
    if (fl.l_type == F_UNLCK) break;
    const auto start = static_cast<uint64_t>(fl.l_start);
    if (start < format::kLeaseLockBase || start - format::kLeaseLockBase >= below) {
      // A lock that is not one lease (a whole-file lock of some other program): who reads what
      // cannot be told, so nothing is released.
      return Error(ErrorCode::kBusy, fmt::format("{}: a lock from offset {} covers the readers' leases", path_, start));
    }
    oldest = below = start - format::kLeaseLockBase;
  }
  return oldest;
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

PosixFile::~PosixFile() {
  if (unpublished_ && !aside_.empty()) ::unlink(aside_.c_str());
  ::close(fd_);
}

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
