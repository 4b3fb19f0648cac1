// StringHeapReader: strings of every length (empty, short, across heap pages, longer than a page)
// read back equal to what was added, and a reference past the heap is a clean error.
#include "index/string_heap_reader.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "query/store_reader.h"
#include "store/store_writer.h"
#include "tests/temp_dir.h"

namespace xtfq {
namespace {

TEST_CASE("index: strings read back from the heap equal what was added") {
  test::TempDir dir;
  const std::string path = dir.File("s.xtfq");
  std::vector<std::string> want;
  std::vector<StringRef> refs;
  {
    auto w = StoreWriter::CreatePath(path);
    REQUIRE(w.ok());
    for (size_t len : {0, 1, 7, 100, 4000, 4096, 4097, 10000, 3, 70000}) {
      std::string s;
      for (size_t i = 0; i < len; ++i) s += static_cast<char>('a' + (i * 7 + len) % 26);
      auto ref = (*w)->AddString(s);
      REQUIRE(ref.ok());
      want.push_back(s), refs.push_back(*ref);
    }
    REQUIRE((*w)->Commit().ok());
  }
  auto reader = StoreReader::Open(path);
  REQUIRE(reader.ok());
  StringHeapReader heap((*reader)->cache(), (*reader)->store().catalogue().heap);
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(want[i].size());
    auto got = heap.Read(refs[i]);
    REQUIRE(got.ok());
    CHECK(*got == want[i]);
  }
  // A reference past the heap's end: an error that says so, never a crash or a wrong string.
  const StringRef past{PageId(1u << 24), 0};  // a page far past the file's end
  auto bad = heap.Read(past);
  CHECK(!bad.ok());
}

}  // namespace
}  // namespace xtfq
