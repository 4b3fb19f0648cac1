#include "query/core/time_window.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <ctime>

namespace xtfq {

namespace {

constexpr double kMaxSeconds = 9e9;  // ~285 years: past that, ns overflow int64

Error Usage(std::string message) { return Error(ErrorCode::kUsage, std::move(message)); }

std::optional<double> Number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  const std::string text(s);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  // strtod takes "inf", "nan", hex and leading spaces; the syntax is decimal only.
  if (text.find_first_not_of("0123456789.+-eE") != std::string::npos) return std::nullopt;
  return v;
}

std::optional<double> UnitSeconds(std::string_view unit) {
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"m", 60.0}, {"h", 3600.0}, {"d", 86400.0}};
  for (const auto& [name, secs] : kUnits) {
    if (unit == name) return secs;
  }
  return std::nullopt;
}

// Native value of `seconds` after the frame's origin (Darshan: the job's start = 0 ns; job_stats:
// the first collection; raw ns: time 0).
Result<int64_t> FromOrigin(double seconds, const TimeFrame& f, std::string_view side) {
  if (std::fabs(seconds) > kMaxSeconds) return Usage(fmt::format("'{}' is out of range", side));
  switch (f.kind) {
    case TimeFrameKind::kDarshan:
      return static_cast<int64_t>(std::llround(seconds * 1e9));
    case TimeFrameKind::kJobStats:
      return f.first + static_cast<int64_t>(std::floor(seconds));
    case TimeFrameKind::kRaw:
      if (!f.raw_ns) return Usage(fmt::format("'{}': this array's time field has no unit; give plain numbers", side));
      return static_cast<int64_t>(std::llround(seconds * 1e9));
  }
  return Usage("unknown time frame");
}

// Native value of an epoch time in seconds.
Result<int64_t> FromEpoch(double epoch, const TimeFrame& f, std::string_view side) {
  switch (f.kind) {
    case TimeFrameKind::kDarshan:
      return FromOrigin(epoch - static_cast<double>(f.epoch_origin), f, side);
    case TimeFrameKind::kJobStats:
      if (std::fabs(epoch) > kMaxSeconds) return Usage(fmt::format("'{}' is out of range", side));
      return static_cast<int64_t>(std::floor(epoch));
    case TimeFrameKind::kRaw:
      break;
  }
  return Usage(fmt::format("'{}' is a wall-clock time, and a raw array has no wall clock: give its time unit ({})",
                           side, f.UnitName()));
}

}  // namespace

TimeFrame TimeFrame::Darshan(int64_t job_start_epoch, int64_t run_ns) {
  TimeFrame f;
  f.kind = TimeFrameKind::kDarshan, f.first = 0, f.last = std::max<int64_t>(run_ns, 0),
  f.epoch_origin = job_start_epoch;
  return f;
}

TimeFrame TimeFrame::JobStats(int64_t first_epoch, int64_t last_epoch) {
  TimeFrame f;
  f.kind = TimeFrameKind::kJobStats, f.first = first_epoch, f.last = last_epoch;
  return f;
}

TimeFrame TimeFrame::Raw(int64_t first, int64_t last, bool ns) {
  TimeFrame f;
  f.kind = TimeFrameKind::kRaw, f.first = first, f.last = last, f.raw_ns = ns;
  return f;
}

std::string_view TimeFrame::UnitName() const {
  switch (kind) {
    case TimeFrameKind::kDarshan:
      return "seconds from the job's start";
    case TimeFrameKind::kJobStats:
      return "epoch seconds";
    case TimeFrameKind::kRaw:
      return raw_ns ? "ns" : "the time field's values";
  }
  return "?";
}

std::optional<double> TimeWindow::ParseIso8601(std::string_view text) {
  const std::string s(text);
  std::tm tm{};
  int sec = 0, used = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &sec, &used) != 6 ||
      used != 19) {
    return std::nullopt;
  }
  double fraction = 0;
  std::string_view rest = text.substr(19);
  if (rest.starts_with(".")) {
    size_t n = 1;
    while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') ++n;
    if (n == 1) return std::nullopt;
    fraction = std::strtod(std::string(rest.substr(0, n)).c_str(), nullptr);
    rest.remove_prefix(n);
  }
  if (!(rest.empty() || rest == "Z")) return std::nullopt;
  if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      sec > 60) {
    return std::nullopt;
  }
  tm.tm_year -= 1900, tm.tm_mon -= 1, tm.tm_sec = sec;
  return static_cast<double>(timegm(&tm)) + fraction;
}

