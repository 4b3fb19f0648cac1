#include "tests/jobstats_fuzz_target.h"

#include <memory>
#include <vector>

#include "importers/jobstats/jobstats_importer.h"
#include "store/mem_file.h"
#include "store/store_writer.h"

namespace xtfq::test {

uint64_t FuzzJobStats(const uint8_t* data, size_t size) {
  auto disk = std::make_shared<MemDisk>();
  const auto* b = reinterpret_cast<const std::byte*>(data);
  disk->SetContents(std::vector<std::byte>(b, b + size));
  auto w = StoreWriter::Create(std::make_unique<MemFile>("fuzz.xtfq", std::make_shared<MemDisk>()));
  if (!w.ok()) return 0;
  JobStatsState state;
  JobStatsImportOptions o;
  o.target = "fs-OST0000";
  auto importer = JobStatsImporter::Make(**w, state, o);
  if (!importer.ok()) return 0;
  uint64_t entries = 0;
  for (double at : {1700000000.0, 1700000120.0}) {
    MemFile in("fuzz.txt", disk);
    importer->set_time(at);
    auto st = importer->Import(in);
    if (st.ok()) entries += st->entries;
  }
  (void)(*w)->Commit();
  return entries;
}

}  // namespace xtfq::test
