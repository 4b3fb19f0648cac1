// DarshanModuleTables: what darshan-parser prints for each module besides the values: the counter
// names in print order (for the current record version of each fixed-size module; older versions
// are up-converted to it) and the description block before the records, per record version.
// The tables are generated from darshan-parser's output by scripts/darshan_text_tables.py; the
// descriptions of versions no corpus log holds (POSIX 2, H5F 1-2, PNETCDF_FILE 1-2, BG/Q 1) are
// composed there from the version warnings of darshan-util's print_description functions, a
// composition the script checks against every version the corpus does hold.
//
// Thread-safety: immutable after first use.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace xtfq {

class DarshanModuleTables {
 public:
  struct Counters {
    std::string_view module;  // as printed: "POSIX", "MPI-IO", "BG/Q", ...
    uint32_t version;         // the record version these names belong to
    std::vector<std::string_view> names;
  };
  struct Description {
    std::string_view module;
    uint32_t version;
    std::string_view text;  // from the blank line after the banner to the line before "#<module>"
  };
  static const std::vector<Counters>& CounterNames();
  static const std::vector<Description>& Descriptions();
};

}  // namespace xtfq
