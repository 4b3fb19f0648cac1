#include "query/darshan/darshan_file_filter.h"

#include <fnmatch.h>

namespace xtfq {

std::unordered_set<uint64_t> DarshanFileFilter::Match(const std::unordered_map<uint64_t, std::string>& names,
                                                      const std::string& glob) {
  std::unordered_set<uint64_t> ids;
  for (const auto& [id, name] : names) {
    if (fnmatch(glob.c_str(), name.c_str(), 0) == 0) ids.insert(id);
  }
  return ids;
}

}  // namespace xtfq
