#include "query/darshan/darshan_perf.h"

#include <fmt/format.h>

namespace xtfq {

const DarshanModulePerf* DarshanPerfAnswer::Find(std::string_view module) const {
  for (const DarshanModulePerfAnswer& m : modules) {
    if (m.module == module) return &m.perf;
  }
  return nullptr;
}

Result<DarshanPerfAnswer> DarshanPerf::Read(StoreReader& reader, const DarshanLogInfo& info) {
  DarshanPerfAnswer out;
  out.from_text = info.source == DarshanLayout::SourceKind::kParserText;
  const ArrayDesc* a = reader.catalogue().Find(DarshanLayout::ArrayName(info.log, "perf"));
  if (a == nullptr) return out;
  if (!(a->schema == DarshanLayout::PerfSchema())) {
    return Error(ErrorCode::kCorrupt, fmt::format("{}: its schema is not the perf record's", a->name));
  }
  out.kept = true;
  XTFQ_TRY(reader.ForEach(*a, [&](const std::byte* r) -> Status {
    const DarshanModulePerf p = DarshanModulePerf::Decode(r);
    const std::string_view name = p.slot >= 0 && p.slot < DarshanLayout::kModuleSlots
                                      ? DarshanLayout::ModuleName(static_cast<int>(p.slot))
                                      : std::string_view();
    if (name.empty()) return Error(ErrorCode::kCorrupt, fmt::format("{}: module slot {}", a->name, p.slot));
    out.modules.push_back({std::string(name), p});
    return Ok();
  }));
  return out;
}

std::string DarshanPerf::NotKept(const DarshanLogInfo& info) {
  return fmt::format(
      "Darshan's aggregate performance (darshan-parser --perf) of log {} is not in this store, which an "
      "earlier version wrote: import {} again to see agg_perf_by_slowest",
      info.log, info.file.empty() ? std::string("the log") : info.file);
}

}  // namespace xtfq
