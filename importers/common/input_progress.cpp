#include "importers/common/input_progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace xtfq {

namespace {
uint64_t SizeOf(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<uint64_t>(n);
}
}  // namespace

InputProgress::InputProgress(Progress* progress, const std::vector<std::string>& inputs)
    : progress_(progress), count_(inputs.size()) {
  if (progress_ == nullptr) return;
  for (const std::string& in : inputs) total_ += SizeOf(in);
}

void InputProgress::Begin(const std::string& input) {
  if (progress_ == nullptr) return;
  ++index_, position_ = 0, current_size_ = SizeOf(input);
  const std::string name = std::filesystem::path(input).filename().string();
  phase_ = count_ > 1 ? fmt::format("reading {} ({} of {})", name, index_, count_) : fmt::format("reading {}", name);
  Tell();
}

void InputProgress::At(uint64_t position) {
  if (progress_ == nullptr) return;
  position_ = std::min(position, current_size_);
  if (done_ + position_ >= told_ + (uint64_t{1} << 20)) Tell();
}

void InputProgress::End() {
  if (progress_ == nullptr) return;
  done_ += current_size_, position_ = 0, current_size_ = 0;
  Tell();
}

void InputProgress::Tell() {
  told_ = done_ + position_;
  progress_->Update(phase_, told_, total_, "B");
}

}  // namespace xtfq
