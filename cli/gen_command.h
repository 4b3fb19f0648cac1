// GenCommand: `xtfq gen events N -o FILE` (EventsGenerator, written in 4 MiB blocks), `xtfq gen
// darshan SEGMENTS -o LOG` (DarshanGenerator) and `xtfq gen jobstats ... -o DIR`
// (JobStatsGenerator, with its ground truth) and `xtfq gen slurm -o DIR --job ID --start EPOCH ...`
// (SlurmProfileWriter: a Slurm 22.05 acct_gather_profile/hdf5 job profile, with its ground truth):
// synthetic data at any scale.
//
// Thread-safety: as Command.
#pragma once

#include <cstdint>

#include "cli/command.h"
#include "gen/darshan_generator.h"
#include "gen/jobstats_generator.h"
#include "gen/slurm_profile_writer.h"

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
  CLI::App* jobstats_ = nullptr;
  JobStatsGenOptions jobstats_opts_;
  int RunJobStats();
  CLI::App* slurm_ = nullptr;
  SlurmGenOptions slurm_opts_;
  int RunSlurm();
  double count_ = 0;
  std::string out_;
  int32_t ranks_ = 1024;
  uint64_t seed_ = 42;
};

}  // namespace xtfq::cli
