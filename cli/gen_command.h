// GenCommand: `xtfq gen events N -o FILE`: synthetic data at any scale (EventsGenerator), written
// in 4 MiB blocks.
//
// Thread-safety: as Command.
#pragma once

#include <cstdint>

#include "cli/command.h"
#include "importers/darshan_generator.h"

namespace xtfq::cli {

class GenCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  CLI::App* events_ = nullptr;
  CLI::App* darshan_ = nullptr;
  DarshanGenOptions darshan_opts_;
  double darshan_segments_ = 1e6;
  int RunDarshan();
  double count_ = 0;
  std::string out_;
  int32_t ranks_ = 1024;
  uint64_t seed_ = 42;
};

}  // namespace xtfq::cli
