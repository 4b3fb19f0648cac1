#include "query/slurm/slurm_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "index/tn_tree.h"
#include "layouts/slurm_layout.h"
#include "query/core/store_kind.h"
#include "store/endian.h"

namespace xtfq {

namespace {

using L = SlurmLayout;

template <class T>
bool Wanted(const std::vector<T>& list, const T& v) {
  return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
}

const Schema& SchemaOf(uint8_t kind) {
  return kind == L::kTasks ? L::TasksSchema() : kind == L::kNetwork ? L::NetworkSchema() : L::FilesystemSchema();
}

}  // namespace

bool SlurmSeries::duplicate() const { return (flags & SlurmLayout::kSerDuplicate) != 0; }

bool SlurmSeries::node_wide() const { return kind == SlurmLayout::kNetwork || kind == SlurmLayout::kFilesystem; }

bool SlurmView::Holds(const Store& store) { return StoreContents::Of(store.catalogue()).slurm; }

Result<std::unique_ptr<SlurmView>> SlurmView::Open(StoreReader& reader) {
  XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* a, reader.Array(L::kSeries));
  if (!(a->schema == L::SeriesSchema())) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: array {} is not this version's Slurm series layout; re-import the profiles",
                             reader.store().name(), L::kSeries));
  }
  std::unique_ptr<SlurmView> v(new SlurmView(reader));
  TnTree t(reader.cache(), *a);
  v->series_.reserve(t.size());
  auto str = [&](const std::byte* p, uint32_t at) -> Result<std::string> {
    const uint64_t ref = LoadLe<uint64_t>(p + at);
    if (ref == 0) return std::string();
    return reader.String(StringRef::Unpack(ref));
  };
  XTFQ_TRY(t.ForEach(0, t.size(), [&](const std::byte* p) -> Result<bool> {
    SlurmSeries s;
    s.id = static_cast<uint32_t>(v->series_.size());
    s.job = LoadLe<int64_t>(p + L::kSerJob), s.step = LoadLe<int64_t>(p + L::kSerStep);
    s.task = LoadLe<int64_t>(p + L::kSerTask), s.start = LoadLe<int64_t>(p + L::kSerStart);
    s.kind = LoadLe<uint8_t>(p + L::kSerKind), s.source = LoadLe<uint8_t>(p + L::kSerSource);
    s.flags = LoadLe<uint16_t>(p + L::kSerFlags), s.rows = LoadLe<uint32_t>(p + L::kSerRows);
    XTFQ_ASSIGN_OR_RETURN(s.node, str(p, L::kSerNode));
    XTFQ_ASSIGN_OR_RETURN(s.path, str(p, L::kSerPath));
    XTFQ_ASSIGN_OR_RETURN(s.file, str(p, L::kSerFile));
    v->series_.push_back(std::move(s));
    return true;
  }));
  return v;
}

std::string_view SlurmView::ArrayKind(uint8_t kind) {
  switch (kind) {
    case L::kTasks:
      return "tasks";
    case L::kNetwork:
      return "net";
    case L::kFilesystem:
      return "fs";
    default:
      return "";
  }
}

Result<std::vector<char>> SlurmView::Select(const SlurmFilter& f) const {
  std::set<uint8_t> kinds;
  for (const std::string& k : f.kinds) {
    if (k == "tasks" || k == "Tasks") {
      kinds.insert(L::kTasks);
    } else if (k == "fs" || k == "Filesystem") {
      kinds.insert(L::kFilesystem);
    } else if (k == "net" || k == "Network") {
      kinds.insert(L::kNetwork);
    } else {
      return Error(ErrorCode::kUsage, fmt::format("--kind '{}': give tasks, fs or net", k));
    }
  }
  std::vector<std::string> steps;  // by name: "-5" (as the influxdb plugin prints batch) is "batch"
  for (const std::string& s : f.steps) {
    const std::string_view digits = std::string_view(s).substr(s.starts_with('-') ? 1 : 0);
    const bool number = !digits.empty() && digits.size() < 12 &&
                        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!number && s != "batch" && s != "extern" && s != "interactive")
      return Error(ErrorCode::kUsage, fmt::format("--step '{}': give a step number, batch, extern or interactive", s));
    steps.push_back(number ? L::StepName(std::stoll(s)) : s);
  }
  std::vector<char> out(series_.size(), 0);
  for (const SlurmSeries& s : series_) {
    if (s.duplicate() || ArrayKind(s.kind).empty()) continue;
    if (!kinds.empty() && !kinds.contains(s.kind)) continue;
    if (!Wanted(f.jobs, s.job) || !Wanted(steps, L::StepName(s.step)) || !Wanted(f.nodes, s.node)) continue;
    if (!f.tasks.empty() && (s.kind != L::kTasks || !Wanted(f.tasks, s.task))) continue;
    out[s.id] = 1;
  }
  return out;
}

Result<const ArrayDesc*> SlurmView::JobArray(int64_t job, uint8_t kind) {
  const std::string name = L::JobArrayName(job, ArrayKind(kind));
  const ArrayDesc* a = reader_.store().catalogue().Find(name);
  if (a == nullptr) return static_cast<const ArrayDesc*>(nullptr);
  if (!(a->schema == SchemaOf(kind))) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: array {} is not this version's Slurm layout (made by an older xtfq, before the "
                             "samples' interval field); re-import the profiles",
                             reader_.store().name(), name));
  }
  return a;
}

Result<std::optional<std::pair<int64_t, int64_t>>> SlurmView::Span(const std::vector<char>& selected) {
  std::set<std::pair<int64_t, uint8_t>> arrays;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const SlurmSeries& s : series_) {
    if (!selected.empty() && !selected[s.id]) continue;
    if (s.duplicate() || ArrayKind(s.kind).empty()) continue;
    if (s.start != INT64_MIN) lo = std::min(lo, s.start);
    arrays.emplace(s.job, s.kind);
  }
  for (const auto& [job, kind] : arrays) {
    XTFQ_ASSIGN_OR_RETURN(const ArrayDesc* a, JobArray(job, kind));
    if (a == nullptr || a->record_count() == 0) continue;
    XTFQ_ASSIGN_OR_RETURN(TimeFrame f, reader_.Frame(*a));
    lo = std::min(lo, f.first), hi = std::max(hi, f.last);
  }
  if (hi == INT64_MIN) return std::optional<std::pair<int64_t, int64_t>>();
  return std::optional<std::pair<int64_t, int64_t>>(std::make_pair(lo, hi));
}

}  // namespace xtfq