Result<int64_t> TimeWindow::ParsePoint(std::string_view side, const TimeFrame& f) {
  if (side.empty()) return Usage("an empty time");
  // P%: a share of the run's span [first, last], 100% taking the last instant in.
  if (side.back() == '%') {
    const auto p = Number(side.substr(0, side.size() - 1));
    if (!p || *p < 0 || *p > 100) return Usage(fmt::format("'{}': a percentage is 0% to 100% of the run", side));
    const double span = static_cast<double>(f.last) - static_cast<double>(f.first) + 1;
    return f.first + static_cast<int64_t>(std::floor(*p / 100.0 * span));
  }
  if (side.front() == '@') {
    const auto e = Number(side.substr(1));
    if (!e) return Usage(fmt::format("'{}': @ takes epoch seconds", side));
    return FromEpoch(*e, f, side);
  }
  if (auto iso = ParseIso8601(side)) return FromEpoch(*iso, f, side);
  // A plain number, in the store's own unit.
  if (auto v = Number(side)) {
    switch (f.kind) {
      case TimeFrameKind::kDarshan:
        return FromOrigin(*v, f, side);
      case TimeFrameKind::kJobStats:
        return FromEpoch(*v, f, side);
      case TimeFrameKind::kRaw: {
        int64_t out = 0;
        auto [p, ec] = std::from_chars(side.data(), side.data() + side.size(), out);
        if (ec != std::errc() || p != side.data() + side.size()) {
          return Usage(fmt::format("'{}': a raw array's times are integers ({})", side, f.UnitName()));
        }
        return out;
      }
    }
  }
  // N<unit>: a duration from the run's origin.
  size_t digits = side.size();
  while (digits > 0 && std::isalpha(static_cast<unsigned char>(side[digits - 1]))) --digits;
  if (digits > 0 && digits < side.size()) {
    const auto v = Number(side.substr(0, digits));
    const auto unit = UnitSeconds(side.substr(digits));
    if (v && unit) return FromOrigin(*v * *unit, f, side);
  }
  return Usage(
      fmt::format("'{}' is not a time: give {}, a duration with a unit (90s, 15m, 2h), a percentage of the run (33%), "
                  "@epoch seconds or ISO 8601 (2026-01-01T00:00:00Z)",
                  side, f.UnitName()));
}

Result<TimeWindow> TimeWindow::Parse(std::string_view text, const TimeFrame& f) {
  // ISO stamps hold colons themselves: try each ':' as the separator; the first where both sides
  // parse wins. The message keeps the most telling error: one that says why a time cannot be
  // placed rather than that a piece of an ISO stamp is no time.
  std::optional<Error> first_error;
  auto keep = [&](const Error& e) {
    const bool generic = e.message().find("' is not a time: give") != std::string::npos;
    if (!first_error || (!generic && first_error->message().find("' is not a time: give") != std::string::npos))
      first_error = e;
  };
  for (size_t p = text.find(':'); p != std::string_view::npos; p = text.find(':', p + 1)) {
    const std::string_view a = text.substr(0, p), b = text.substr(p + 1);
    TimeWindow w;
    // One side: empty (open) or a time; false (and the reason kept) when it is neither.
    auto side = [&](std::string_view text_side, int64_t& out) {
      if (text_side.empty()) return true;
      auto t = ParsePoint(text_side, f);
      if (!t.ok()) keep(t.error());
      if (t.ok()) out = *t;
      return t.ok();
    };
    if (!side(a, w.lo) || !side(b, w.hi)) continue;
    if (w.lo > w.hi) return Usage(fmt::format("--time '{}': the start is after the end", text));
    return w;
  }
  if (text.find(':') == std::string_view::npos) {
    return Usage(fmt::format("--time '{}': expected T1:T2 ({}; either side may be empty)", text, f.UnitName()));
  }
  return Usage(fmt::format("--time '{}': {}", text, first_error->message()));
}

}  // namespace xtfq
