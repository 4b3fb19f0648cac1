// Little-endian fixed-width encoding of integers and doubles, the only way bytes reach the disk.
//
// LoadLe<T>/StoreLe<T> read and write a T at an unaligned address in little-endian order whatever the
// host's byte order (docs/format.md: "little-endian, fixed width"). No in-memory struct is ever
// written to disk as it is.
//
// Thread-safety: pure functions.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace xtfq {

// Reverses the bytes of v on a big-endian host; the identity on a little-endian one.
template <class T>
T ToFromLittle(T v) {
  static_assert(std::is_trivially_copyable_v<T> &&
                (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8));
  if constexpr (std::endian::native == std::endian::big && sizeof(T) > 1) {
    using U = std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
    U u = std::bit_cast<U>(v);
    if constexpr (sizeof(T) == 2) u = __builtin_bswap16(u);
    if constexpr (sizeof(T) == 4) u = __builtin_bswap32(u);
    if constexpr (sizeof(T) == 8) u = __builtin_bswap64(u);
    v = std::bit_cast<T>(u);
  }
  return v;
}

template <class T>
T LoadLe(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return ToFromLittle(v);
}

template <class T>
void StoreLe(std::byte* p, T v) {
  v = ToFromLittle(v);
  std::memcpy(p, &v, sizeof(T));
}

// Fields of a record at byte offsets (all little-endian; doubles as their IEEE 754 bits).
inline uint64_t U64At(const std::byte* r, uint32_t off) { return LoadLe<uint64_t>(r + off); }
inline int64_t I64At(const std::byte* r, uint32_t off) { return LoadLe<int64_t>(r + off); }
inline uint32_t U32At(const std::byte* r, uint32_t off) { return LoadLe<uint32_t>(r + off); }
inline double F64At(const std::byte* r, uint32_t off) { return std::bit_cast<double>(LoadLe<uint64_t>(r + off)); }

}  // namespace xtfq
