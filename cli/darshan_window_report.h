// DarshanWindowReport: renders a DarshanWindowAnswer (`xtfq query STORE` on a store of Darshan
// logs) as text, CSV or JSON (docs/cli.md, "query on Darshan logs"). Everything it prints is
// computed in query/darshan/DarshanWindowQuery; JSON is query/answers/ResultJson's.
//
// Thread-safety: stateless.
#pragma once

#include <string>

#include "query/darshan/darshan_window_query.h"

namespace xtfq::cli {

class DarshanWindowReport {
 public:
  // format: text, csv or json.
  static std::string Render(const DarshanWindowAnswer& answer, const std::string& format);
};

}  // namespace xtfq::cli
