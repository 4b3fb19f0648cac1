// ParseNumber: a whole string_view as a number, for the text importers (darshan-parser output,
// job_stats, job ids): integers by std::from_chars, doubles by from_chars or else strtod (which
// accepts what printf("%f") prints, including "-nan" and "inf"). False for an empty or partly numeric text.
//
// Thread-safety: pure functions.
#pragma once

#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>

namespace xtfq {

template <class T>
bool ParseNumber(std::string_view s, T& out) {
  if (s.empty()) return false;
  if constexpr (std::is_same_v<T, double>) {
    // from_chars first (no copy; correctly rounded, as strtod is); strtod for what it alone takes
    // (a leading '+', hexadecimal).
    if (auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        ec == std::errc() && p == s.data() + s.size())
      return true;
    const std::string z(s);
    char* end = nullptr;
    out = std::strtod(z.c_str(), &end);
    return end == z.c_str() + z.size();
  } else {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
  }
}

}  // namespace xtfq
