#include "cli/check_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "cli/output.h"
#include "layouts/grid_layout.h"
#include "layouts/jobstats_layout.h"
#include "query/core/store_kind.h"
#include "query/core/store_reader.h"
#include "query/grid/grid_builder.h"
#include "query/jobstats/jobstats_summary.h"
#include "query/jobstats/jobstats_view.h"
#include "store/codec.h"
#include "store/store.h"
#include "store/store_checker.h"

namespace xtfq::cli {

CLI::App* CheckCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("check", "Verify every page checksum and format invariant of a store");
  app->add_option("STORE", store_, "store file")->required();
  app->add_option("--max-problems", max_problems_, "stop listing after this many problems")
      ->check(CLI::Range(size_t{1}, size_t{1} << 30));
  app->add_flag("--allow-rollback", allow_rollback_,
                "accept a store whose newest superblock is invalid (read at the generation before it): a warning, "
                "not a failure");
  CLI::Option* space = app->add_flag(
      "--space", space_,
      "when the check passes, also print where the file's bytes go: per array its records, index, open "
      "pages, P index and process tree, with bytes per record; then the string heap, catalogue, page map, "
      "superblocks, free pages and pack padding (the rows add up to the file's size)");
  app->add_option("--top", top_,
                  "with --space: list the N arrays with the most bytes, and the others summed in one row")
      ->check(CLI::Range(size_t{1}, size_t{1} << 30))
      ->needs(space);
  return app;
}

int CheckCommand::Run() {
  auto opened = Store::OpenPath(store_);
  if (!opened.ok()) return Fail("check", opened.error());
  StoreChecker checker(**opened, max_problems_);
  StoreChecker::Report r = checker.Run();
  for (const std::string& w : r.warnings) fmt::print(stderr, "xtfq check: warning: {}\n", w);
  for (const Error& e : r.problems) fmt::print(stderr, "xtfq check: {}\n", e.message());
  if (r.rollback) fmt::print(stderr, "xtfq check: {}{}\n", allow_rollback_ ? "warning: " : "", *r.rollback);
  if (!r.ok()) {
    if (r.problems_raised > r.problems.size()) {
      fmt::print(stderr, "xtfq check: {}: {} problems found, the first {} listed (--max-problems)\n", store_,
                 r.problems_raised, r.problems.size());
    } else {
      fmt::print(stderr, "xtfq check: {}: {} found\n", store_, Counted(r.problems.size(), "problem"));
    }
    return kExitFailure;
  }
  if (r.rollback && !allow_rollback_) {
    fmt::print(stderr,
               "xtfq check: {}: rolled back to generation {}; every page of it verified. `xtfq check "
               "--allow-rollback` accepts it\n",
               store_, (*opened)->generation());
    return kExitFailure;
  }
  // Grid summaries against the records they summarise (docs/format.md, "Grid summaries").
  size_t grids = 0;
  auto reader = StoreReader::Open(store_);
  if (!reader.ok()) return Fail("check", reader.error());
  for (const ArrayDesc& a : (*reader)->catalogue().arrays) {
    if (a.per_process() || GridLayout::IsGridArray(a.name) ||
        (*reader)->catalogue().Find(GridLayout::LevelsName(a.name)) == nullptr) {
      continue;
    }
    if (Status s = GridBuilder::Verify(**reader, a); !s.ok()) {
      fmt::print(stderr, "xtfq check: {}\n", s.error().message());
      fmt::print(stderr, "xtfq check: {}: the grid summaries of '{}' do not match its records\n", store_, a.name);
      return kExitFailure;
    }
    ++grids;
  }
  // The job_stats blocks and window summaries against the steps (docs/format.md, "Job stats
  // layout").
  bool summaries = false;
  std::optional<uint64_t> block_steps;
  if (StoreContents::Of((*reader)->catalogue()).jobstats) {
    auto view = JobStatsView::Open(**reader);
    if (!view.ok()) return Fail("check", view.error());
    auto blocks = (*view)->VerifyBlocks();
    if (!blocks.ok()) {
      fmt::print(stderr, "xtfq check: {}\n", blocks.error().message());
      fmt::print(stderr, "xtfq check: {}: the job_stats blocks do not match the steps\n", store_);
      return kExitFailure;
    }
    block_steps = *blocks;
    if ((*reader)->catalogue().Find(JobStatsLayout::SummaryName("job")) != nullptr) {
      if (Status s = JobStatsSummary::Verify(**view); !s.ok()) {
        fmt::print(stderr, "xtfq check: {}\n", s.error().message());
        fmt::print(stderr, "xtfq check: {}: the job_stats summaries do not match the steps\n", store_);
        return kExitFailure;
      }
      summaries = true;
    }
  }
  const uint64_t* n = r.stored_pages;
  const uint64_t columns = n[format::kCodecLz4Columns] + n[format::kCodecZstdColumns] + n[format::kCodecLz4Typed] +
                           n[format::kCodecZstdTyped];
  const uint64_t lz4 = n[format::kCodecLz4] + n[format::kCodecLz4Columns] + n[format::kCodecLz4Typed];
  const uint64_t zstd = n[format::kCodecZstd] + n[format::kCodecZstdColumns] + n[format::kCodecZstdTyped];
  const uint64_t raw = r.stored_pages[format::kCodecNone];
  uint64_t stored = 0;
  for (uint64_t b : r.stored_bytes) stored += b;
  fmt::print(
      "ok: {} at generation {}: {} slots, {} pages read and verified ({} stored in packs: {} lz4, {} zstd, {} raw, "
      "{} of them by columns; {} bytes for {} as pages, {:.2f}x){}{}{}\n",
      store_, (*opened)->generation(), (*opened)->page_count(), r.pages_read, lz4 + zstd + raw, lz4, zstd, raw, columns,
      stored, (lz4 + zstd + raw) * (*opened)->page_size(),
      stored == 0 ? 0.0
                  : static_cast<double>((lz4 + zstd + raw) * (*opened)->page_size()) / static_cast<double>(stored),
      grids == 0 ? "" : fmt::format("; the grid summaries of {} array{} recomputed", grids, grids == 1 ? "" : "s"),
      block_steps.value_or(0) > 0 ? fmt::format("; the job_stats blocks checked against {} steps", *block_steps) : "",
      summaries ? "; the job_stats summaries recomputed" : "");
  if (space_) PrintSpace(r, **opened);
  return kExitOk;
}

