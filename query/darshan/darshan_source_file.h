// DarshanSourceFile: a File over the source bytes of one Darshan log kept in a store (the
// darshan.source chunks of DarshanLayout): ReadAt finds the chunk with one descent of the
// darshan.source TN tree and reads its heap string; the last chunk read is kept. Read-only.
//
// Thread-safety: one thread at a time.
#pragma once

#include <string>

#include "index/tn_tree.h"
#include "query/core/store_reader.h"
#include "store/file.h"

namespace xtfq {

class DarshanSourceFile final : public File {
 public:
  // `name` is what errors call the file ("STORE (log N: ORIGINAL)").
  DarshanSourceFile(StoreReader& reader, const ArrayDesc& source, int64_t log, uint64_t size, std::string name);

  const std::string& name() const override { return name_; }
  Result<size_t> ReadAt(uint64_t offset, std::span<std::byte> out) override;
  Status WriteAt(uint64_t offset, std::span<const std::byte> data) override;
  Status Sync() override { return Ok(); }
  Result<uint64_t> Size() override { return size_; }
  Status Truncate(uint64_t size) override;

 private:
  Status Load(uint64_t chunk);

  StoreReader& reader_;
  TnTree tree_;
  int64_t log_;
  uint64_t size_;
  std::string name_;
  uint64_t loaded_ = UINT64_MAX;
  std::string chunk_;
};

}  // namespace xtfq
