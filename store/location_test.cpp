// Location's packed form (docs/format.md, "Location"): offset << 17 | (length - 1), 0 when not
// stored, against values computed by hand.
#include "store/location.h"

#include <doctest/doctest.h>

namespace xtfq {
namespace {

TEST_CASE("location: the packed form round trips and keeps 47 bits of offset and 17 of length") {
  CHECK(Location{}.Pack() == 0);
  CHECK(Location::Unpack(0) == Location{});
  // 8192 << 17 = 2^30; length 1711 -> 1710 in the low bits.
  CHECK(Location{8192, 1711}.Pack() == (uint64_t{1} << 30) + 1710);
  CHECK(Location::Unpack((uint64_t{1} << 30) + 1710) == Location{8192, 1711});
  // The largest: an offset of 2^47 - 1 and a length of 2^17 (a raw 64 KiB page fits).
  const Location top{(uint64_t{1} << 47) - 1, uint32_t{1} << 17};
  CHECK(top.Packable());
  CHECK(top.Pack() == UINT64_MAX);
  CHECK(Location::Unpack(UINT64_MAX) == top);
  CHECK_FALSE(Location{uint64_t{1} << 47, 100}.Packable());         // past 128 TiB
  CHECK_FALSE(Location{8192, (uint32_t{1} << 17) + 1}.Packable());  // longer than 2^17
  CHECK_FALSE(Location{8192, 0}.Packable());                        // stored, but no bytes
  CHECK_FALSE(Location{0, 5}.Packable());                           // not stored, yet a length
  // A packed value whose offset is 0 but whose length bits are not is kept as it is, so that
  // catalogue validation and the checker see it (it is not Location{}).
  CHECK(Location::Unpack(5) == Location{0, 6});
  CHECK_FALSE(Location::Unpack(5).stored());
}

}  // namespace
}  // namespace xtfq
