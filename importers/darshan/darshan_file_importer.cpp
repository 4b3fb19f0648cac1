#include "importers/darshan/darshan_file_importer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "importers/common/input_progress.h"
#include "importers/darshan/darshan_duplicates.h"
#include "importers/darshan/darshan_importer.h"
#include "importers/darshan/darshan_text_importer.h"
#include "layouts/darshan_layout.h"
#include "store/posix_file.h"

namespace xtfq {

Result<ImportReport> DarshanFileImporter::Import(const std::vector<std::string>& inputs, RecordSink& sink,
                                                 RecordSource* existing) {
  DarshanImportOptions dopts;
  dopts.sort_memory = options_.sort_memory, dopts.temp_dir = options_.temp_dir;
  const ArrayDesc* logs = existing == nullptr ? nullptr : existing->catalogue().Find(DarshanLayout::kLogs);
  int64_t next_log = logs == nullptr ? 0 : static_cast<int64_t>(logs->record_count());
  ImportReport r;
  XTFQ_ASSIGN_OR_RETURN(DarshanDuplicates duplicates, DarshanDuplicates::Load(existing));
  InputProgress progress(options_.progress, inputs);
  dopts.at = [&](uint64_t position) { progress.At(position); };
  for (const std::string& in : inputs) {
    progress.Begin(in);
    bool text = mode_ == Mode::kText;
    if (mode_ == Mode::kSniff) {
      XTFQ_ASSIGN_OR_RETURN(std::string f, sniff_(in));
      if (f != "darshan" && f != "darshan-text")
        return Error(ErrorCode::kInvalidArgument, fmt::format("{}: {} input, not a Darshan log", in, f));
      text = f == "darshan-text";
    }
    if (!options_.keep_duplicates) {
      XTFQ_ASSIGN_OR_RETURN(std::optional<DarshanDuplicates::Earlier> earlier, duplicates.Find(in));
      if (earlier) {
        r.warnings.push_back(
            fmt::format("{}: skipped: the same bytes as Darshan log {} (imported from {}); --keep-duplicates "
                        "imports it again",
                        in, earlier->log, earlier->file));
        progress.End();
        continue;
      }
    }
    DarshanImportStats st;
    if (text) {
      XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(in, PosixFile::Mode::kRead));
      XTFQ_ASSIGN_OR_RETURN(st, DarshanTextImporter::Import(*file, sink, next_log, dopts));
    } else {
      XTFQ_ASSIGN_OR_RETURN(auto log, DarshanLog::Open(in));
      XTFQ_ASSIGN_OR_RETURN(st, DarshanImporter::Import(*log, sink, next_log, dopts));
    }
    r.notes.push_back(fmt::format("{} as Darshan log {}: {} records, {} DXT segments, {} names", in, next_log,
                                  st.records, st.segments, st.names));
    std::vector<std::string> partial;
    for (int slot = 0; slot < DarshanLayout::kModuleSlots; ++slot) {
      if (!(st.job.partial >> slot & 1)) continue;
      const std::string_view name = DarshanLayout::ModuleName(slot);
      partial.push_back(name.empty() ? fmt::format("slot {}", slot) : std::string(name));
    }
    if (!partial.empty()) {
      r.warnings.push_back(fmt::format(
          "{} (log {}): incomplete data (Darshan's partial flag: the runtime ran out of memory) in {}; the records it "
          "kept are imported, and answers from them say so",
          in, next_log, fmt::join(partial, ", ")));
    }
    progress.End();
    if (auto same = duplicates.SameRun(next_log, st.job)) {
      r.warnings.push_back(fmt::format(
          "{} (log {}) has the job id ({}), uid, process count, start, end and executable of Darshan log {} (from {}): "
          "the same run imported twice? --job {} now needs --log N",
          in, next_log, st.job.job, same->log, same->file, st.job.job));
    }
    XTFQ_TRY(duplicates.Add(next_log, in, st.job));
    ++next_log, ++r.inputs;
    r.records += st.records, r.segments += st.segments, r.source_bytes += st.source_bytes;
  }
  return r;
}

}  // namespace xtfq
