// DarshanLog: an opened binary Darshan log, format 3.00 to 3.41 (../shared/docs/darshan-format.md):
// the header (360 or 1328 bytes; byte order from the magic number), the job (uid, times, nprocs,
// job id, metadata), the exe and mount table, the name records, and for each of the 64 module
// slots (numbered as in 3.41: older logs' slots are shifted as darshan-util does) its region,
// record-format version and partial flag. Module regions are read on demand through
// DarshanRegionReader, so opening a log reads only the header, the job and the name records.
//
// Errors are one line naming the file, the region and the byte offset: bad magic, an unknown
// version, a truncated header, region offsets past the end of the file, corrupt streams, garbage
// name records.
//
// Thread-safety: one thread at a time.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "importers/darshan/darshan_region_reader.h"
#include "store/file.h"

namespace xtfq {

class DarshanLog {
 public:
  static constexpr int kSlots = 64;
  static constexpr uint64_t kMagic = 6567223;  // in the writer's byte order at offset 8
  struct Region {
    uint64_t off = 0, len = 0;
  };
  struct Mount {
    std::string path, fs_type;
  };

  static Result<std::unique_ptr<DarshanLog>> Open(const std::string& path);
  static Result<std::unique_ptr<DarshanLog>> Open(std::unique_ptr<File> file);

  const std::string& name() const { return file_->name(); }
  File& file() { return *file_; }
  const std::string& version() const { return version_; }  // "3.41"
  int minor() const { return minor_; }                     // 41
  bool big_endian() const { return swap_; }
  DarshanCompression compression() const { return comp_; }
  uint32_t header_bytes() const { return header_bytes_; }  // 360 or 1328 as stored

  // The job.
  int64_t uid = 0, start_sec = 0, start_nsec = 0, end_sec = 0, end_nsec = 0, nprocs = 0, jobid = 0;
  std::string metadata;       // up to the first NUL
  std::string exe;            // the command line: the exe string up to its first newline
  std::vector<Mount> mounts;  // sorted by descending path length, as darshan-util sorts them

  uint64_t job_len() const { return job_.len; }
  const Region& names_region() const { return names_; }
  const Region& module(int slot) const { return mods_[slot]; }
  uint32_t module_version(int slot) const { return mod_ver_[slot]; }
  bool partial(int slot) const { return (partial_ >> slot) & 1; }
  uint64_t partial_flags() const { return partial_; }
  // The name of module slot `slot` as darshan-util 3.5 prints it ("POSIX", "MPI-IO", "BG/Q"...),
  // or empty for slots it does not know.
  static std::string_view ModuleName(int slot);

  // The record names by id (the first name of an id wins, except that a non-empty name replaces
  // an empty one).
  const std::unordered_map<uint64_t, std::string>& names() const { return names_by_id_; }
  // A reader over module slot `slot`'s region.
  std::unique_ptr<DarshanRegionReader> ModuleReader(int slot);

  // Integers of the log's byte order.
  uint64_t U64(const std::byte* p) const;
  uint32_t U32(const std::byte* p) const;
  double F64(const std::byte* p) const;

 private:
  DarshanLog() = default;
  Status ReadHeader();
  Status ReadJob();
  Status ReadNames();
  Error Bad(std::string_view region, uint64_t offset, std::string_view message) const;

  std::unique_ptr<File> file_;
  uint64_t file_size_ = 0;
  std::string version_;
  int minor_ = 0;
  bool swap_ = false;
  DarshanCompression comp_ = DarshanCompression::kZlib;
  uint32_t header_bytes_ = 0;
  uint64_t partial_ = 0;
  Region job_, names_;
  std::array<Region, kSlots> mods_{};
  std::array<uint32_t, kSlots> mod_ver_{};
  std::unordered_map<uint64_t, std::string> names_by_id_;
};

}  // namespace xtfq
