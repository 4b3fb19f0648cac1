// FaultFile: wraps a File and injects the failures real disks produce.
//
// Every call (ReadAt, WriteAt, Sync, Size, Truncate) is numbered from 1. The call numbered
// `fail_call` fails with EIO; if it is a WriteAt and `torn` is set, a random prefix of the bytes
// reaches the underlying file first (a torn write). With `short_reads` every ReadAt returns a
// random non-empty prefix of what was asked, which correct readers must loop over. After
// `fail_call`, `fail_after` makes every later call fail too (a device that has gone away).
//
// Thread-safety: as File; the counters are atomic.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <random>
#include <vector>

#include "store/file.h"

namespace xtfq {

class FaultFile final : public File {
 public:
  struct Plan {
    uint64_t fail_call = 0;  // 0: never
    bool torn = false;
    bool fail_after = false;
    bool short_reads = false;
    uint64_t seed = 1;
  };

  FaultFile(std::unique_ptr<File> base, Plan plan) : base_(std::move(base)), plan_(plan), rng_(plan.seed) {}

  const std::string& name() const override { return base_->name(); }
  Result<size_t> ReadAt(uint64_t offset, std::span<std::byte> out) override;
  Status WriteAt(uint64_t offset, std::span<const std::byte> data) override;
  Status Sync() override;
  Result<uint64_t> Size() override;
  Status Truncate(uint64_t size) override;
  // Leases pass through to the base file uncounted: they are locks, not I/O.
  Status HoldGeneration(uint64_t generation) override { return base_->HoldGeneration(generation); }
  void ReleaseGeneration(uint64_t generation) override { base_->ReleaseGeneration(generation); }
  Result<std::optional<uint64_t>> OldestHeldGeneration(uint64_t below) override {
    return base_->OldestHeldGeneration(below);
  }

  // Every call so far, in order (call n is log()[n - 1]).
  enum class Op : uint8_t { kRead = 0, kWrite = 1, kSync = 2, kSize = 3, kTruncate = 4 };
  struct Call {
    Op op;
    uint64_t offset;
    uint64_t size;
  };
  std::vector<Call> log() const;

  uint64_t calls() const { return calls_.load(); }
  bool injected() const { return injected_.load(); }

 private:
  // Numbers and logs the call; returns true when it must fail.
  bool Tick(Op op, uint64_t offset, uint64_t size);
  Error Injected(std::string_view what, uint64_t offset) const;

  std::unique_ptr<File> base_;
  Plan plan_;
  std::atomic<uint64_t> calls_{0};
  std::atomic<bool> injected_{false};
  mutable std::mutex mu_;  // guards rng_ and log_
  std::mt19937_64 rng_;
  std::vector<Call> log_;
};

}  // namespace xtfq
