// SegmentsCommand: `xtfq segments STORE [--time T1:T2] [--ranks R1:R2] [--op read|write|all]
// [--module POSIX|MPI-IO] [--log N | --job ID] [--offset K] [--limit N] [--format text|csv|json]`:
// the DXT segments of a window, a page at a time in the order (start, rank, file, offset)
// (query/darshan/DarshanSegmentsQuery; docs/cli.md, "segments"). The viewer's drill-down lists the same.
//
// Thread-safety: as Command.
#pragma once

#include <string>

#include "cli/array_options.h"
#include "cli/command.h"
#include "query/darshan/darshan_segments_query.h"

namespace xtfq::cli {

class SegmentsCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;
  // The answer as text (a table under a line saying which of how many), CSV or JSON.
  static std::string Render(const DarshanSegmentsAnswer& a, const std::string& format);

 private:
  Result<std::string> Answer();

  ArrayOptions opts_;
  DarshanSegmentsRequest r_;
};

}  // namespace xtfq::cli
