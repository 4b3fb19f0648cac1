// JobCommand: `xtfq job ID STORE... [--window S | --windows N] [--format text|json|csv]`: one
// job on the wall clock across stores (query/answers/job_timeline.h), rendered by cli/job_report.h.
//
// Thread-safety: as Command.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"

namespace xtfq::cli {

class JobCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  std::string job_;  // parsed by ParseJobId, so a bad id gets its own message
  std::vector<std::string> stores_;
  std::optional<double> window_;
  uint32_t windows_ = 60;
  std::string format_ = "text";
};

}  // namespace xtfq::cli
