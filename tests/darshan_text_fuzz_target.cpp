#include "tests/darshan_text_fuzz_target.h"

#include <memory>
#include <vector>

#include "importers/darshan/darshan_text_importer.h"
#include "query/core/store_reader.h"
#include "store/mem_file.h"
#include "store/store_checker.h"
#include "store/store_writer.h"

namespace xtfq::test {

DarshanTextFuzzOutcome FuzzDarshanText(const uint8_t* data, size_t size) {
  DarshanTextFuzzOutcome out;
  auto input = std::make_shared<MemDisk>();
  const auto* b = reinterpret_cast<const std::byte*>(data);
  input->SetContents(std::vector<std::byte>(b, b + size));
  auto store = std::make_shared<MemDisk>();
  DarshanImportOptions opts;
  opts.sort_memory = 1 << 16;  // small: the external sort spills and merges too
  {
    auto w = StoreWriter::Create(std::make_unique<MemFile>("fuzz.xtfq", store));
    if (!w.ok()) return out;
    MemFile text("fuzz.txt", input);
    auto st = DarshanTextImporter::Import(text, **w, 0, opts);
    if (!st.ok()) return out;
    out.imported = true;
    out.records = st->records;
    if (!(*w)->Commit().ok()) return out;
  }
  auto reader = StoreReader::Open(std::make_unique<MemFile>("fuzz.xtfq", store), ReaderOptions{Backend::kPread, 1});
  if (!reader.ok()) {
    out.problems = 1;  // a committed store that does not open
    return out;
  }
  out.problems = StoreChecker((*reader)->store(), 8).Run().problems.size();
  return out;
}

}  // namespace xtfq::test
