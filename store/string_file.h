// StringFile: a read-only File over text it holds (a snapshot made in memory, read by the same
// parser as a file on disk, without copying it into a MemDisk).
//
// Thread-safety: as File; nothing changes after construction.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "store/file.h"

namespace xtfq {

class StringFile final : public File {
 public:
  StringFile(std::string name, std::string text) : name_(std::move(name)), text_(std::move(text)) {}

  const std::string& name() const override { return name_; }
  Result<size_t> ReadAt(uint64_t offset, std::span<std::byte> out) override {
    if (offset >= text_.size() || out.empty()) return size_t{0};
    const size_t n = std::min<size_t>(out.size(), text_.size() - offset);
    std::memcpy(out.data(), text_.data() + offset, n);
    return n;
  }
  Status WriteAt(uint64_t offset, std::span<const std::byte>) override { return ReadOnly("write", offset); }
  Status Sync() override { return Ok(); }
  Result<uint64_t> Size() override { return uint64_t{text_.size()}; }
  Status Truncate(uint64_t size) override { return ReadOnly("truncate", size); }

 private:
  Status ReadOnly(const char* what, uint64_t at) const {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: cannot {} at {}: held in memory, read only", name_, what, at));
  }

  std::string name_;
  std::string text_;
};

}  // namespace xtfq
