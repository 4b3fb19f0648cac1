// RecordSorter: a stable external sort of fixed-width records by a signed 64-bit key, for inputs
// that arrive out of time order (Darshan module records, DXT segments of many files and ranks)
// but must be appended to a time-indexed array in order.
//
// Records are held in memory up to `memory_bytes`; beyond that each full buffer is sorted and
// written as a run to an unnamed temporary file in `temp_dir` (removed by the system when the
// sorter goes away, even after a crash), and Drain() merges the runs with a one-megabyte window on
// each. Equal keys keep the order they were added in.
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "store/file.h"

namespace xtfq {

class RecordSorter {
 public:
  // The key is the little-endian int64 at `key_offset` of each record.
  RecordSorter(uint32_t width, uint32_t key_offset, size_t memory_bytes, std::string temp_dir);
  RecordSorter(const RecordSorter&) = delete;
  RecordSorter& operator=(const RecordSorter&) = delete;

  // REQUIRES: record.size() == width.
  Status Add(std::span<const std::byte> record);
  // Calls emit for every record, in key order (stable), then leaves the sorter empty.
  Status Drain(const std::function<Status(std::span<const std::byte>)>& emit);

  uint64_t size() const { return count_; }
  size_t runs() const { return runs_.size(); }  // runs spilled to the temporary file so far

 private:
  struct Run {
    uint64_t offset, count;
  };
  // The buffer's records in sorted order, as positions.
  std::vector<uint32_t> SortedOrder() const;
  Status Spill();
  int64_t Key(const std::byte* record) const;

  uint32_t width_, key_offset_;
  size_t capacity_;  // records held in memory
  std::string temp_dir_;
  std::vector<std::byte> buffer_;
  size_t held_ = 0;
  uint64_t count_ = 0;
  std::unique_ptr<File> file_;  // the spilled runs
  uint64_t file_end_ = 0;
  std::vector<Run> runs_;
};

}  // namespace xtfq
