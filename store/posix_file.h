// PosixFile: a File on disk through pread, pwrite, fdatasync and ftruncate.
//
// Opening for writing takes an exclusive open-file-description lock on the byte at
// format::kWriterLockByte (fcntl F_OFD_SETLK, non-blocking), so a second writer gets
// ErrorCode::kBusy instead of corrupting the store. Readers lease the generation they read with a
// shared lock on the byte at format::kLeaseLockBase + generation, which never conflicts with the
// writer's, and the writer finds them with F_OFD_GETLK (docs/format.md, "Readers beside a
// writer"). Both are released when the file is closed or its process dies.
// pread and pwrite are safe on Lustre and NFS, unlike mmap.
//
// kCreateAside makes a store's file atomically: the file is written unnamed (O_TMPFILE in the
// directory of `path`, or a hidden temporary name there where O_TMPFILE is not supported) and
// appears at `path` only when Publish() links it there, never replacing a file that exists. A
// creation killed before Publish leaves nothing at `path`.
//
// Thread-safety: as File.
#pragma once

#include <memory>
#include <string>

#include "store/file.h"

namespace xtfq {

class PosixFile final : public File {
 public:
  enum class Mode : uint8_t {
    kRead = 0,         // existing file, read only
    kWrite = 1,        // existing file, read and write, exclusive writer lock
    kCreateNew = 2,    // new file (fails if it exists), read and write, exclusive writer lock
    kCreateAside = 3,  // as kCreateNew, but unnamed until Publish()
  };

  static Result<std::unique_ptr<PosixFile>> Open(const std::string& path, Mode mode);
  // An unnamed file in `dir` for scratch data (O_TMPFILE, or a named file unlinked at once where
  // the file system lacks it): the system removes it when it is closed, even after a crash.
  static Result<std::unique_ptr<PosixFile>> CreateTemporary(const std::string& dir);
  // Writes `data` to `path` so that readers see the old file or the whole new one: into
  // "<path>.tmp-XXXXXX" beside it, synced, then renamed over `path`.
  static Status WriteAtomically(const std::string& path, std::span<const std::byte> data);
  ~PosixFile() override;
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;

  const std::string& name() const override { return path_; }
  Result<size_t> ReadAt(uint64_t offset, std::span<std::byte> out) override;
  Status WriteAt(uint64_t offset, std::span<const std::byte> data) override;
  Status Sync() override;
  Result<uint64_t> Size() override;
  Status Truncate(uint64_t size) override;
  std::string path() const override { return path_; }
  std::optional<Identity> identity() const override;
  Status HoldGeneration(uint64_t generation) override;
  void ReleaseGeneration(uint64_t generation) override;
  Result<std::optional<uint64_t>> OldestHeldGeneration(uint64_t below) override;

  // Gives a kCreateAside file its name `path`; ErrorCode::kInvalidArgument if a file is there
  // already (nothing is replaced). A no-op for a file that has its name.
  Status Publish();

  int fd() const { return fd_; }

 private:
  PosixFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  static Result<std::unique_ptr<PosixFile>> OpenAside(const std::string& path);
  Error Errno(std::string_view what, uint64_t offset) const;

  std::string path_;
  int fd_;
  std::string aside_;  // kCreateAside before Publish: the temporary name, or "" for O_TMPFILE
  bool unpublished_ = false;
};

}  // namespace xtfq
