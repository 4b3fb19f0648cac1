// BenchCommand: `xtfq bench --data d.bin --queries q.txt [--store S] [--scan]`: the query classes
// Q1-Q4 of ../shared/bench/README.md against a store built from d.bin, with that README's timing
// protocol (warm-up, BUDGET_S, MIN_RUNS, COLD, ONLY) and its RESULT and CHECK lines, so xtfq sits
// in the same table as the other peers. Peer names: xtfq (index), xtfq_scan (--scan: the flat
// scan through the same store), and with COLD=1 the same with "_cold".
//
// Thread-safety: as Command.
#pragma once

#include "cli/command.h"

namespace xtfq::cli {

class BenchCommand final : public Command {
 public:
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  std::string data_;
  std::string queries_;
  std::string store_;
  bool scan_ = false;
  std::string backend_ = "pread";
};

}  // namespace xtfq::cli
