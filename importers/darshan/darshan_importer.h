// DarshanImporter: a binary Darshan log (format 3.00-3.41) into a RecordSink, in DarshanLayout's
// store layout (docs/format.md, "Darshan layout"): the log file itself as the source (so that
// `xtfq dump` can print it again byte for byte, and modules without a decoder - LUSTRE,
// HEATMAP, APMPI, APXC, MDHIM, unknown slots - are kept), the name records, each fixed-size
// module's records decoded and up-converted, and the DXT segments with their derived fields.
// Values are the log's own (darshan-parser's big-endian float quirk is not reproduced).
//
// Streaming: regions are read in pieces and records are sorted with bounded memory
// (DarshanImportOptions::sort_memory), whatever the log's size.
//
// Thread-safety: one import per sink at a time.
#pragma once

#include "importers/darshan/darshan_log.h"
#include "importers/darshan/darshan_record_writer.h"

namespace xtfq {

class DarshanImporter {
 public:
  // Imports `log` as log number `log_index` of the store.
  static Result<DarshanImportStats> Import(DarshanLog& log, RecordSink& sink, int64_t log_index,
                                           const DarshanImportOptions& options = {});
  // The job of a log, as darshan.logs keeps it.
  static DarshanJob Job(const DarshanLog& log);
  // Whether the first bytes of a file are a Darshan log header (version string and magic).
  static bool LooksBinary(std::span<const std::byte> head);
};

}  // namespace xtfq
