// DarshanFileFilter: the record ids of a log's files whose names match a shell glob (fnmatch(3),
// no flags: `*` also crosses '/'), for `--file GLOB`.
//
// Thread-safety: pure function.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace xtfq {

class DarshanFileFilter {
 public:
  static std::unordered_set<uint64_t> Match(const std::unordered_map<uint64_t, std::string>& names,
                                            const std::string& glob);
};

}  // namespace xtfq
