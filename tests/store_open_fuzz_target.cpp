#include "tests/store_open_fuzz_target.h"

#include <memory>
#include <vector>

#include "query/core/store_reader.h"
#include "store/mem_file.h"
#include "store/store_checker.h"

namespace xtfq::test {

uint64_t FuzzStoreOpen(const uint8_t* data, size_t size) {
  auto disk = std::make_shared<MemDisk>();
  const auto* b = reinterpret_cast<const std::byte*>(data);
  disk->SetContents(std::vector<std::byte>(b, b + size));
  auto reader = StoreReader::Open(std::make_unique<MemFile>("fuzz.xtfq", disk), ReaderOptions{Backend::kPread, 1});
  if (!reader.ok()) return 0;
  StoreChecker::Report report = StoreChecker((*reader)->store(), 8).Run();
  uint64_t records = 0;
  for (const ArrayDesc& a : (*reader)->store().catalogue().arrays) {
    ChainCursor c = (*reader)->Records(a);
    for (Result<bool> more = c.First(); more.ok() && *more; more = c.Next()) ++records;
  }
  // The heap's first string, if there is a heap.
  const ChainDesc& heap = (*reader)->store().catalogue().heap;
  if (heap.head != kNoPage) (void)(*reader)->String(StringRef{heap.head, 0}).ok();
  return records + report.problems.size();
}

}  // namespace xtfq::test
