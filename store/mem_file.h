// MemFile: a File held in memory, and MemDisk, the bytes it shares with later opens.
//
// A MemDisk keeps two images: what was written, and what was durable at the last Sync. Crash()
// models a power failure: every 512-byte sector written since the last Sync independently keeps
// its new bytes or reverts to its durable bytes (a torn write is a page with sectors of both), and
// the file length is either. Tests reopen a store on the crashed disk and check that it is at its
// last committed state. Leases (File::HoldGeneration) are kept per MemFile in the MemDisk, as
// open-file-description locks are per open file: several MemFiles over one MemDisk are several
// opens, and a MemFile's leases end with it.
//
// Thread-safety: MemDisk is guarded by a mutex; MemFile as File.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/file.h"

namespace xtfq {

class MemDisk {
 public:
  static constexpr size_t kSector = 512;

  // The bytes as they are now (including unsynced writes).
  std::vector<std::byte> Contents() const;
  void SetContents(std::vector<std::byte> bytes);  // also makes them durable
  // A power failure: unsynced sectors survive or revert at random (seeded).
  void Crash(uint64_t seed);

 private:
  friend class MemFile;
  mutable std::mutex mu_;
  std::vector<std::byte> data_;
  std::vector<std::byte> durable_;
  std::multimap<uint64_t, const void*> leases_;  // generation -> the MemFile holding it
};

class MemFile final : public File {
 public:
  MemFile(std::string name, std::shared_ptr<MemDisk> disk) : name_(std::move(name)), disk_(std::move(disk)) {}
  ~MemFile() override;
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;

  const std::string& name() const override { return name_; }
  Result<size_t> ReadAt(uint64_t offset, std::span<std::byte> out) override;
  Status WriteAt(uint64_t offset, std::span<const std::byte> data) override;
  Status Sync() override;
  Result<uint64_t> Size() override;
  Status Truncate(uint64_t size) override;
  Status HoldGeneration(uint64_t generation) override;
  void ReleaseGeneration(uint64_t generation) override;
  Result<std::optional<uint64_t>> OldestHeldGeneration(uint64_t below) override;

 private:
  std::string name_;
  std::shared_ptr<MemDisk> disk_;
};

}  // namespace xtfq
