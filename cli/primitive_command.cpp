#include "cli/primitive_command.h"

#include <fmt/format.h>

#include "cli/array_report.h"
#include "cli/output.h"
#include "query/answers/result_json.h"

namespace xtfq::cli {

std::string_view PrimitiveCommand::name() const { return PrimitiveQuery::Name(op_); }

CLI::App* PrimitiveCommand::Register(CLI::App& parent) {
  const char* help =
      op_ == PrimitiveOp::kSearch ? "The first record with time >= T (--time T), or record N (--record N)"
      : op_ == PrimitiveOp::kSize ? "The number of records with T1 <= time < T2 (--time T1:T2), from the index"
                                  : "The record --offset K positions after (or before) --time T or --record N";
  CLI::App* app = parent.add_subcommand(std::string(name()), help);
  opts_.Register(app);
  app->add_option("--ranks", ranks_,
                  op_ == PrimitiveOp::kSize ? "process window R1:R2 (half-open), from the P index"
                                            : "follow one process: R:R+1 (positions are then that process's)");
  if (op_ == PrimitiveOp::kSize) {
    app->add_option("--time", time_, "window T1:T2 (half-open, ns; either side may be empty)")->required();
    return app;
  }
  auto* t = app->add_option("--time", time_, "time T (ns)");
  auto* r = app->add_option("--record", record_, "record number N (0-based)");
  t->excludes(r);
  if (op_ == PrimitiveOp::kNext)
    app->add_option("--offset,--step", offset_,
                    "positions to move, negative to move back (default 1; --step is the old name)");
  return app;
}

Result<std::string> PrimitiveCommand::Answer() {
  XTFQ_TRY(opts_.Open());
  PrimitiveRequest q;
  q.op = op_, q.time = time_, q.record = record_, q.offset = offset_, q.ranks = ranks_, q.scan = opts_.scan();
  XTFQ_ASSIGN_OR_RETURN(PrimitiveAnswer a, PrimitiveQuery::Run(opts_.reader(), opts_.array(), q));
  if (opts_.json()) return ResultJson::Of(a, op_, opts_.array().schema).dump();
  if (op_ == PrimitiveOp::kSize) return std::to_string(a.count);
  // Positions within one process, named by the array's process field ("rank 3", "target 2").
  const std::string of = a.process ? fmt::format(" of {} {}", a.process_field, *a.process) : "";
  if (a.cursor.at_end()) return fmt::format("position {}{} (the end: {} records)", a.cursor.position, of, a.records);
  return fmt::format("position {}{} {}", a.cursor.position, of,
                     ArrayReport::Record(opts_.array().schema, a.cursor.record.data()));
}

int PrimitiveCommand::Run() {
  Result<std::string> out = Answer();
  if (!out.ok()) return Fail(name(), out.error());
  fmt::print("{}\n", *out);
  return kExitOk;
}

}  // namespace xtfq::cli