void CheckCommand::PrintSpace(const StoreChecker::Report& r, const Store& store) {
  std::vector<std::pair<uint32_t, StoreChecker::Report::Space>> rows(r.space.begin(), r.space.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second.total() > b.second.total(); });
  const uint64_t file = store.file_size();
  const uint64_t page = store.page_size();
  const auto& leaves = store.catalogue().map_leaves;
  const uint64_t map_leaves =
      static_cast<uint64_t>(std::count_if(leaves.begin(), leaves.end(), [](PageId l) { return l != kNoPage; }));
  const uint64_t free_pages = store.catalogue().free_pages.size();
  auto share = [&](uint64_t b) { return file == 0 ? 0.0 : 100.0 * static_cast<double>(b) / static_cast<double>(file); };
  auto count = [](uint64_t n, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
  };
  fmt::print(
      "\nwhere the {} bytes of {} go: stored bytes, page headers included; records B: full data pages, index B: full "
      "index pages, open B: the open pages' shadows, P index B: the per-process copies, P tree B: the process tree; "
      "B/record: all of them over the records\n",
      file, store_);
  fmt::print("{:>12} {:>6} {:>12} {:>11} {:>11} {:>11} {:>11} {:>10} {:>12}  {}\n", "bytes", "share", "records",
             "records B", "index B", "open B", "P index B", "P tree B", "B/record", "array");
  auto print_row = [&](const StoreChecker::Report::Space& s, const std::string& name) {
    fmt::print("{:>12} {:>5.1f}% {:>12} {:>11} {:>11} {:>11} {:>11} {:>10} {:>12.2f}  {}\n", s.total(),
               share(s.total()), s.records, s.data, s.index, s.shadow, s.per_process, s.process_tree,
               s.records == 0 ? 0.0 : static_cast<double>(s.total()) / static_cast<double>(s.records), name);
  };
  uint64_t listed = 0, empty = 0, shown = 0, more = 0;
  StoreChecker::Report::Space rest_of_them;  // past --top
  for (const auto& [id, s] : rows) {
    listed += s.total();
    if (id == 0) {  // the string heap: strings, not records
      fmt::print("{:>12} {:>5.1f}%  string heap ({} bytes of strings: Darshan logs kept for dump, names, texts)\n",
                 s.total(), share(s.total()), s.records);
    } else if (s.total() == 0) {
      ++empty;
    } else if (top_ == 0 || shown < top_) {
      ++shown;
      print_row(s, s.name);
    } else {
      ++more;
      rest_of_them.Add(s);
    }
  }
  if (more > 0) print_row(rest_of_them, fmt::format("({} more {})", more, more == 1 ? "array" : "arrays"));
  if (empty > 0) fmt::print("{:>12} {:>5.1f}%  {} without records\n", 0, 0.0, count(empty, "array", "arrays"));
  const std::pair<uint64_t, std::string> others[] = {
      {uint64_t{store.catalogue_pages().size()} * page,
       fmt::format("catalogue ({})", count(store.catalogue_pages().size(), "page", "pages"))},
      {map_leaves * page, fmt::format("page map ({})", count(map_leaves, "leaf", "leaves"))},
      {uint64_t{format::kSuperblockSlots} * page, "superblocks"},
      {free_pages * page, fmt::format("free ({})", count(free_pages, "page", "pages"))}};
  for (const auto& [bytes, what] : others) {
    fmt::print("{:>12} {:>5.1f}%  {}\n", bytes, share(bytes), what);
    listed += bytes;
  }
  const uint64_t rest = file - std::min(file, listed);
  fmt::print("{:>12} {:>5.1f}%  pack padding and the bytes of replaced shadows\n", rest, share(rest));
}

}  // namespace xtfq::cli
