// StoreKind: the kinds a catalogue holds by their marker arrays, and the kind each request is
// answered as, with the usage errors `xtfq query` has always given (the messages written out here).
#include "query/core/store_kind.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace xtfq {
namespace {

Catalogue With(const std::vector<std::string>& names) {
  Catalogue c;
  for (const std::string& n : names) {
    ArrayDesc a;
    a.name = n;
    c.arrays.push_back(a);
  }
  return c;
}

StoreKind Kind(const StoreContents& held, KindRequest request = {}) {
  Result<StoreKind> k = ChooseKind(held, request, "s.xtfq");
  REQUIRE_MESSAGE(k.ok(), k.error().message());
  return *k;
}

std::string Refusal(const StoreContents& held, KindRequest request) {
  Result<StoreKind> k = ChooseKind(held, request, "s.xtfq");
  REQUIRE_FALSE(k.ok());
  CHECK(k.error().code() == ErrorCode::kUsage);
  return k.error().message();
}

TEST_CASE("store kind: the marker arrays say what a store holds") {
  const StoreContents none = StoreContents::Of(With({"events", "darshan/0/DXT_POSIX.read"}));
  CHECK_FALSE(none.darshan);
  CHECK_FALSE(none.jobstats);
  CHECK_FALSE(none.slurm);
  CHECK(none.Held().empty());
  const StoreContents all = StoreContents::Of(With({"slurm.series", "jobstats.collections", "darshan.logs"}));
  CHECK(all.darshan);
  CHECK(all.jobstats);
  CHECK(all.slurm);
  CHECK(all.Held() == std::vector<StoreKind>{StoreKind::kDarshan, StoreKind::kJobStats, StoreKind::kSlurm});
}

TEST_CASE("store kind: Darshan logs before job_stats before Slurm profiles before raw arrays") {
  CHECK(Kind({true, true, true}) == StoreKind::kDarshan);
  CHECK(Kind({false, true, true}) == StoreKind::kJobStats);
  CHECK(Kind({false, false, true}) == StoreKind::kSlurm);
  CHECK(Kind({}) == StoreKind::kRaw);
  CHECK(Kind({true, true, true}, {.array = true}) == StoreKind::kRaw);
  CHECK(Kind({true, true, true}, {.jobstats = true}) == StoreKind::kJobStats);
  CHECK(Kind({true, true, true}, {.slurm = true}) == StoreKind::kSlurm);
  CHECK(StoreKindName(StoreKind::kRaw) == "a raw array");
  CHECK(StoreKindName(StoreKind::kJobStats) == "job_stats");
}

TEST_CASE("store kind: a request for a kind the store lacks, or for two kinds, is a usage error") {
  CHECK(Refusal({true, false, false}, {.jobstats = true}) ==
        "--jobstats: s.xtfq holds no job_stats (it holds Darshan logs)");
  CHECK(Refusal({}, {.jobstats = true}) == "--jobstats: s.xtfq holds no job_stats");
  CHECK(Refusal({true, true, false}, {.slurm = true}) == "--slurm: s.xtfq holds no Slurm profiles");
  CHECK(Refusal({true, true, true}, {.jobstats = true, .slurm = true}) == "--jobstats and --slurm: give one");
  CHECK(Refusal({}, {.array = true, .slurm = true}) == "--array reads one array: leave out --jobstats and --slurm");
}

}  // namespace
}  // namespace xtfq
