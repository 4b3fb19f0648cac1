// Printing of records and summaries for the reading commands, as text or JSON.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "query/primitives.h"

namespace xtfq::cli {

nlohmann::json RecordJson(const Schema& schema, const std::byte* record);
std::string RecordText(const Schema& schema, const std::byte* record);
// count, and per aggregate field: sum, min, max, mean and standard deviation (population).
nlohmann::json SummaryJson(const Schema& schema, const Summary& s);
std::string SummaryText(const Schema& schema, const Summary& s);

}  // namespace xtfq::cli
