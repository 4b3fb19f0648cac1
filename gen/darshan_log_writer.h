// DarshanLogWriter: writes a binary Darshan log of format 3.41 with zlib regions
// (../shared/docs/darshan-format.md, sections 2-4), as the runtime lays it out: the 1328-byte
// header (written last), the job region (job struct, then the exe and mount string), the name
// records, then each module's region in increasing slot order, each one zlib stream. Record
// bytes are compressed as they are given, so memory stays bounded whatever the log's size.
//
// Also darshan_hash, the record id Darshan derives from a name (Bob Jenkins' 64-bit hash of
// lookup8.c, level 0).
//
// Thread-safety: one thread at a time.
#pragma once

#include <zlib.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "importers/darshan/darshan_record_writer.h"
#include "store/file.h"

namespace xtfq {

class DarshanLogWriter {
 public:
  static Result<std::unique_ptr<DarshanLogWriter>> Create(const std::string& path);
  ~DarshanLogWriter();
  DarshanLogWriter(const DarshanLogWriter&) = delete;
  DarshanLogWriter& operator=(const DarshanLogWriter&) = delete;

  // First: the job (job id, uid, times, nprocs, metadata; exe and mounts).
  Status WriteJob(const DarshanJob& job);
  // Second: the name records.
  Status WriteNames(const std::vector<std::pair<uint64_t, std::string>>& names);
  // Then each module in increasing slot order: Begin, its record bytes, End.
  Status BeginModule(int slot, uint32_t version);
  Status Write(std::span<const std::byte> bytes);
  Status EndModule();
  // Writes the header; the log is complete.
  Status Finish(uint64_t partial_flags = 0);

  static uint64_t Hash(std::string_view name);

 private:
  explicit DarshanLogWriter(std::unique_ptr<File> file);
  Status BeginRegion();
  Status EndRegion(uint64_t& off, uint64_t& len);
  Status Drain(int flush);

  std::unique_ptr<File> file_;
  uint64_t pos_;
  uint64_t region_start_ = 0;
  z_stream z_{};
  bool open_ = false;
  std::vector<std::byte> out_;
  int slot_ = -1;
  std::array<std::pair<uint64_t, uint64_t>, 64> mods_{};
  std::array<uint32_t, 64> vers_{};
  std::pair<uint64_t, uint64_t> names_{};
};

}  // namespace xtfq
