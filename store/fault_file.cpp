#include "store/fault_file.h"

#include <fmt/format.h>

namespace xtfq {

std::vector<FaultFile::Call> FaultFile::log() const {
  std::lock_guard lock(mu_);
  return log_;
}

bool FaultFile::Tick(Op op, uint64_t offset, uint64_t size) {
  uint64_t n;
  {
    std::lock_guard lock(mu_);
    log_.push_back(Call{op, offset, size});
    n = ++calls_;
  }
  const bool fail = (plan_.fail_call != 0 && n == plan_.fail_call) ||
                    (plan_.fail_after && plan_.fail_call != 0 && n > plan_.fail_call);
  if (fail) injected_ = true;
  return fail;
}

Error FaultFile::Injected(std::string_view what, uint64_t offset) const {
  return Error(ErrorCode::kIo,
               fmt::format("{}: {} at offset {} failed: Input/output error (injected)", name(), what, offset));
}

Result<size_t> FaultFile::ReadAt(uint64_t offset, std::span<std::byte> out) {
  if (Tick(Op::kRead, offset, out.size())) return Injected("read", offset);
  if (plan_.short_reads && out.size() > 1) {
    std::lock_guard lock(mu_);
    out = out.first(1 + rng_() % out.size());
  }
  return base_->ReadAt(offset, out);
}

Status FaultFile::WriteAt(uint64_t offset, std::span<const std::byte> data) {
  if (Tick(Op::kWrite, offset, data.size())) {
    if (plan_.torn && !data.empty()) {
      size_t keep;
      {
        std::lock_guard lock(mu_);
        keep = rng_() % data.size();
      }
      (void)base_->WriteAt(offset, data.first(keep)).ok();
    }
    return Injected("write", offset);
  }
  return base_->WriteAt(offset, data);
}

Status FaultFile::Sync() {
  if (Tick(Op::kSync, 0, 0)) return Injected("fdatasync", 0);
  return base_->Sync();
}

Result<uint64_t> FaultFile::Size() {
  if (Tick(Op::kSize, 0, 0)) return Injected("fstat", 0);
  return base_->Size();
}

Status FaultFile::Truncate(uint64_t size) {
  if (Tick(Op::kTruncate, size, 0)) return Injected("ftruncate", size);
  return base_->Truncate(size);
}

}  // namespace xtfq
