#include "query/darshan/darshan_total.h"

#include <fmt/format.h>

#include "layouts/darshan_layout.h"

namespace xtfq {

Result<std::optional<DarshanTotal>> DarshanTotal::Read(StoreReader& reader, const DarshanLogInfo& info,
                                                       const std::string& module) {
  const ArrayDesc* a = reader.catalogue().Find(DarshanLayout::ArrayName(info.log, module + ".total"));
  if (a == nullptr) return std::optional<DarshanTotal>();
  if (a->record_count() != 1) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: {} records where one is kept", a->name, a->record_count()));
  }
  DarshanTotal out;
  out.module = module;
  const Schema& s = a->schema;
  XTFQ_TRY(reader.ForEach(*a, [&](const std::byte* r) -> Status {
    for (size_t f = 3; f < s.fields().size(); ++f) out.counters.emplace_back(s.fields()[f].name, s.Get(r, f));
    return Ok();
  }));
  return std::optional<DarshanTotal>(std::move(out));
}

}  // namespace xtfq
