// ByteReader: bounds-checked little-endian decoding of a byte stream (catalogue, heap, imports).
//
// Every read checks that the bytes exist; running past the end is an ErrorCode::kCorrupt error
// naming `where` and the byte offset, so a decoder over untrusted bytes cannot read out of bounds.
//
// Thread-safety: one object per thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "store/endian.h"
#include "store/result.h"

namespace xtfq {

class ByteReader {
 public:
  ByteReader(std::span<const std::byte> bytes, std::string where) : bytes_(bytes), where_(std::move(where)) {}

  size_t offset() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

  Result<std::span<const std::byte>> Take(size_t n, std::string_view what);
  template <class T>
  Result<T> Read(std::string_view what) {
    XTFQ_ASSIGN_OR_RETURN(std::span<const std::byte> b, Take(sizeof(T), what));
    return LoadLe<T>(b.data());
  }
  Result<std::string> ReadString(size_t n, std::string_view what);

  // An ErrorCode::kCorrupt error at the current offset.
  Error Corrupt(std::string_view what) const;

 private:
  std::span<const std::byte> bytes_;
  std::string where_;
  size_t pos_ = 0;
};

}  // namespace xtfq
