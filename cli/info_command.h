// InfoCommand: `xtfq info STORE`: page size, pages by role, generation, free space, and every
// array with its schema, record count and pages, then the Darshan logs and job_stats it holds;
// text or JSON (query/answers/StoreSummary, one opened snapshot).
//
// Thread-safety: as Command.
#pragma once

#include "cli/command.h"

namespace xtfq::cli {

class InfoCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  std::string store_;
  std::string format_ = "text";
  bool brief_ = false;
};

}  // namespace xtfq::cli
