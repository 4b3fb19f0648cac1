#include "importers/common/record_sorter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <queue>

#include "store/endian.h"
#include "store/posix_file.h"

namespace xtfq {

RecordSorter::RecordSorter(uint32_t width, uint32_t key_offset, size_t memory_bytes, std::string temp_dir)
    : width_(width),
      key_offset_(key_offset),
      capacity_(std::max<size_t>(1, std::min<size_t>(memory_bytes / (width + 16), UINT32_MAX))),
      temp_dir_(std::move(temp_dir)) {}

int64_t RecordSorter::Key(const std::byte* record) const { return LoadLe<int64_t>(record + key_offset_); }

Status RecordSorter::Add(std::span<const std::byte> record) {
  if (held_ == capacity_) XTFQ_TRY(Spill());
  if (buffer_.size() < (held_ + 1) * width_) {
    buffer_.resize(std::min(capacity_, std::max<size_t>(1024, held_ * 2)) * width_);
  }
  std::memcpy(buffer_.data() + held_ * width_, record.data(), width_);
  ++held_;
  ++count_;
  return Ok();
}

std::vector<uint32_t> RecordSorter::SortedOrder() const {
  // (key, position) pairs sorted whole: contiguous keys, and the position breaks ties (stable).
  std::vector<std::pair<int64_t, uint32_t>> keyed(held_);
  for (size_t i = 0; i < held_; ++i) keyed[i] = {Key(buffer_.data() + i * width_), static_cast<uint32_t>(i)};
  std::sort(keyed.begin(), keyed.end());
  std::vector<uint32_t> order(held_);
  for (size_t i = 0; i < held_; ++i) order[i] = keyed[i].second;
  return order;
}

Status RecordSorter::Spill() {
  if (!file_) {
    XTFQ_ASSIGN_OR_RETURN(file_, PosixFile::CreateTemporary(temp_dir_));
  }
  const std::vector<uint32_t> order = SortedOrder();
  std::vector<std::byte> out;
  out.reserve(std::min<size_t>(held_, (size_t{1} << 20) / width_ + 1) * width_);
  const Run run{file_end_, held_};
  for (size_t i = 0; i < held_; ++i) {
    const std::byte* r = buffer_.data() + size_t{order[i]} * width_;
    out.insert(out.end(), r, r + width_);
    if (out.size() >= (size_t{1} << 20) || i + 1 == held_) {
      XTFQ_TRY(file_->WriteAt(file_end_, out));
      file_end_ += out.size();
      out.clear();
    }
  }
  runs_.push_back(run);
  held_ = 0;
  return Ok();
}

Status RecordSorter::Drain(const std::function<Status(std::span<const std::byte>)>& emit) {
  if (runs_.empty()) {
    for (uint32_t i : SortedOrder()) XTFQ_TRY(emit(std::span(buffer_).subspan(size_t{i} * width_, width_)));
  } else {
    if (held_ > 0) XTFQ_TRY(Spill());
    buffer_.clear();
    buffer_.shrink_to_fit();
    // A window per run; a heap of (key, run) picks the least key, runs in order on ties (stable).
    const size_t window = std::max<size_t>(1, (size_t{1} << 20) / width_);
    struct Cursor {
      uint64_t next = 0, end = 0;  // records of the run not yet in the window
      std::vector<std::byte> buf;
      size_t pos = 0, n = 0;
    };
    std::vector<Cursor> cur(runs_.size());
    auto fill = [&](size_t r) -> Status {
      Cursor& c = cur[r];
      const size_t n = static_cast<size_t>(std::min<uint64_t>(window, c.end - c.next));
      c.buf.resize(n * width_);
      XTFQ_TRY(ReadExact(*file_, runs_[r].offset + c.next * width_, c.buf));
      c.next += n, c.pos = 0, c.n = n;
      return Ok();
    };
    using Head = std::pair<int64_t, size_t>;
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heap;
    for (size_t r = 0; r < runs_.size(); ++r) {
      cur[r].end = runs_[r].count;
      XTFQ_TRY(fill(r));
      if (cur[r].n > 0) heap.emplace(Key(cur[r].buf.data()), r);
    }
    while (!heap.empty()) {
      const size_t r = heap.top().second;
      heap.pop();
      Cursor& c = cur[r];
      XTFQ_TRY(emit(std::span(c.buf).subspan(c.pos * width_, width_)));
      if (++c.pos == c.n) {
        if (c.next == c.end) continue;
        XTFQ_TRY(fill(r));
      }
      heap.emplace(Key(c.buf.data() + c.pos * width_), r);
    }
    runs_.clear();
    file_end_ = 0;
    XTFQ_TRY(file_->Truncate(0));
  }
  held_ = 0;
  count_ = 0;
  return Ok();
}

}  // namespace xtfq
