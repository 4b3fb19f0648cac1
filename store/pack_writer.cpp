#include "store/pack_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "store/endian.h"
#include "store/format.h"
#include "store/stored_page.h"

namespace xtfq {

namespace f = format;

PackWriter::PackWriter(uint32_t page_size, Codec codec, uint32_t batch_slots, bool from_end)
    : page_size_(page_size), codec_(codec), batch_slots_(std::max<uint32_t>(2, batch_slots)), from_end_(from_end) {}

Result<Location> PackWriter::Seal(std::span<const std::byte> page, const ColumnPlan* plan, PageAllocator& slots) {
  EncodeStored(codec_, page, scratch_, plan);
  return Place(scratch_, slots);
}

Result<Location> PackWriter::Place(std::span<const std::byte> stored, PageAllocator& slots) {
  const size_t n = stored.size();
  // Slots until the page fits: each taken from the end; a gap starts a new run.
  while (run_first_ == kNoPage || cursor_ + n > run_.size()) {
    XTFQ_ASSIGN_OR_RETURN(PageId slot, from_end_ ? slots.TakeEnd() : slots.Allocate());
    taken_.push_back(slot);
    const uint64_t run_slots = run_.size() / page_size_;
    if (run_first_ == kNoPage || slot.value != run_first_.value + run_slots) {
      XTFQ_TRY(Flush(true));
      run_first_ = slot;
      cursor_ = 0;
    }
    run_.resize(run_.size() + page_size_, std::byte{0});
  }
  Location loc{uint64_t{run_first_.value} * page_size_ + cursor_, static_cast<uint32_t>(n)};
  // Descriptors and index entries hold Locations packed in 8 bytes: a store ends at 128 TiB.
  if (!loc.Packable()) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("a page stored at offset {} ({} bytes) is past the 128 TiB a store can address; start a "
                             "new store",
                             loc.offset, loc.length));
  }
  std::memcpy(run_.data() + cursor_, stored.data(), n);
  cursor_ += n;
  if (run_.size() / page_size_ > batch_slots_) XTFQ_TRY(Flush(false));
  return loc;
}

Status PackWriter::Flush(bool all) {
  if (run_first_ == kNoPage || run_.empty()) return Ok();
  size_t slots = run_.size() / page_size_;
  if (!all) slots = cursor_ / page_size_;  // the slots before the one the cursor is in
  if (slots == 0) return Ok();
  const size_t bytes = slots * page_size_;
  Status s = file_->WriteAt(uint64_t{run_first_.value} * page_size_, std::span(run_).first(bytes));
  run_.erase(run_.begin(), run_.begin() + static_cast<std::ptrdiff_t>(bytes));
  run_first_ = PageId(run_first_.value + static_cast<uint32_t>(slots));
  cursor_ -= std::min(cursor_, bytes);
  if (all) run_first_ = kNoPage;
  return s;
}

Status PackWriter::Read(const Location& loc, std::vector<std::byte>& stored) const {
  stored.resize(loc.length);
  const uint64_t buffered = run_first_ == kNoPage ? UINT64_MAX : uint64_t{run_first_.value} * page_size_;
  const uint64_t end = loc.offset + loc.length;
  const size_t from_file = loc.offset >= buffered ? 0 : static_cast<size_t>(std::min(end, buffered) - loc.offset);
  if (from_file > 0) XTFQ_TRY(ReadExact(*file_, loc.offset, std::span(stored).first(from_file)));
  if (from_file == loc.length) return Ok();
  const uint64_t at = loc.offset + from_file - buffered;
  if (at + (loc.length - from_file) > cursor_) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: a stored page at offset {} ({} bytes) lies past the pack's "
                                                  "{} bytes buffered from offset {}",
                                                  file_->name(), loc.offset, loc.length, cursor_, buffered));
  }
  std::memcpy(stored.data() + from_file, run_.data() + at, loc.length - from_file);
  return Ok();
}

Status PackWriter::Close() {
  Status s = Flush(true);
  run_.clear();
  cursor_ = 0;
  run_first_ = kNoPage;
  taken_.clear();
  return s;
}

Status PackWriter::CheckInvariants(WriterAudit& audit, bool claim) const {
  for (PageId id : taken_) {
    if (claim) XTFQ_TRY(audit.Claim(id, WriterAudit::Role::kPack, "pack"));
  }
  if (run_first_ != kNoPage) {
    if (run_.size() % page_size_ != 0 || cursor_ > run_.size() || (run_.empty() && cursor_ != 0) ||
        cursor_ + page_size_ <= run_.size()) {
      return audit.Violation("W10", fmt::format("pack run at slot {}: {} bytes buffered, cursor at {}",
                                                run_first_.value, run_.size(), cursor_));
    }
    if (taken_.empty() || taken_.back().value + 1 != run_first_.value + run_.size() / page_size_) {
      return audit.Violation("W10",
                             fmt::format("pack run at slot {} does not end at the last slot taken", run_first_.value));
    }
  }
  return Ok();
}

}  // namespace xtfq
