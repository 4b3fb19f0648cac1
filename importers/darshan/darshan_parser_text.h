// DarshanParserText: the text darshan-parser (darshan-util 3.5.0) prints for a log, produced from
// a DarshanLog byte for byte (../shared/docs/darshan-format.md, section 6). Times are printed with
// ctime() in the process's time zone, as darshan-parser does (the corpus references use TZ=UTC).
//
// Thread-safety: stateless.
#pragma once

#include <cstdio>
#include <string>

#include "importers/darshan/darshan_log.h"

namespace xtfq {

class DarshanParserText {
 public:
  // The job header, the log file regions and the mount table (section 6.1), each line ending in
  // a newline; the 3.20 corruption warning first for format 3.20 logs.
  static std::string Header(const DarshanLog& log);
  // The same as darshan-dxt-parser prints it: its regions list only modules with data, where
  // darshan-parser also lists an empty module whose partial flag is set.
  static std::string DxtHeader(const DarshanLog& log);

  // Everything darshan-parser prints by default (--base): the header, the column description and
  // each module's records, written to `out` as it is decoded (memory stays bounded). Messages
  // darshan-parser writes to stderr go to `err`. A partial module without `show_incomplete`
  // stops the output there with kFailed, as darshan-parser exits 255.
  static Status Base(DarshanLog& log, bool show_incomplete, std::FILE* out, std::FILE* err);

  // What `darshan-parser --total`, `--file` and `--perf` print (any of them, `parts`): the header,
  // then for POSIX, MPI-IO, STDIO, DFS and DAOS a banner and the blocks asked for, in that order
  // (../shared/docs/darshan-format.md; darshan-logutils-accumulator.c), computed by
  // DarshanAccumulator over the records in the log's order. Partial modules as in Base.
  struct Parts {
    bool total = false, file = false, perf = false;
  };
  static Status Accumulated(DarshanLog& log, Parts parts, bool show_incomplete, std::FILE* out, std::FILE* err);

  // What darshan-dxt-parser prints: the header, then every DXT_POSIX and DXT_MPIIO record with
  // its segments (writes, then reads), annotated with Lustre stripe components and OSTs where
  // the log has a LUSTRE record for the file. A DXT or LUSTRE module with data whose partial flag
  // is set gets darshan-dxt-parser's own warning (after the DXT banner; LUSTRE has none), or
  // without `show_incomplete` its error on `err` and kFailed there; modules without data are
  // ignored, partial or not.
  static Status Dxt(DarshanLog& log, bool show_incomplete, std::FILE* out, std::FILE* err);
};

}  // namespace xtfq
