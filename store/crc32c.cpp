#include "store/crc32c.h"

#include <boost/crc.hpp>
#include <cstring>

namespace xtfq {
namespace {

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t Crc32cSse42(std::span<const std::byte> data) {
  uint64_t crc = 0xFFFFFFFFu;
  const std::byte* p = data.data();
  size_t n = data.size();
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    crc = __builtin_ia32_crc32di(crc, w);
    p += 8;
    n -= 8;
  }
  auto c = static_cast<uint32_t>(crc);
  while (n > 0) {
    c = __builtin_ia32_crc32qi(c, static_cast<unsigned char>(*p));
    ++p;
    --n;
  }
  return c ^ 0xFFFFFFFFu;
}
#endif

bool DetectHardware() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("sse4.2");
#else
  return false;
#endif
}

const bool kHardware = DetectHardware();

}  // namespace

uint32_t Crc32cPortable(std::span<const std::byte> data) {
  boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
  crc.process_bytes(data.data(), data.size());
  return crc.checksum();
}

bool Crc32cHardware() { return kHardware; }

uint32_t Crc32c(std::span<const std::byte> data) {
#if defined(__x86_64__)
  if (kHardware) return Crc32cSse42(data);
#endif
  return Crc32cPortable(data);
}

}  // namespace xtfq
