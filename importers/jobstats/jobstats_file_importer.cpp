#include "importers/jobstats/jobstats_file_importer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "importers/common/ahead_queue.h"
#include "importers/common/input_progress.h"
#include "importers/jobstats/jobstats_importer.h"
#include "importers/jobstats/jobstats_parser.h"
#include "importers/jobstats/jobstats_state.h"
#include "store/posix_file.h"

namespace xtfq {

namespace {
// A file whose targets' collections at its time the store holds already.
struct HeldFile {
  std::string file;
  std::vector<std::string> targets;
  int64_t time = 0;
  std::string Note() const {
    return fmt::format("{}: already in the store (target{} {} collected at {}); skipped", file,
                       targets.size() == 1 ? "" : "s", fmt::join(targets, ", "), time);
  }
};
}  // namespace

bool JobStatsFileImporter::LooksLikeJobStats(std::string_view head) {
  return head.find("job_stats") != std::string_view::npos || head.find("- job_id:") != std::string_view::npos ||
         head.find("collected_at:") != std::string_view::npos;
}

std::vector<std::string> JobStatsFileImporter::ParsedTargets(const JobStatsParsed& p) {
  std::vector<std::string> targets;
  auto add = [&](const std::string& name) {
    if (!name.empty() && std::find(targets.begin(), targets.end(), name) == targets.end()) targets.push_back(name);
  };
  for (const std::string& name : p.summary.targets) add(name);
  for (const JobStatsEntry& e : p.entries) add(e.target);
  return targets;
}

Result<std::vector<std::string>> JobStatsFileImporter::Held(RecordSource& existing, const JobStatsState& state,
                                                            std::vector<std::string> targets, int64_t time) {
  if (targets.empty()) return targets;
  for (const std::string& name : targets) {
    XTFQ_ASSIGN_OR_RETURN(bool held, state.Holds(existing, name, time));
    if (!held) return std::vector<std::string>();
  }
  return targets;
}

Result<ImportReport> JobStatsFileImporter::Import(const std::vector<std::string>& inputs, RecordSink& sink,
                                                  RecordSource* existing) {
  XTFQ_ASSIGN_OR_RETURN(Importer::Inputs expanded, ExpandInputs(inputs, "jobstats", sniff_));
  const std::vector<std::string>& files = expanded.files;
  JobStatsState state;
  if (existing != nullptr) {
    XTFQ_ASSIGN_OR_RETURN(state, JobStatsState::Load(*existing));
  }
  JobStatsImportOptions options;
  options.templates = options_.jobid_names, options.target = options_.target, options.at = options_.at;
  // Collection order: each file's time (from --at, its collected_at line or its name), then name.
  std::vector<std::pair<double, std::string>> order;
  for (const std::string& f : files) {
    XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(f, PosixFile::Mode::kRead));
    XTFQ_ASSIGN_OR_RETURN(double t, JobStatsImporter::CollectionTime(*file, options.at));
    order.emplace_back(t, f);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t held_files = 0;             // every collection of them held already
  std::vector<HeldFile> held_notes;  // files with targets whose collection is held, in order
  // A snapshot older than the newest the store holds can only be one it holds already (a
  // directory imported again): skipped, without parsing its entries, when every target it names
  // has its collection at that time (JobStatsParser::Targets names at least the targets a parse
  // would). Older ones that are not are parsed, checked again below, and refused by Import.
  if (existing != nullptr) {
    std::vector<std::pair<double, std::string>> rest;
    for (auto& [t, f] : order) {
      const auto second = static_cast<int64_t>(std::llround(t));  // as JobStatsImporter::Parse rounds it
      if (second < state.last_time) {
        XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(f, PosixFile::Mode::kRead));
        XTFQ_ASSIGN_OR_RETURN(std::vector<std::string> targets, JobStatsParser::Targets(*file, options.target));
        XTFQ_ASSIGN_OR_RETURN(std::vector<std::string> held, Held(*existing, state, std::move(targets), second));
        if (!held.empty()) {
          held_notes.push_back({f, std::move(held), second});
          ++held_files;
          continue;
        }
      }
      rest.emplace_back(t, std::move(f));
    }
    order = std::move(rest);
  }
  XTFQ_ASSIGN_OR_RETURN(JobStatsImporter importer, JobStatsImporter::Make(sink, state, options));
  JobStatsImportStats total;
  ImportReport r;
  for (const std::string& x : expanded.skipped) r.warnings.push_back(fmt::format("{} (left out)", x));
  std::vector<std::string> ordered;
  for (const auto& [t, f] : order) ordered.push_back(f);
  InputProgress progress(options_.progress, ordered);
  // Snapshot k + 1 is read and parsed on a second thread while snapshot k is imported (parsing is
  // about 40% of an import); the import itself stays in collection order on this thread. The time
  // found above is passed on, so a file's head is not read again.
  AheadQueue<Result<JobStatsParsed>> ahead(
      order.size(),
      [&](size_t k) -> Result<JobStatsParsed> {
        XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(order[k].second, PosixFile::Mode::kRead));
        return JobStatsImporter::Parse(*file, options.target, order[k].first);
      },
      options_.parse_ahead);
  for (size_t k = 0; k < order.size(); ++k) {
    const std::string& f = order[k].second;
    progress.Begin(f);
    Result<JobStatsParsed> parsed = ahead.Next();
    if (!parsed.ok()) return parsed.error();
    // The parse's own targets (a file the scan above could not show held, say one with an
    // unreadable entry of a target the store lacks).
    if (existing != nullptr && parsed->time < state.last_time) {
      XTFQ_ASSIGN_OR_RETURN(std::vector<std::string> held,
                            Held(*existing, state, ParsedTargets(*parsed), parsed->time));
      if (!held.empty()) {
        held_notes.push_back({f, std::move(held), parsed->time});
        ahead.Retire(std::move(parsed));
        ++held_files;
        progress.End();
        continue;
      }
    }
    XTFQ_ASSIGN_OR_RETURN(JobStatsImportStats st, importer.Import(*parsed));
    ahead.Retire(std::move(parsed));
    for (const std::string& p : st.problems) r.warnings.push_back(fmt::format("{} (entry skipped)", p));
    r.warnings.insert(r.warnings.end(), st.warnings.begin(), st.warnings.end());
    held_files += !st.held.empty() && st.collections == 0 ? 1 : 0;
    if (!st.held.empty()) held_notes.push_back({f, st.held, st.time});
    total.collections += st.collections, total.entries += st.entries, total.duplicates += st.duplicates;
    total.counters += st.counters, total.steps += st.steps, total.new_series += st.new_series,
        total.resets += st.resets;
    total.problems.insert(total.problems.end(), st.problems.begin(), st.problems.end());
    progress.End();
  }
  // A directory imported again as it grows holds many such files: a few are named, the rest counted.
  constexpr size_t kHeldNamed = 3;
  for (size_t i = 0; i < held_notes.size() && i < kHeldNamed; ++i) r.notes.push_back(held_notes[i].Note());
  if (held_notes.size() > kHeldNamed) {
    r.notes.push_back(fmt::format("and {} more files already in the store, skipped (the last: {}, collected at {})",
                                  held_notes.size() - kHeldNamed, held_notes.back().file, held_notes.back().time));
  }
  r.inputs = files.size() - held_files;  // those that added something (an import of none commits nothing)
  r.records = total.entries, r.entries = total.entries, r.steps = total.steps;
  r.totals = fmt::format(
      "{} job_stats files{}: {} collections, {} entries ({} duplicates replaced, {} skipped), {} counters, {} new "
      "series, {} rate steps, "
      "{} resets",
      files.size(), held_files > 0 ? fmt::format(" ({} of them already in the store)", held_files) : "",
      total.collections, total.entries, total.duplicates, total.problems.size(), total.counters, total.new_series,
      total.steps, total.resets);
  return r;
}

}  // namespace xtfq
