// File: the byte-addressed file under a store, and ReadExact(), the loop every reader uses.
//
// Implementations: PosixFile (pread/pwrite/fdatasync), MemFile (in memory, with a crash model) and
// FaultFile (wraps another File and injects EIO, short reads and torn writes). Everything above
// store/ reaches the disk only through this interface, so every failure path can be tested in
// memory.
//
// Contract: ReadAt may return fewer bytes than asked (a short read), 0 only at end of file.
// WriteAt writes every byte or fails; after a failure an unknown prefix may have been written.
// Sync makes all earlier writes durable. Errors name the file and the byte offset.
//
// Reader leases (docs/format.md, "Readers beside a writer"): a reader holds a shared lease on the
// generation it reads, through its own open of the file; the writer asks which generations other
// opens hold before it reuses a freed page. Files that cannot lease (scratch files) hold nothing
// and report no holder: the defaults below.
//
// Thread-safety: ReadAt and Size may be called from several threads at once; WriteAt, Sync and
// Truncate need external serialisation (the single writer); leases are taken and given back by
// the one Store that owns this File.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "store/result.h"

namespace xtfq {

class File {
 public:
  virtual ~File() = default;

  // The name errors use: the path for files on disk.
  virtual const std::string& name() const = 0;
  virtual Result<size_t> ReadAt(uint64_t offset, std::span<std::byte> out) = 0;
  virtual Status WriteAt(uint64_t offset, std::span<const std::byte> data) = 0;
  virtual Status Sync() = 0;
  virtual Result<uint64_t> Size() = 0;
  virtual Status Truncate(uint64_t size) = 0;
  // The path on disk, for the mmap backend; empty when the file is not on disk.
  virtual std::string path() const { return {}; }
  // The device and inode of a file on disk, so that a second open of path() can be checked to be
  // this file (the mmap backend maps by path); nullopt when the file is not on disk.
  struct Identity {
    uint64_t device = 0, inode = 0;
    bool operator==(const Identity&) const = default;
  };
  virtual std::optional<Identity> identity() const { return std::nullopt; }

  // Takes a shared lease on `generation` for this open of the file, until ReleaseGeneration or
  // until the file is closed (or its process dies). ErrorCode::kUnsupported: the file system
  // takes no locks (the reader goes on without a lease).
  virtual Status HoldGeneration(uint64_t /*generation*/) { return Ok(); }
  virtual void ReleaseGeneration(uint64_t /*generation*/) {}
  // The lowest generation below `below` leased through another open of the file, if any.
  virtual Result<std::optional<uint64_t>> OldestHeldGeneration(uint64_t /*below*/) { return std::optional<uint64_t>(); }
};

// Reads exactly out.size() bytes at `offset`, looping over short reads. End of file before the
// last byte is an ErrorCode::kCorrupt error naming the file, the offset and the bytes missing.
Status ReadExact(File& file, uint64_t offset, std::span<std::byte> out);

}  // namespace xtfq
