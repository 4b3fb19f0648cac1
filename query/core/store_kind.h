// StoreKind: the one answer to "what kind of store is this" (docs/architecture.md, "Kinds of
// store"). A store may hold Darshan logs, job_stats, Slurm profiles and raw arrays at once; a
// question that does not name its kind is answered as the first kind the store holds in the order
// Darshan logs, job_stats, Slurm profiles, raw arrays. `--array` asks for a raw array; `--jobstats`
// and `--slurm` ask for their kind, which the store must hold. Decided from the catalogue alone (no
// data page is read): the marker array of each kind (darshan.logs, jobstats.collections,
// slurm.series).
//
// Thread-safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/catalogue.h"
#include "store/result.h"

namespace xtfq {

enum class StoreKind : uint8_t { kDarshan = 0, kJobStats = 1, kSlurm = 2, kRaw = 3 };

// What a question of the kind reads: "Darshan logs", "job_stats", "Slurm profiles", "a raw array".
std::string_view StoreKindName(StoreKind kind);

// The kinds of data a store holds.
struct StoreContents {
  bool darshan = false;   // darshan.logs
  bool jobstats = false;  // jobstats.collections
  bool slurm = false;     // slurm.series

  static StoreContents Of(const Catalogue& catalogue);
  // Every kind held but raw arrays, in the order of precedence.
  std::vector<StoreKind> Held() const;
  // The kind a question that names none is answered as: the first held, else raw arrays.
  StoreKind Default() const;
};

// What a question asks for: a raw array by name (--array), or job_stats or Slurm profiles by flag.
struct KindRequest {
  bool array = false;
  bool jobstats = false;
  bool slurm = false;
};

// The kind a question is answered as. kUsage when the flags contradict each other or ask for a kind
// the store (named `store` in the message) does not hold.
Result<StoreKind> ChooseKind(const StoreContents& contents, const KindRequest& request, std::string_view store);

}  // namespace xtfq
