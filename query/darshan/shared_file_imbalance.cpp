#include "query/darshan/shared_file_imbalance.h"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "layouts/darshan_layout.h"
#include "store/endian.h"

namespace xtfq {

std::optional<double> SharedFileImbalance::TimeRatio() const {
  if (fastest_rank_time <= 0) return std::nullopt;
  return slowest_rank_time / fastest_rank_time;
}

Result<std::optional<SharedFileImbalances>> SharedFileImbalances::Of(StoreReader& reader, const DarshanLogInfo& info,
                                                                     const std::string& module, size_t top) {
  const ArrayDesc* a = reader.catalogue().Find(DarshanLayout::ArrayName(info.log, module));
  if (a == nullptr) return std::optional<SharedFileImbalances>();
  const Schema& s = a->schema;
  const std::string prefix = module == "MPI-IO" ? "MPIIO_" : module + "_";
  auto field = [&](const char* counter) { return s.Find(prefix + counter); };
  const auto slowest = field("SLOWEST_RANK"), slowest_bytes = field("SLOWEST_RANK_BYTES"),
             fastest = field("FASTEST_RANK"), fastest_bytes = field("FASTEST_RANK_BYTES"),
             slowest_time = field("F_SLOWEST_RANK_TIME"), fastest_time = field("F_FASTEST_RANK_TIME");
  const auto var_time = field("F_VARIANCE_RANK_TIME"), var_bytes = field("F_VARIANCE_RANK_BYTES");
  if (!slowest || !slowest_bytes || !fastest || !fastest_bytes || !slowest_time || !fastest_time) {
    return std::optional<SharedFileImbalances>();
  }
  SharedFileImbalances out;
  auto integer = [&](const std::byte* r, size_t f) { return std::get<int64_t>(s.Get(r, f)); };
  auto real = [&](const std::byte* r, std::optional<size_t> f) -> std::optional<double> {
    if (!f) return std::nullopt;
    const double v = s.GetDouble(r, *f);
    return v < 0 ? std::nullopt : std::optional<double>(v);  // -1: not kept by the record's version
  };
  XTFQ_TRY(reader.ForEach(*a, [&](const std::byte* r) -> Status {
    if (LoadLe<int64_t>(r + 8) != -1) return Ok();
    ++out.shared_files;
    SharedFileImbalance f;
    f.id = LoadLe<uint64_t>(r);
    f.slowest_rank = integer(r, *slowest), f.slowest_rank_bytes = integer(r, *slowest_bytes);
    f.fastest_rank = integer(r, *fastest), f.fastest_rank_bytes = integer(r, *fastest_bytes);
    f.slowest_rank_time = s.GetDouble(r, *slowest_time), f.fastest_rank_time = s.GetDouble(r, *fastest_time);
    f.variance_rank_time = real(r, var_time), f.variance_rank_bytes = real(r, var_bytes);
    out.files.push_back(std::move(f));
    return Ok();
  }));
  std::stable_sort(out.files.begin(), out.files.end(),
                   [](const auto& x, const auto& y) { return x.slowest_rank_time > y.slowest_rank_time; });
  if (out.files.size() > top) out.files.resize(top);
  if (!out.files.empty()) {
    XTFQ_ASSIGN_OR_RETURN(auto names, DarshanLogs::Names(reader, info));
    for (SharedFileImbalance& f : out.files) {
      const auto it = names.find(f.id);
      f.name = it == names.end() ? "(null)" : it->second;
    }
  }
  return std::optional<SharedFileImbalances>(std::move(out));
}

}  // namespace xtfq
