#include "query/darshan/darshan_job_summary.h"

#include <algorithm>
#include <map>
#include <variant>

#include "layouts/darshan_layout.h"

namespace xtfq {

namespace {

// Operation counters: ints whose names end so (POSIX_OPENS, MPIIO_COLL_WRITES, STDIO_FLUSHES, ...),
// and the byte counts.
bool IsOperation(std::string_view n) {
  if (n.find("CONSEC_") != n.npos || n.find("SEQ_") != n.npos) return false;  // kinds of reads and writes
  if (n.ends_with("_BYTES_READ") || n.ends_with("_BYTES_WRITTEN")) return true;
  for (std::string_view end :
       {"_OPENS",   "_CREATES", "_FILENOS", "_DUPS",    "_READS",     "_WRITES",         "_SEEKS", "_STATS",
        "_MMAPS",   "_FSYNCS",  "_FDSYNCS", "_SYNCS",   "_FLUSHES",   "_RENAME_SOURCES", "_HINTS", "_VIEWS",
        "_FDOPENS", "_LOOKUPS", "_PUNCHES", "_REMOVES", "_GET_SIZES", "_SET_SIZES"}) {
    if (n.ends_with(end)) return true;
  }
  return false;
}

}  // namespace

Result<std::optional<DarshanJobSummary>> DarshanJobSummary::Of(StoreReader& reader, const DarshanLogInfo& info,
                                                               const std::string& module) {
  const ArrayDesc* a = reader.catalogue().Find(DarshanLayout::ArrayName(info.log, module));
  if (a == nullptr) return std::optional<DarshanJobSummary>();
  const Schema& s = a->schema;
  const std::string prefix = module == "MPI-IO" ? "MPIIO_" : module + "_";
  DarshanJobSummary out;
  out.module = module;
  out.run_time = DarshanLogs::RunSeconds(info);
  std::vector<size_t> ops;
  for (size_t f = 3; f < s.fields().size(); ++f) {
    const std::string& n = s.fields()[f].name;
    if (s.fields()[f].type == FieldType::kI64 && n.starts_with(prefix) && IsOperation(n)) {
      ops.push_back(f);
      out.operations.emplace_back(n.substr(prefix.size()), int64_t{0});
    }
  }
  auto at = [&](const std::string& counter) { return s.Find(prefix + counter); };
  std::vector<std::pair<size_t, size_t>> accesses;  // (value field, count field)
  for (int k = 1; k <= 4; ++k) {
    const auto v = at("ACCESS" + std::to_string(k) + "_ACCESS"), c = at("ACCESS" + std::to_string(k) + "_COUNT");
    if (v && c) accesses.emplace_back(*v, *c);
  }
  const auto read = at("F_READ_TIME"), write = at("F_WRITE_TIME"), meta = at("F_META_TIME");
  std::map<int64_t, int64_t> by_size;
  std::vector<bool> unknown(ops.size(), false);
  XTFQ_TRY(reader.ForEach(*a, [&](const std::byte* r) -> Status {
    ++out.records;
    for (size_t i = 0; i < ops.size(); ++i) {
      const int64_t v = std::get<int64_t>(s.Get(r, ops[i]));
      std::optional<int64_t>& total = out.operations[i].second;
      if (v < 0) total.reset(), unknown[i] = true;  // -1: not monitored, so the total is unknown
      if (!unknown[i]) total = total.value_or(0) + v;
    }
    for (const auto& [vf, cf] : accesses) {
      const int64_t size = std::get<int64_t>(s.Get(r, vf)), count = std::get<int64_t>(s.Get(r, cf));
      if (count > 0) by_size[size] += count;
    }
    for (auto [f, sum] : {std::pair{read, &out.read_time}, {write, &out.write_time}, {meta, &out.meta_time}}) {
      if (f && s.GetDouble(r, *f) > 0) *sum += s.GetDouble(r, *f);
    }
    return Ok();
  }));
  const double procs = info.nprocs > 0 ? static_cast<double>(info.nprocs) : 1.0;
  out.read_time /= procs, out.write_time /= procs, out.meta_time /= procs;
  std::vector<std::pair<int64_t, int64_t>> sizes(by_size.begin(), by_size.end());
  std::stable_sort(sizes.begin(), sizes.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  if (sizes.size() > 4) sizes.resize(4);
  out.common_accesses = std::move(sizes);
  return std::optional<DarshanJobSummary>(std::move(out));
}

}  // namespace xtfq
