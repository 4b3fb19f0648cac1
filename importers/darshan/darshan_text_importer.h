// DarshanTextImporter: darshan-parser's text output (with or without --show-incomplete, any
// darshan-util 3.x format version) into a RecordSink, in the same layout and the same records as
// DarshanImporter gives the binary log: the job from the header lines, partial flags from the
// incomplete-data warnings, the name records from the file name column, and every record of the
// fixed-size counter modules. The text itself is kept as the source. Floating-point counters
// carry only the six decimals darshan-parser prints; the job's nanoseconds are not in the text
// (0). HEATMAP bins are kept as the binary importer keeps them (bin widths with six decimals);
// LUSTRE and APMPI lines stay in the source only; the text has no DXT segments.
//
// Errors name the file and the line: a record line without its columns, a counter out of the
// module's order, a value that is not a number.
//
// Thread-safety: one import per sink at a time.
#pragma once

#include <span>

#include "importers/darshan/darshan_record_writer.h"
#include "store/file.h"

namespace xtfq {

class DarshanTextImporter {
 public:
  static Result<DarshanImportStats> Import(File& text, RecordSink& sink, int64_t log_index,
                                           const DarshanImportOptions& options = {});
  // Whether the first bytes look like darshan-parser output.
  static bool LooksLikeText(std::span<const std::byte> head);
};

}  // namespace xtfq
