// ReadTruthCsv: the rows of a ground-truth CSV file the generators write (truth_steps.csv,
// truth_series.csv: plain comma-separated fields, no quoting), without its header line; a line
// that ends with a comma has an empty last field.
//
// Thread-safety: test code.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace xtfq::test {

inline std::vector<std::vector<std::string>> ReadTruthCsv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (!line.empty() && line.back() == ',') f.emplace_back();
    rows.push_back(f);
  }
  return rows;
}

}  // namespace xtfq::test
