#include "tests/darshan_log_fuzz_target.h"

#include <cstdio>
#include <memory>
#include <vector>

#include "importers/darshan/darshan_importer.h"
#include "importers/darshan/darshan_log.h"
#include "importers/darshan/darshan_parser_text.h"
#include "importers/darshan/darshan_text_importer.h"
#include "store/mem_file.h"
#include "store/store_writer.h"

namespace xtfq::test {

uint64_t FuzzDarshanLog(const uint8_t* data, size_t size) {
  auto disk = std::make_shared<MemDisk>();
  const auto* b = reinterpret_cast<const std::byte*>(data);
  disk->SetContents(std::vector<std::byte>(b, b + size));
  // The same bytes as darshan-parser text, imported into an in-memory store.
  uint64_t decoded = 0;
  DarshanImportOptions opts;
  opts.sort_memory = 1 << 16;  // small: the external sort spills and merges too
  {
    auto text = std::make_unique<MemFile>("fuzz.txt", disk);
    auto w = StoreWriter::Create(std::make_unique<MemFile>("fuzz.xtfq", std::make_shared<MemDisk>()));
    if (w.ok()) decoded += DarshanTextImporter::Import(*text, **w, 0, opts).ok() ? 1 : 0;
  }
  auto log = DarshanLog::Open(std::make_unique<MemFile>("fuzz.darshan", disk));
  if (!log.ok()) return decoded;
  {
    auto w = StoreWriter::Create(std::make_unique<MemFile>("fuzz.xtfq", std::make_shared<MemDisk>()));
    if (w.ok()) decoded += DarshanImporter::Import(**log, **w, 0, opts).ok() ? 1 : 0;
  }
  decoded += DarshanParserText::Header(**log).size();
  // Both dumps, into the void: every record decoder and printer sees the input.
  static std::FILE* sink = std::fopen("/dev/null", "w");
  decoded += DarshanParserText::Base(**log, true, sink, sink).ok() ? 1 : 0;
  decoded += DarshanParserText::Dxt(**log, true, sink, sink).ok() ? 1 : 0;
  std::vector<std::byte> block(4096);
  for (int slot = 0; slot < DarshanLog::kSlots; ++slot) {
    if ((*log)->module(slot).len == 0) continue;
    auto r = (*log)->ModuleReader(slot);
    for (;;) {
      Result<size_t> n = r->Read(block);
      if (!n.ok() || *n == 0) break;
      decoded += *n;
      if (decoded > (uint64_t{64} << 20)) return decoded;  // a decompression bomb: enough
    }
  }
  return decoded;
}

}  // namespace xtfq::test
