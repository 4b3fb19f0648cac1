#include "cli/snapshot_directory.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

namespace xtfq::cli {

namespace {
std::string HostName() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "unknown";
  return host;
}

Error Errno(std::string_view what, const std::string& path, int e) {
  return Error(ErrorCode::kIo, fmt::format("{}: {}: {}", path, what, std::strerror(e)));
}

Status WriteAll(int fd, const std::string& path, std::string_view text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("cannot write", path, errno);
    }
    done += static_cast<size_t>(n);
  }
  return Ok();
}

Status SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", dir, errno);
  const int rc = ::fsync(fd);
  const int e = errno;
  ::close(fd);
  // Some file systems cannot sync a directory (EINVAL); the name is then as durable as they make it.
  if (rc != 0 && e != EINVAL) return Errno("cannot sync", dir, e);
  return Ok();
}
}  // namespace

Result<std::unique_ptr<SnapshotDirectory>> SnapshotDirectory::Open(const std::string& dir, const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    return Error(ErrorCode::kUsage, fmt::format("--name '{}': give a file name prefix (no '/')", name));
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error(ErrorCode::kIo, fmt::format("{}: cannot create: {}", dir, ec.message()));
  std::unique_ptr<SnapshotDirectory> d(new SnapshotDirectory(dir, name));
  const std::string lock = fmt::format("{}/{}.collect.lock", dir, name);
  d->lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (d->lock_fd_ < 0) return Errno("cannot open", lock, errno);
  if (::flock(d->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    if (e == EWOULDBLOCK) {
      // The holder wrote "host H pid P" into the lock file.
      char buf[512] = {};
      const ssize_t n = ::pread(d->lock_fd_, buf, sizeof buf - 1, 0);
      std::string holder(buf, n > 0 ? static_cast<size_t>(n) : 0);
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
      if (holder.empty()) holder = "unknown";
      return Error(ErrorCode::kBusy,
                   fmt::format("{}: another collector ({}) writes the {}-*.txt snapshots here; stop it, or give "
                               "another --out or --name",
                               dir, holder, name));
    }
    d->lock_warning_ = fmt::format(
        "{}: cannot lock: {}; a second collector named {} on this directory would not be refused (snapshot files are "
        "still never replaced)",
        lock, std::strerror(e), name);
    ::close(d->lock_fd_);
    d->lock_fd_ = -1;
  } else {
    const std::string holder = fmt::format("host {}, pid {}\n", HostName(), ::getpid());
    if (::ftruncate(d->lock_fd_, 0) != 0) return Errno("cannot truncate", lock, errno);
    XTFQ_TRY(WriteAll(d->lock_fd_, lock, holder));
    // Temporary files of this name are a killed collector's unfinished writes (invariant 3).
    const std::string prefix = name + "-";
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      const std::string f = e.path().filename().string();
      const size_t tmp = f.find(".txt.tmp-");
      if (f.rfind(prefix, 0) == 0 && tmp != std::string::npos && d->TimeOf(f.substr(0, tmp + 4))) {
        std::error_code rm;
        if (std::filesystem::remove(e.path(), rm)) d->stale_removed_.push_back(e.path().string());
      }
    }
    if (ec) return Error(ErrorCode::kIo, fmt::format("{}: cannot list: {}", dir, ec.message()));
  }
  return d;
}

SnapshotDirectory::~SnapshotDirectory() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

std::string SnapshotDirectory::PathOf(int64_t time) const { return fmt::format("{}/{}-{}.txt", dir_, name_, time); }

std::optional<int64_t> SnapshotDirectory::TimeOf(std::string_view file) const {
  if (file.size() <= name_.size() + 5 || file.substr(0, name_.size()) != name_ || file[name_.size()] != '-' ||
      !file.ends_with(".txt")) {
    return std::nullopt;
  }
  const std::string_view digits = file.substr(name_.size() + 1, file.size() - name_.size() - 5);
  if (digits.empty() || digits.size() > 18 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  int64_t t = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), t);
  return t;
}

Result<std::string> SnapshotDirectory::Publish(int64_t time, std::string_view text) {
  const std::string path = PathOf(time);
  // A fresh temporary name (O_EXCL), created with the usual mode (0644 less the umask).
  std::string tmp;
  int fd = -1;
  for (int i = 0; fd < 0; ++i) {
    tmp = fmt::format("{}.tmp-{}-{}", path, ::getpid(), temporaries_++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && (errno != EEXIST || i == 100)) return Errno("cannot create", tmp, errno);
  }
  // Errors name the snapshot: its temporary file is removed.
  Status s = WriteAll(fd, path, text);
  if (s.ok() && ::fdatasync(fd) != 0) s = Errno("cannot sync", path, errno);
  if (::close(fd) != 0 && s.ok()) s = Errno("cannot close", path, errno);
  if (s.ok()) {
    // Never over an existing name: RENAME_NOREPLACE, or link(2) where the file system lacks it.
    int rc = ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE);
    int e = rc == 0 ? 0 : errno;
    if (rc != 0 && (e == EINVAL || e == ENOSYS || e == EOPNOTSUPP)) {
      rc = ::link(tmp.c_str(), path.c_str());
      e = rc == 0 ? 0 : errno;
    }
    if (e == EEXIST) {
      s = Error(ErrorCode::kInvalidArgument,
                fmt::format("{} exists (another collector of the same name?); it is not replaced", path));
    } else if (e != 0) {
      s = Errno(fmt::format("cannot rename {} to it", tmp), path, e);
    }
  }
  // After a rename the temporary name is gone; after a link (or a failure) it is removed here.
  ::unlink(tmp.c_str());
  if (s.ok()) s = SyncDirectory(dir_);
  if (!s.ok()) return s.error();
  return path;
}

Result<std::vector<SnapshotDirectory::Snapshot>> SnapshotDirectory::List() const {
  std::vector<Snapshot> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir_, ec)) {
    if (auto t = TimeOf(e.path().filename().string())) out.push_back({*t, PathOf(*t)});
  }
  if (ec) return Error(ErrorCode::kIo, fmt::format("{}: cannot list: {}", dir_, ec.message()));
  std::sort(out.begin(), out.end(), [](const Snapshot& a, const Snapshot& b) { return a.time < b.time; });
  return out;
}

}  // namespace xtfq::cli
