// InfoCommand: `xtfq info STORE`: page size, pages by role, generation, free space, and every
// array with its schema, record count and pages; text or JSON. Reads only the superblock and the
// catalogue.
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
};

}  // namespace xtfq::cli
