// GridReport: renders a GridAnswer (query/answers/grid_answer.h) as text (a matrix per metric, rows down,
// columns across, with the window, the source and what a cell counts), CSV (one line per cell) or
// its JSON (query/answers/ResultJson).
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "query/answers/grid_answer.h"

namespace xtfq::cli {

class GridReport {
 public:
  static std::string Render(const GridAnswer& answer, const std::string& format);

 private:
  static std::string Text(const GridAnswer& answer);
  static std::string Csv(const GridAnswer& answer);
};

}  // namespace xtfq::cli
