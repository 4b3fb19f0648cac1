#include "query/core/store_kind.h"

#include <fmt/format.h>

#include "layouts/darshan_layout.h"
#include "layouts/jobstats_layout.h"
#include "layouts/slurm_layout.h"

namespace xtfq {

std::string_view StoreKindName(StoreKind kind) {
  switch (kind) {
    case StoreKind::kDarshan:
      return "Darshan logs";
    case StoreKind::kJobStats:
      return "job_stats";
    case StoreKind::kSlurm:
      return "Slurm profiles";
    case StoreKind::kRaw:
      return "a raw array";
  }
  return "a raw array";
}

StoreContents StoreContents::Of(const Catalogue& catalogue) {
  StoreContents c;
  c.darshan = catalogue.Find(DarshanLayout::kLogs) != nullptr;
  c.jobstats = catalogue.Find(JobStatsLayout::kCollections) != nullptr;
  c.slurm = catalogue.Find(SlurmLayout::kSeries) != nullptr;
  return c;
}

std::vector<StoreKind> StoreContents::Held() const {
  std::vector<StoreKind> out;
  if (darshan) out.push_back(StoreKind::kDarshan);
  if (jobstats) out.push_back(StoreKind::kJobStats);
  if (slurm) out.push_back(StoreKind::kSlurm);
  return out;
}

StoreKind StoreContents::Default() const {
  const std::vector<StoreKind> held = Held();
  return held.empty() ? StoreKind::kRaw : held.front();
}

Result<StoreKind> ChooseKind(const StoreContents& contents, const KindRequest& request, std::string_view store) {
  if (request.array) {
    if (request.jobstats || request.slurm)
      return Error(ErrorCode::kUsage, "--array reads one array: leave out --jobstats and --slurm");
    return StoreKind::kRaw;
  }
  if (request.jobstats && request.slurm) return Error(ErrorCode::kUsage, "--jobstats and --slurm: give one");
  if (request.slurm) {
    if (!contents.slurm) return Error(ErrorCode::kUsage, fmt::format("--slurm: {} holds no Slurm profiles", store));
    return StoreKind::kSlurm;
  }
  if (request.jobstats) {
    if (!contents.jobstats) {
      return Error(ErrorCode::kUsage, fmt::format("--jobstats: {} holds no job_stats{}", store,
                                                  contents.darshan ? " (it holds Darshan logs)" : ""));
    }
    return StoreKind::kJobStats;
  }
  return contents.Default();
}

}  // namespace xtfq
