// PrimitiveCommand: `xtfq search|size|next STORE ...`, the primitives for scripts and tests.
//   search  --time T | --record N             the first record with time >= T, or record N
//   size    --time T1:T2                      records with T1 <= t < T2
//   next    (--time T | --record N) --offset K  the record K positions after (before, if K < 0)
//
// Thread-safety: as Command.
#pragma once

#include <optional>

#include "cli/array_options.h"
#include "cli/command.h"
#include "query/core/primitive_query.h"

namespace xtfq::cli {

class PrimitiveCommand final : public Command {
 public:
  explicit PrimitiveCommand(PrimitiveOp op) : op_(op) {}
  CLI::App* Register(CLI::App& parent) override;
  int Run() override;

 private:
  Result<std::string> Answer();
  std::string_view name() const;

  PrimitiveOp op_;
  ArrayOptions opts_;
  std::optional<std::string> time_;
  std::optional<uint64_t> record_;
  std::string ranks_;
  int64_t offset_ = 1;  // next: positions to move
};

}  // namespace xtfq::cli
