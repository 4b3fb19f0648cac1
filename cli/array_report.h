// ArrayReport: renders a raw array's answers: an ArrayWindowAnswer (query/arrays/) as text (a line
// per aggregate field, a block per bucket) or JSON (ResultJson), and a record of search and next as
// text (its fields as name=value).
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "query/arrays/array_window_query.h"

namespace xtfq::cli {

class ArrayReport {
 public:
  static std::string Window(const ArrayWindowAnswer& a, bool json);
  static std::string Record(const Schema& schema, const std::byte* record);

 private:
  static std::string Stats(const ArrayWindowStats& s);
};

}  // namespace xtfq::cli
