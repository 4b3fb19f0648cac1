#include "query/core/primitive_query.h"

#include <fmt/format.h>

#include <memory>

#include "query/core/process_window.h"
#include "query/core/time_window.h"

namespace xtfq {

std::string_view PrimitiveQuery::Name(PrimitiveOp op) {
  switch (op) {
    case PrimitiveOp::kSearch:
      return "search";
    case PrimitiveOp::kSize:
      return "size";
    case PrimitiveOp::kNext:
      return "next";
  }
  return "";
}

Result<PrimitiveAnswer> PrimitiveQuery::Run(StoreReader& reader, const ArrayDesc& array,
                                            const PrimitiveRequest& request) {
  Primitives all(reader.cache(), array, &reader.store().catalogue());
  Primitives* p = &all;
  const Schema& schema = array.schema;
  ProcessWindow r;
  if (!request.ranks.empty()) {
    XTFQ_ASSIGN_OR_RETURN(r, ProcessWindow::Parse(request.ranks));
    if (!schema.process_field()) {
      return Error(ErrorCode::kUsage, fmt::format("array '{}' has no process field for --ranks", array.name));
    }
  }
  PrimitiveAnswer a;
  if (request.op == PrimitiveOp::kSize) {
    XTFQ_ASSIGN_OR_RETURN(TimeFrame frame, reader.Frame(array));
    XTFQ_ASSIGN_OR_RETURN(TimeWindow w, TimeWindow::Parse(request.time.value_or(":"), frame));
    XTFQ_ASSIGN_OR_RETURN(a.count,
                          request.scan ? p->ScanSize(w.lo, w.hi, r.lo, r.hi) : p->Size(w.lo, w.hi, r.lo, r.hi));
    return a;
  }
  if (!request.time && !request.record) return Error(ErrorCode::kInvalidArgument, "give --time T or --record N");
  // One process: the same primitives over its per-process array.
  std::unique_ptr<Primitives> one;
  if (!request.ranks.empty()) {
    if (r.lo == INT64_MIN || r.hi != r.lo + 1) {
      return Error(ErrorCode::kUsage, fmt::format("{} follows one process: give --ranks R:R+1, not '{}'",
                                                  Name(request.op), request.ranks));
    }
    if (request.scan)
      return Error(ErrorCode::kUsage,
                   fmt::format("{} --ranks reads the P index; --scan does not apply", Name(request.op)));
    XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* process_array, p->ProcessArray(r.lo));
    one = std::make_unique<Primitives>(reader.cache(), *process_array, &reader.store().catalogue());
    p = one.get();
    a.process = r.lo;
    a.process_field = schema.fields()[*schema.process_field()].name;
  }
  if (request.time) {
    XTFQ_ASSIGN_OR_RETURN(TimeFrame frame, reader.Frame(array));
    XTFQ_ASSIGN_OR_RETURN(const int64_t t, TimeWindow::ParsePoint(*request.time, frame));
    XTFQ_ASSIGN_OR_RETURN(a.cursor, request.scan ? p->ScanSearch(t) : p->Search(t));
  } else {
    XTFQ_ASSIGN_OR_RETURN(a.cursor, p->SearchAt(*request.record));
  }
  if (request.op == PrimitiveOp::kNext) {
    XTFQ_ASSIGN_OR_RETURN(a.cursor, p->Next(a.cursor, request.offset));
  }
  a.records = p->size();
  return a;
}

}  // namespace xtfq
