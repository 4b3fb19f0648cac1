#include "store/mem_file.h"

#include <algorithm>
#include <cstring>
#include <random>

namespace xtfq {

std::vector<std::byte> MemDisk::Contents() const {
  std::lock_guard lock(mu_);
  return data_;
}

void MemDisk::SetContents(std::vector<std::byte> bytes) {
  std::lock_guard lock(mu_);
  data_ = std::move(bytes);
  durable_ = data_;
}

void MemDisk::Crash(uint64_t seed) {
  std::lock_guard lock(mu_);
  std::mt19937_64 rng(seed);
  const size_t len = (rng() & 1) ? data_.size() : durable_.size();
  std::vector<std::byte> out(len);
  for (size_t s = 0; s < len; s += kSector) {
    const size_t n = std::min(kSector, len - s);
    const bool in_new = s + n <= data_.size();
    const bool in_old = s + n <= durable_.size();
    const bool same = in_new && in_old && std::memcmp(&data_[s], &durable_[s], n) == 0;
    const std::vector<std::byte>* src;
    if (same || !in_old) {
      src = in_new ? &data_ : nullptr;
    } else if (!in_new) {
      src = &durable_;
    } else {
      src = (rng() & 1) ? &data_ : &durable_;
    }
    if (src != nullptr) std::memcpy(&out[s], &(*src)[s], n);
  }
  data_ = std::move(out);
  durable_ = data_;
}

Result<size_t> MemFile::ReadAt(uint64_t offset, std::span<std::byte> out) {
  std::lock_guard lock(disk_->mu_);
  const auto& d = disk_->data_;
  if (offset >= d.size()) return size_t{0};
  const size_t n = std::min<uint64_t>(out.size(), d.size() - offset);
  std::memcpy(out.data(), d.data() + offset, n);
  return n;
}

Status MemFile::WriteAt(uint64_t offset, std::span<const std::byte> data) {
  std::lock_guard lock(disk_->mu_);
  auto& d = disk_->data_;
  if (offset + data.size() > d.size()) d.resize(offset + data.size());
  std::memcpy(d.data() + offset, data.data(), data.size());
  return Ok();
}

Status MemFile::Sync() {
  std::lock_guard lock(disk_->mu_);
  disk_->durable_ = disk_->data_;
  return Ok();
}

Result<uint64_t> MemFile::Size() {
  std::lock_guard lock(disk_->mu_);
  return uint64_t{disk_->data_.size()};
}

Status MemFile::Truncate(uint64_t size) {
  std::lock_guard lock(disk_->mu_);
  disk_->data_.resize(size);
  return Ok();
}

MemFile::~MemFile() {
  std::lock_guard lock(disk_->mu_);
  std::erase_if(disk_->leases_, [this](const auto& l) { return l.second == this; });
}

Status MemFile::HoldGeneration(uint64_t generation) {
  std::lock_guard lock(disk_->mu_);
  disk_->leases_.emplace(generation, this);
  return Ok();
}

void MemFile::ReleaseGeneration(uint64_t generation) {
  std::lock_guard lock(disk_->mu_);
  auto [lo, hi] = disk_->leases_.equal_range(generation);
  for (auto it = lo; it != hi; ++it) {
    if (it->second == this) {
      disk_->leases_.erase(it);
      return;
    }
  }
}

Result<std::optional<uint64_t>> MemFile::OldestHeldGeneration(uint64_t below) {
  std::lock_guard lock(disk_->mu_);
  for (const auto& [generation, holder] : disk_->leases_) {
    if (generation >= below) break;
    if (holder != this) return std::optional<uint64_t>(generation);
  }
  return std::optional<uint64_t>();
}

}  // namespace xtfq
