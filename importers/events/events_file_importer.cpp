#include "importers/events/events_file_importer.h"

#include "importers/common/input_progress.h"
#include "importers/events/events_importer.h"
#include "store/posix_file.h"

namespace xtfq {

Result<ImportReport> EventsFileImporter::Import(const std::vector<std::string>& inputs, RecordSink& sink,
                                                RecordSource*) {
  // One events file per array: a second one would need its own --array.
  if (inputs.size() != 1)
    return Error(ErrorCode::kUsage, "give one events file per import (each goes to its own --array)");
  XTFQ_ASSIGN_OR_RETURN(auto file, PosixFile::Open(inputs[0], PosixFile::Mode::kRead));
  ImportReport r;
  InputProgress progress(options_.progress, inputs);
  progress.Begin(inputs[0]);
  XTFQ_ASSIGN_OR_RETURN(r.records, EventsImporter::Import(*file, sink, options_.array,
                                                          [&](uint64_t position) { progress.At(position); }));
  progress.End();
  r.inputs = 1;
  return r;
}

}  // namespace xtfq
