#include "cli/progress_bar.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace xtfq::cli {

namespace {

// 1234567 B -> "1.23 MB"; other units as they are.
std::string Amount(double v, std::string_view unit) {
  if (unit != "B") return fmt::format("{:.0f} {}", v, unit);
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int k = 0;
  while (v >= 1000 && k < 4) v /= 1000, ++k;
  return k == 0 ? fmt::format("{:.0f} B", v) : fmt::format("{:.3g} {}", v, units[k]);
}

std::string HoursMinutes(double seconds) {
  const auto s = static_cast<int64_t>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

ProgressBar::ProgressBar(std::string command, bool enabled) : command_(std::move(command)), enabled_(enabled) {}

bool ProgressBar::StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

std::string ProgressBar::Line(std::string_view command, std::string_view phase, uint64_t done, uint64_t total,
                              std::string_view unit, double rate) {
  std::string out = fmt::format("{}: {}", command, phase);
  if (total > 0) {
    constexpr int kWidth = 20;
    const double share = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
    const int full = static_cast<int>(share * kWidth);
    out += fmt::format("  [{}{}] {:3.0f}%", std::string(static_cast<size_t>(full), '#'),
                       std::string(static_cast<size_t>(kWidth - full), '-'), share * 100);
    if (unit != "B") out += fmt::format("  {} of {} {}", done, total, unit);
  } else {
    out += fmt::format("  {}", Amount(static_cast<double>(done), unit));
  }
  if (rate > 0 && unit == "B") out += fmt::format("  {}/s", Amount(rate, unit));
  if (rate > 0 && total > done) out += fmt::format("  ETA {}", HoursMinutes(static_cast<double>(total - done) / rate));
  return out;
}

void ProgressBar::Update(std::string_view phase, uint64_t done, uint64_t total, std::string_view unit) {
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  // A phase is the text before any " (k of n)": the rate runs over all the inputs read.
  const std::string_view base = phase.substr(0, phase.find(" ("));
  if (base != std::string_view(phase_).substr(0, phase_.find(" ("))) phase_start_ = now, phase_done0_ = done;
  phase_ = std::string(phase);
  if (now - start_ < std::chrono::seconds(2) || now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  const double secs = std::chrono::duration<double>(now - phase_start_).count();
  const double rate = secs > 0.5 && done > phase_done0_ ? static_cast<double>(done - phase_done0_) / secs : 0;
  fmt::print(stderr, "\r{}\x1b[K", Line(command_, phase_, done, total, unit, rate));
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::Finish() {
  if (!drawn_) return;
  fmt::print(stderr, "\r\x1b[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace xtfq::cli
