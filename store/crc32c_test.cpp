#include "store/crc32c.h"

#include <doctest/doctest.h>

#include <random>
#include <string_view>
#include <vector>

namespace xtfq {
namespace {

std::span<const std::byte> Bytes(std::string_view s) { return std::as_bytes(std::span(s.data(), s.size())); }

TEST_CASE("crc32c: standard check value and agreement of both implementations") {
  // The CRC-32C check value of "123456789" (RFC 3720, appendix B.4 lists CRC32C test vectors).
  CHECK(Crc32c(Bytes("123456789")) == 0xE3069283u);
  CHECK(Crc32cPortable(Bytes("123456789")) == 0xE3069283u);
  // 32 bytes of zeros: RFC 3720 B.4 gives 0x8A9136AA.
  std::vector<std::byte> zeros(32);
  CHECK(Crc32c(zeros) == 0x8A9136AAu);
  std::mt19937_64 rng(7);
  for (size_t n : {0, 1, 7, 8, 9, 63, 64, 65, 4096, 4093}) {
    std::vector<std::byte> v(n);
    for (auto& b : v) b = static_cast<std::byte>(rng());
    CHECK(Crc32c(v) == Crc32cPortable(v));
  }
}

}  // namespace
}  // namespace xtfq
