// Catalogue::Children, the per-process arrays of an array by process: through the index a decoded
// catalogue builds, and by a scan when the arrays changed since, both against a model that scans
// every descriptor (a generated DXT log of 64 ranks: every DXT array has 64 per-process arrays, and
// an array of one rank alone has none: it is its own).
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "query/core/store_reader.h"
#include "tests/generated_darshan.h"

namespace xtfq {
namespace {

// The processes of the arrays whose parent is `parent`; an array of one process alone is its own.
std::vector<int64_t> Model(const Catalogue& c, ArrayId parent, int64_t p1, int64_t p2) {
  std::vector<int64_t> out;
  for (const ArrayDesc& a : c.arrays) {
    const bool mine = a.parent == parent || (a.id == parent && a.sole_process);
    if (mine && a.process >= p1 && (a.process < p2 || p2 == INT64_MAX)) out.push_back(a.process);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int64_t> Processes(const std::vector<const ArrayDesc*>& v) {
  std::vector<int64_t> out;
  for (const ArrayDesc* a : v) out.push_back(a->process);
  return out;
}

TEST_CASE("catalogue: the per-process arrays of an array, by process, through the index and by a scan") {
  DarshanGenOptions o;
  o.segments = 30000, o.ranks = 64, o.files = 128, o.seed = 3;
  test::GeneratedDarshan f(o);
  auto reader = StoreReader::Open(f.store);
  REQUIRE(reader.ok());
  Catalogue c = (*reader)->catalogue();  // a copy, decoded: indexed
  int parents = 0, sole = 0;
  for (const ArrayDesc& a : c.arrays) {
    if (!a.process_index) continue;
    ++parents;
    sole += a.sole_process ? 1 : 0;
    for (const auto& [p1, p2] : std::vector<std::pair<int64_t, int64_t>>{
             {INT64_MIN, INT64_MAX}, {0, 8}, {-1, 0}, {63, 64}, {60, INT64_MAX}, {64, 100}, {10, 10}}) {
      CAPTURE(a.name);
      CAPTURE(p1);
      CAPTURE(p2);
      CHECK(Processes(c.Children(a.id, p1, p2)) == Model(c, a.id, p1, p2));
    }
  }
  CHECK(parents >= 4);
  CHECK(sole >= 1);  // some of the log's arrays are of one rank alone
  // An array added after decoding: the scan answers, and sees it.
  const ArrayDesc* first = nullptr;
  for (const ArrayDesc& a : c.arrays) {
    if (a.per_process() && first == nullptr) first = &a;
  }
  REQUIRE(first != nullptr);
  ArrayDesc extra = *first;
  extra.id = ArrayId(1000000), extra.process = 1000;
  const ArrayId parent = extra.parent;
  c.arrays.push_back(extra);
  const std::vector<int64_t> all = Processes(c.Children(parent, INT64_MIN, INT64_MAX));
  CHECK(all == Model(c, parent, INT64_MIN, INT64_MAX));
  CHECK(all.back() == 1000);
}

}  // namespace
}  // namespace xtfq
