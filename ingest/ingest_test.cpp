// Ingest at unit level: the plan of a list of inputs (formats sniffed and grouped in the order
// their first file comes, job_stats on their own, one kind of Slurm input, no file left), one
// commit for an import and none when a store that exists gains nothing, and the derived summaries
// in a commit of their own: grid summaries of an events array, as many records as were imported.
#include "ingest/ingest.h"

#include <doctest/doctest.h>

#include "importers/registry/importer_registry.h"
#include "query/core/store_reader.h"
#include "tests/temp_dir.h"
#include "tests/why.h"
#include "tests/xtfq_cli.h"

namespace xtfq::test {

TEST_CASE("ingest: a plan groups inputs by format and refuses the mixes import cannot take") {
  TempDir dir;
  REQUIRE(Xtfq(dir, "gen events 1000 -o a.bin").status == 0);
  REQUIRE(Xtfq(dir, "gen events 1000 -o b.bin").status == 0);
  REQUIRE(Xtfq(dir, "gen darshan 2000 --ranks 4 --files 12 -o d.darshan").status == 0);
  REQUIRE(Xtfq(dir, "gen jobstats --targets 2 --jobs 3 --samples 3 -o js").status == 0);
  auto plan = Ingest::Plan({dir.File("a.bin"), dir.File("d.darshan"), dir.File("b.bin")}, "auto");
  REQUIRE_MESSAGE(plan.ok(), Why(plan));
  REQUIRE(plan->groups.size() == 2);
  CHECK(plan->groups[0].format == "events");
  CHECK(plan->groups[0].inputs == std::vector<std::string>{dir.File("a.bin"), dir.File("b.bin")});
  CHECK(plan->groups[1].format == "darshan-any");
  CHECK(plan->formats() == std::vector<std::string>{"events", "darshan-any"});
  CHECK(!plan->jobstats());
  // A directory of job_stats captures, expanded as import expands it (its truth CSVs left out).
  auto js_files = ImporterRegistry::Expand({dir.File("js")}, "auto");
  REQUIRE_MESSAGE(js_files.ok(), Why(js_files));
  CHECK(!js_files->skipped.empty());
  std::vector<std::string> mix = js_files->files;
  mix.insert(mix.begin(), dir.File("a.bin"));
  auto mixed = Ingest::Plan(mix, "auto");
  REQUIRE(!mixed.ok());
  CHECK(mixed.error().code() == ErrorCode::kUsage);
  CHECK(mixed.error().message() == "import job_stats snapshots on their own, not mixed with other inputs");
  auto js = Ingest::Plan(js_files->files, "auto");
  REQUIRE_MESSAGE(js.ok(), Why(js));
  CHECK(js->jobstats());
  auto none = Ingest::Plan({}, "auto");
  REQUIRE(!none.ok());
  CHECK(none.error().code() == ErrorCode::kInvalidArgument);
}

TEST_CASE("ingest: one commit for the records, none for nothing new, the derived summaries after") {
  TempDir dir;
  // More records than GridBuildOptions::min_records, over 16 ranks: the array gets a grid.
  REQUIRE(Xtfq(dir, "gen events 100000 --ranks 16 -o e.bin").status == 0);
  const std::string path = dir.File("e.xtfq");
  auto opened = StoreWriter::OpenOrCreatePath(path, StoreOptions{});
  REQUIRE_MESSAGE(opened.ok(), Why(opened));
  StoreWriter& w = *opened->writer;
  const uint64_t created = w.generation();
  ImportOptions options;
  options.array = "events";
  Ingest ingest(w, path, options);
  auto report = ingest.ImportAndCommit({InputGroup{"events", {dir.File("e.bin")}}}, nullptr);
  REQUIRE_MESSAGE(report.ok(), Why(report));
  CHECK(report->committed);
  CHECK(report->total.records == 100000);
  CHECK(report->groups.size() == 1);
  CHECK(w.generation() == created + 1);
  auto derived = ingest.Derive(/*jobstats=*/false, /*read_ahead=*/false);
  REQUIRE_MESSAGE(derived.ok(), Why(derived));
  REQUIRE(derived->grids.has_value());
  CHECK(!derived->jobstats.has_value());
  CHECK(derived->committed);
  REQUIRE(derived->grids->built.size() == 1);
  CHECK(derived->grids->built[0].array == "events");
  CHECK(w.generation() == created + 2);
  {
    auto r = StoreReader::Open(path);
    REQUIRE_MESSAGE(r.ok(), Why(r));
    CHECK((*r)->catalogue().Find("events")->record_count() == 100000);
    CHECK((*r)->catalogue().Find("events#grid") != nullptr);
  }
  // Nothing new: a group that adds no records to a store that exists is not committed, and the
  // grids, built already, are not built again.
  auto existing = StoreReader::Open(path);
  REQUIRE_MESSAGE(existing.ok(), Why(existing));
  auto again = ingest.ImportAndCommit({}, existing->get());
  REQUIRE_MESSAGE(again.ok(), Why(again));
  CHECK(!again->committed);
  auto derived_again = ingest.Derive(false, false);
  REQUIRE_MESSAGE(derived_again.ok(), Why(derived_again));
  CHECK(!derived_again->committed);
  CHECK(w.generation() == created + 2);
}

}  // namespace xtfq::test
