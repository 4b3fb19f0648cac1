// GridCommand: `xtfq grid STORE --time T1:T2 [--ranks R1:R2 | --processes LIST] --cols W [--rows H]
// [--metric M,...] [--op read|write|all] [--module M] [--log N | --job ID] [--array NAME] [--snap]
// [--scan] [--format text|csv|json]`: a window of a store as a W x H grid of exact cells
// (query/answers/GridAnswerQuery, rendered by GridReport; docs/cli.md, "grid").
//
// Thread-safety: as Command.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cli/array_options.h"
#include "cli/command.h"
#include "query/answers/grid_answer.h"

namespace xtfq::cli {

class GridCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  Result<std::string> Answer();

  ArrayOptions opts_;
  GridAnswerRequest r_;
  std::string processes_;
  std::vector<std::string> jobs_;
  std::map<std::string, CLI::Option*> darshan_flags_;
  CLI::Option* by_ = nullptr;  // --by: job_stats only
};

}  // namespace xtfq::cli
