// A generated Darshan log (gen/DarshanGenerator) imported into a store of its own, in a
// temporary directory, for tests that need DXT segments: `log` and `store` name the files; and
// ImportDarshan, which imports any binary log so.
//
// Thread-safety: one test's thread.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "gen/darshan_generator.h"
#include "importers/darshan/darshan_importer.h"
#include "store/store_writer.h"
#include "tests/temp_dir.h"

namespace xtfq::test {

// Imports the binary Darshan log `log` into a new store at `store`, as log 0.
inline void ImportDarshan(const std::string& log, const std::string& store) {
  auto l = DarshanLog::Open(log);
  REQUIRE(l.ok());
  auto w = StoreWriter::CreatePath(store);
  REQUIRE(w.ok());
  REQUIRE(DarshanImporter::Import(**l, **w, 0).ok());
  REQUIRE((*w)->Commit().ok());
}

struct GeneratedDarshan {
  TempDir dir;
  std::string log = dir.File("g.darshan"), store = dir.File("g.xtfq");
  explicit GeneratedDarshan(const DarshanGenOptions& o) {
    REQUIRE(DarshanGenerator::Write(log, o).ok());
    ImportDarshan(log, store);
  }
};

}  // namespace xtfq::test
