#include "cli/info_command.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "cli/output.h"
#include "layouts/slurm_layout.h"
#include "query/answers/result_json.h"
#include "query/answers/store_summary.h"

namespace xtfq::cli {

CLI::App* InfoCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("info", "Show a store's layout: pages, generation, free space, arrays");
  app->add_option("STORE", store_, "store file")->required();
  app->add_option("--format", format_, "output format")->check(CLI::IsMember({"text", "json"}));
  app->add_flag("--brief", brief_,
                "the store's header, its Darshan logs, job_stats and Slurm jobs, without a block per array (text "
                "only)");
  app->footer(
      "An array with a P index (the per-process view that answers a rank window) shows it on a line of its own:\n"
      "  'P index: N processes, each with its own TN tree': the records copied once more, grouped by process;\n"
      "  'P index: 1 process (ID), read from the array itself': every record so far has one process, so the\n"
      "  array's own pages answer a process window and no copy is kept until a second process appears.\n"
      "Process -1 is Darshan's shared records (files every rank opened, reduced to one record).\n"
      "The process tree maps a process id to its TN tree; it takes a page even for one process.\n"
      "See docs/cli.md ('xtfq info') and docs/format.md.");
  return app;
}

namespace {

std::string Header(const StoreSummary& s) {
  const auto when = std::chrono::sys_time<std::chrono::seconds>(std::chrono::seconds(s.commit_time_ns / 1000000000));
  const StoreSummary::Pages& p = s.pages;
  std::string out = fmt::format("store        {}\n", s.store);
  out += fmt::format("format       version {}, page size {} B\n", s.format_version, s.page_size);
  out += fmt::format("generation   {} (superblock {}, committed {:%Y-%m-%dT%H:%M:%SZ})\n", s.generation,
                     s.superblock_slot, when);
  out += fmt::format("slots        {} ({}): {} pack, {} page map, {} catalogue, {} free, {} superblock\n", s.page_count,
                     BinaryBytes(s.page_count * s.page_size), p.pack, p.page_map, p.catalogue, p.free, p.superblock);
  const uint64_t stored = p.data + p.index + p.heap + p.shadow + p.process_tree;
  out += fmt::format(
      "stored pages {} data, {} index, {} heap, {} shadow, {} process tree: {} as pages, stored in {} of packs "
      "({:.2f}x)\n",
      p.data, p.index, p.heap, p.shadow, p.process_tree, BinaryBytes(stored * s.page_size),
      BinaryBytes(p.pack * s.page_size), p.pack == 0 ? 0.0 : static_cast<double>(stored) / static_cast<double>(p.pack));
  out += fmt::format("free space   {} in {} free pages\n", BinaryBytes(s.free_bytes), p.free);
  out += fmt::format("string heap  {}\n", BinaryBytes(s.heap_bytes));
  return out;
}

std::string Arrays(const StoreSummary& s) {
  std::string out = fmt::format("arrays       {}\n", s.arrays.size());
  for (const StoreSummary::Array& a : s.arrays) {
    out += fmt::format("  {:<12} {} of {} B ({} per page) in {} + {} in the open page\n", a.name,
                       Counted(a.records, "record"), a.record_bytes, a.records_per_page,
                       Counted(a.full_pages, "full page"), Counted(a.open_page_records, "record"));
    out += fmt::format("  {:<12} fields {}\n", "", a.desc->schema.Describe());
    std::string per_level;
    for (const StoreSummary::Level& l : a.levels)
      per_level += fmt::format("{}{}", per_level.empty() ? "" : " / ", l.pages);
    out +=
        fmt::format("  {:<12} TN tree height {}, pages per level (leaves first) {}, index {} = {:.2f}% of data pages\n",
                    "", a.levels.size(), per_level, Counted(a.index_pages, "page"), 100.0 * a.index_overhead);
    if (const auto& pi = a.process_index; pi && pi->sole) {
      out += fmt::format(
          "  {:<12} P index: 1 process ({}), read from the array itself (no copy until a second process); process "
          "tree height {}, {}\n",
          "", *pi->sole, pi->tree_height, Counted(pi->tree_pages, "page"));
    } else if (pi) {
      out += fmt::format(
          "  {:<12} P index: {}, each with its own TN tree ({} data + {} index pages); process tree height "
          "{}, {}\n",
          "", Counted(pi->processes, "process", "processes"), pi->data_pages, pi->index_pages, pi->tree_height,
          Counted(pi->tree_pages, "page"));
    }
    out += fmt::format(
        "  {:<12} {:.2f} bytes per record in pages as read (before compression), all of the above "
        "included\n",
        "", a.bytes_per_record);
  }
  if (!s.arrays.empty()) out += "(* marks aggregated fields)\n";
  return out;
}

std::string DarshanLogs(const StoreSummary& s) {
  if (s.darshan_logs.empty()) return "";
  std::string out = fmt::format(
      "darshan logs {} (run: as darshan-parser prints it, end - start + 1 s for logs of whole-second times)\n",
      s.darshan_logs.size());
  for (const DarshanLogInfo& l : s.darshan_logs) {
    const nlohmann::json d = ResultJson::Of(l);  // the same words as the JSON form
    // The run time as darshan-parser prints it (4 decimals), without trailing zeros.
    std::string run = fmt::format("{:.4f}", DarshanLogs::RunSeconds(l));
    run.erase(run.find_last_not_of('0') + 1);
    if (run.back() == '.') run.pop_back();
    out += fmt::format("  log {}: job {}, uid {}, {}, format {}, run {} s, from {} ({}, {})\n", l.log, l.job, l.uid,
                       Counted(l.nprocs, "process", "processes"), d["format"].get<std::string>(), run, l.file,
                       d["source"].get<std::string>(), BinaryBytes(l.source_bytes));
    out += fmt::format("    exe: {}\n", l.exe);
    const std::vector<std::string> partial = DarshanLogs::PartialModules(l);
    if (!partial.empty()) out += fmt::format("    incomplete data (partial flag) in: {}\n", fmt::join(partial, ", "));
    if (!d["note"].get<std::string>().empty()) out += fmt::format("    note: {}\n", d["note"].get<std::string>());
  }
  return out;
}

std::string JobStats(const StoreSummary& s) {
  if (!s.jobstats) return "";
  const StoreSummary::JobStats& j = *s.jobstats;
  std::string out = fmt::format(
      "job_stats:   {} targets, {} collections (each of one target at one time) from {} to {}, {} entries, {} "
      "series\n",
      j.targets, j.collections, j.first, j.last, j.entries, j.series);
  std::string cls;
  for (const auto& [k, v] : j.classes) cls += fmt::format("{}{} {}", cls.empty() ? "" : ", ", k, v);
  out += fmt::format("  series per job id class: {}\n", cls);
  out += fmt::format("  ops: {}\n", fmt::join(j.ops, " "));
  return out;
}

std::string SlurmJobs(const StoreSummary& s) {
  if (s.slurm_jobs.empty()) return "";
  uint64_t series = 0, rows = 0;
  for (const auto& j : s.slurm_jobs) series += j.series, rows += j.rows;
  std::string out = fmt::format("slurm:       {} job{}, {} series, {} rows\n", s.slurm_jobs.size(),
                                s.slurm_jobs.size() == 1 ? "" : "s", series, rows);
  for (const auto& j : s.slurm_jobs) {
    std::vector<std::string> steps;
    for (int64_t st : j.steps) steps.push_back(SlurmLayout::StepName(st));
    out += fmt::format("  job {}: {} series ({} duplicate{}), {} rows, steps {}, nodes {}, from {}; {} to {}\n", j.job,
                       j.series, j.duplicates, j.duplicates == 1 ? "" : "s", j.rows, fmt::join(steps, ","),
                       fmt::join(j.nodes, ","), fmt::join(j.sources, " and "),
                       j.first == INT64_MAX ? "-" : UtcText(j.first), j.last == INT64_MIN ? "-" : UtcText(j.last));
  }
  return out;
}

}  // namespace

int InfoCommand::Run() {
  if (brief_ && format_ == "json") {
    return Fail("info",
                Error(ErrorCode::kUsage, "--brief is for text; JSON gives every field; see 'xtfq info --help'"));
  }
  auto reader = OpenForReading(store_);
  if (!reader.ok()) return Fail("info", reader.error());
  auto summary = StoreSummary::Of(**reader);
  if (!summary.ok()) return Fail("info", summary.error());
  if (format_ == "json") {
    fmt::print("{}\n", ResultJson::Of(*summary).dump(2));
  } else {
    const std::string arrays =
        brief_ ? fmt::format("arrays       {} (each described without --brief)\n", summary->arrays.size())
               : Arrays(*summary);
    fmt::print("{}{}{}{}{}", Header(*summary), arrays, DarshanLogs(*summary), JobStats(*summary), SlurmJobs(*summary));
  }
  // A damaged page: what could be read is printed, the rest named, and the exit says so.
  int rc = kExitOk;
  for (const Error& e : summary->unreadable) rc = Fail("info", e);
  return rc;
}

}  // namespace xtfq::cli
