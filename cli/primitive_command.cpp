#include "cli/primitive_command.h"

#include <fmt/format.h>

#include <charconv>

#include "cli/output.h"
#include "query/core/process_window.h"

namespace xtfq::cli {

std::string_view PrimitiveCommand::name() const {
  switch (kind_) {
    case Kind::kSearch:
      return "search";
    case Kind::kSize:
      return "size";
    case Kind::kNext:
      return "next";
  }
  return "";
}

CLI::App* PrimitiveCommand::Register(CLI::App& parent) {
  const char* help = kind_ == Kind::kSearch ? "The first record with time >= T (--time T), or record N (--record N)"
                     : kind_ == Kind::kSize
                         ? "The number of records with T1 <= time < T2 (--time T1:T2), from the index"
                         : "The record --offset K positions after (or before) --time T or --record N";
  CLI::App* app = parent.add_subcommand(std::string(name()), help);
  opts_.Register(app);
  app->add_option("--ranks", ranks_,
                  kind_ == Kind::kSize ? "process window R1:R2 (half-open), from the P index"
                                       : "follow one process: R:R+1 (positions are then that process's)");
  if (kind_ == Kind::kSize) {
    app->add_option("--time", time_, "window T1:T2 (half-open, ns; either side may be empty)")->required();
    return app;
  }
  auto* t = app->add_option("--time", time_, "time T (ns)");
  auto* r = app->add_option("--record", record_, "record number N (0-based)");
  t->excludes(r);
  if (kind_ == Kind::kNext)
    app->add_option("--offset,--step", offset_,
                    "positions to move, negative to move back (default 1; --step is the old name)");
  return app;
}

Result<std::string> PrimitiveCommand::Answer() {
  XTFQ_TRY(opts_.Open());
  Primitives* p = &opts_.primitives();
  const Schema& schema = opts_.array().schema;
  ProcessWindow r;
  if (!ranks_.empty()) {
    XTFQ_ASSIGN_OR_RETURN(r, ProcessWindow::Parse(ranks_));
    if (!schema.process_field()) {
      return Error(ErrorCode::kUsage, fmt::format("array '{}' has no process field for --ranks", opts_.array().name));
    }
  }
  if (kind_ == Kind::kSize) {
    XTFQ_ASSIGN_OR_RETURN(TimeFrame frame, opts_.Frame());
    XTFQ_ASSIGN_OR_RETURN(TimeWindow w, TimeWindow::Parse(*time_, frame));
    XTFQ_ASSIGN_OR_RETURN(uint64_t n,
                          opts_.scan() ? p->ScanSize(w.lo, w.hi, r.lo, r.hi) : p->Size(w.lo, w.hi, r.lo, r.hi));
    return opts_.json() ? nlohmann::json{{"count", n}}.dump() : std::to_string(n);
  }
  if (!time_ && !record_) return Error(ErrorCode::kInvalidArgument, "give --time T or --record N");
  // One process: the same primitives over its per-process array.
  std::unique_ptr<Primitives> one;
  if (!ranks_.empty()) {
    if (r.lo == INT64_MIN || r.hi != r.lo + 1) {
      return Error(ErrorCode::kUsage,
                   fmt::format("{} follows one process: give --ranks R:R+1, not '{}'", name(), ranks_));
    }
    if (opts_.scan())
      return Error(ErrorCode::kUsage, fmt::format("{} --ranks reads the P index; --scan does not apply", name()));
    XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* a, p->ProcessArray(r.lo));
    one = std::make_unique<Primitives>(opts_.reader().cache(), *a, &opts_.reader().store().catalogue());
    p = one.get();
  }
  Cursor c;
  if (time_) {
    XTFQ_ASSIGN_OR_RETURN(TimeFrame frame, opts_.Frame());
    XTFQ_ASSIGN_OR_RETURN(const int64_t t, TimeWindow::ParsePoint(*time_, frame));
    XTFQ_ASSIGN_OR_RETURN(c, opts_.scan() ? p->ScanSearch(t) : p->Search(t));
  } else {
    XTFQ_ASSIGN_OR_RETURN(c, p->SearchAt(*record_));
  }
  if (kind_ == Kind::kNext) {
    XTFQ_ASSIGN_OR_RETURN(c, p->Next(c, offset_));
  }
  if (opts_.json()) {
    nlohmann::json j = {{"position", c.position}, {"records", p->size()}};
    if (one) j["process"] = r.lo;
    j["record"] = c.at_end() ? nlohmann::json(nullptr) : RecordJson(schema, c.record.data());
    return j.dump();
  }
  // Positions within one process, named by the array's process field ("rank 3", "target 2").
  const std::string of = one ? fmt::format(" of {} {}", schema.fields()[*schema.process_field()].name, r.lo) : "";
  if (c.at_end()) return fmt::format("position {}{} (the end: {} records)", c.position, of, p->size());
  return fmt::format("position {}{} {}", c.position, of, RecordText(schema, c.record.data()));
}

int PrimitiveCommand::Run() {
  Result<std::string> out = Answer();
  if (!out.ok()) return Fail(name(), out.error());
  fmt::print("{}\n", *out);
  return kExitOk;
}

}  // namespace xtfq::cli
