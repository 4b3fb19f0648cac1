#include "store/fault_file.h"

#include <fmt/format.h>

namespace xtfq {

bool FaultFile::Tick() {
  const uint64_t n = ++calls_;
  const bool fail = (plan_.fail_call != 0 && n == plan_.fail_call) ||
                    (plan_.fail_after && plan_.fail_call != 0 && n > plan_.fail_call);
  if (fail) injected_ = true;
  return fail;
}

Error FaultFile::Injected(std::string_view what, uint64_t offset) const {
  return Error(ErrorCode::kIo, fmt::format("{}: {} at offset {} failed: Input/output error (injected)",
                                           name(), what, offset));
}

Result<size_t> FaultFile::ReadAt(uint64_t offset, std::span<std::byte> out) {
  if (Tick()) return Injected("read", offset);
  if (plan_.short_reads && out.size() > 1) {
    std::lock_guard lock(rng_mu_);
    out = out.first(1 + rng_() % out.size());
  }
  return base_->ReadAt(offset, out);
}

Status FaultFile::WriteAt(uint64_t offset, std::span<const std::byte> data) {
  if (Tick()) {
    if (plan_.torn && !data.empty()) {
      size_t keep;
      {
        std::lock_guard lock(rng_mu_);
        keep = rng_() % data.size();
      }
      (void)base_->WriteAt(offset, data.first(keep)).ok();
    }
    return Injected("write", offset);
  }
  return base_->WriteAt(offset, data);
}

Status FaultFile::Sync() {
  if (Tick()) return Injected("fdatasync", 0);
  return base_->Sync();
}

Result<uint64_t> FaultFile::Size() {
  if (Tick()) return Injected("fstat", 0);
  return base_->Size();
}

Status FaultFile::Truncate(uint64_t size) {
  if (Tick()) return Injected("ftruncate", size);
  return base_->Truncate(size);
}

}  // namespace xtfq
