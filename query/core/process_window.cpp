#include "query/core/process_window.h"

#include <fmt/format.h>

#include <charconv>

namespace xtfq {

Result<ProcessWindow> ProcessWindow::Parse(std::string_view text, std::string_view what) {
  const size_t colon = text.find(':');
  auto bad = [&] {
    return Error(ErrorCode::kUsage,
                 fmt::format("{} '{}': expected A:B with integers (half-open; either side may be empty)", what, text));
  };
  if (colon == std::string_view::npos) return bad();
  ProcessWindow r;
  auto parse = [](std::string_view s, int64_t& out) {
    if (s.empty()) return true;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
  };
  if (!parse(text.substr(0, colon), r.lo) || !parse(text.substr(colon + 1), r.hi)) return bad();
  if (r.lo > r.hi) return Error(ErrorCode::kUsage, fmt::format("{} '{}': the start is after the end", what, text));
  return r;
}

}  // namespace xtfq
