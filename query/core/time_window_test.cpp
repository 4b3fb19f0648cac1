// TimeWindow and ProcessWindow: every form of --time and --ranks against hand-computed native
// values, in the frames of the three kinds of store, and the usage errors.
#include "query/core/time_window.h"

#include <doctest/doctest.h>

#include "query/core/process_window.h"

namespace xtfq {
namespace {

constexpr int64_t kS = 1000000000;  // ns per second
// A Darshan job that started at 2026-01-01T00:00:00Z (1767225600) and ran 3600 s.
const TimeFrame kDarshan = TimeFrame::Darshan(1767225600, int64_t{3600} * kS);
// job_stats collections from 1767225600 to 1767232800 (two hours).
const TimeFrame kJobStats = TimeFrame::JobStats(1767225600, 1767232800);
// Events with times 1000..1999 ns.
const TimeFrame kRaw = TimeFrame::Raw(1000, 1999);

std::pair<int64_t, int64_t> W(std::string_view text, const TimeFrame& f) {
  auto w = TimeWindow::Parse(text, f);
  REQUIRE_MESSAGE(w.ok(), text << ": " << (w.ok() ? std::string() : w.error().message()));
  return {w->lo, w->hi};
}

std::string Refused(std::string_view text, const TimeFrame& f) {
  auto w = TimeWindow::Parse(text, f);
  REQUIRE_MESSAGE(!w.ok(), text << " parsed");
  CHECK(w.error().code() == ErrorCode::kUsage);
  return w.error().message();
}

using P = std::pair<int64_t, int64_t>;

TEST_CASE("query: time windows in a Darshan frame are ns from the job start") {
  CHECK(W("1000:2000", kDarshan) == P{1000 * kS, 2000 * kS});
  CHECK(W("0.5:1.25", kDarshan) == P{kS / 2, 1250000000});
  CHECK(W("90s:15m", kDarshan) == P{90 * kS, 900 * kS});
  CHECK(W("1h:2h", kDarshan) == P{3600 * kS, 7200 * kS});
  CHECK(W("3us:250ms", kDarshan) == P{3000, 250000000});
  CHECK(W("1500ns:1d", kDarshan) == P{1500, 86400 * kS});
  // Percentages of the run [0, 3600 s]; 100% takes the last instant in.
  CHECK(W("25%:50%", kDarshan) == P{900 * kS, 1800 * kS});
  CHECK(W("0%:100%", kDarshan).second == 3600 * kS + 1);
  // Wall clock: ISO 8601 and @epoch, relative to the job's start.
  CHECK(W("2026-01-01T00:10:00Z:2026-01-01T00:20:00Z", kDarshan) == P{600 * kS, 1200 * kS});
  CHECK(W("2026-01-01T00:10:00.5:@1767226800", kDarshan) == P{600 * kS + kS / 2, 1200 * kS});
  // Open ends.
  CHECK(W(":", kDarshan) == P{INT64_MIN, INT64_MAX});
  CHECK(W(":60", kDarshan) == P{INT64_MIN, 60 * kS});
  CHECK(W("60:", kDarshan) == P{60 * kS, INT64_MAX});
  // T:T is the empty window; negative times are before the job's start.
  CHECK(W("5:5", kDarshan) == P{5 * kS, 5 * kS});
  CHECK(W("-10:0", kDarshan) == P{-10 * kS, 0});
}

TEST_CASE("query: time windows in a job_stats frame are epoch seconds") {
  CHECK(W("1767225600:1767229200", kJobStats) == P{1767225600, 1767229200});
  CHECK(W("1767225600.9:1767229200", kJobStats).first == 1767225600);  // whole seconds, floored
  CHECK(W("2026-01-01T00:30:00Z:2026-01-01T01:30:00Z", kJobStats) == P{1767227400, 1767231000});
  CHECK(W("2026-01-01T00:30:00:2026-01-01T01:30:00", kJobStats) == P{1767227400, 1767231000});
  // Durations from the first collection; percentages of first..last collection.
  CHECK(W("30m:90m", kJobStats) == P{1767225600 + 1800, 1767225600 + 5400});
  CHECK(W("50%:", kJobStats).first == 1767225600 + 3600);
  CHECK(W("@1767225600:@1767225700", kJobStats) == P{1767225600, 1767225700});
}

TEST_CASE("query: time windows of a raw array are its time field's values") {
  CHECK(W("1000000:50000000", kRaw) == P{1000000, 50000000});
  CHECK(W("-5:7", kRaw) == P{-5, 7});
  CHECK(W("1500ns:2us", kRaw) == P{1500, 2000});  // ns arrays take units
  CHECK(W("0%:100%", kRaw) == P{1000, 2000});     // first record to one past the last
  CHECK(W("50%:", kRaw).first == 1500);
  CHECK(Refused("1.5:7", kRaw).find("integers") != std::string::npos);
  CHECK(Refused("2026-01-01T00:00:00Z:", kRaw).find("no wall clock") != std::string::npos);
  CHECK(Refused("@1767225600:", kRaw).find("no wall clock") != std::string::npos);
  const TimeFrame seconds = TimeFrame::Raw(0, 100, false);  // a job_stats array read raw: no unit
  CHECK(Refused("90s:", seconds).find("no unit") != std::string::npos);
  CHECK(W("10:20", seconds) == P{10, 20});
}

TEST_CASE("query: malformed or reversed time windows are usage errors") {
  CHECK(Refused("5:3", kDarshan).find("the start is after the end") != std::string::npos);
  CHECK(Refused("2h:1h", kJobStats).find("the start is after the end") != std::string::npos);
  CHECK(Refused("100", kDarshan).find("expected T1:T2") != std::string::npos);
  CHECK(Refused("abc:5", kDarshan).find("'abc' is not a time") != std::string::npos);
  CHECK(Refused("5:10parsecs", kDarshan).find("is not a time") != std::string::npos);
  CHECK(Refused("120%:", kDarshan).find("0% to 100%") != std::string::npos);
  CHECK(Refused("nan:5", kDarshan).find("is not a time") != std::string::npos);
  CHECK(Refused("inf:", kJobStats).find("is not a time") != std::string::npos);
  CHECK(Refused("1e12:", kDarshan).find("out of range") != std::string::npos);
  CHECK(Refused("2026-13-01T00:00:00Z:", kJobStats).find("is not a time") != std::string::npos);
  CHECK(Refused("", kDarshan).find("expected T1:T2") != std::string::npos);
}

TEST_CASE("query: a single time is read as one side of a window") {
  auto t = TimeWindow::ParsePoint("90s", kDarshan);
  REQUIRE(t.ok());
  CHECK(*t == 90 * kS);
  CHECK(!TimeWindow::ParsePoint("", kRaw).ok());
  CHECK(TimeWindow::ParseIso8601("2026-01-01T00:00:01Z") == 1767225601.0);
  CHECK(!TimeWindow::ParseIso8601("2026-01-01 00:00:01").has_value());
  CHECK(!TimeWindow::ParseIso8601("2026-01-01T00:00:01+02:00").has_value());
}

TEST_CASE("query: process windows are half-open integer ranges") {
  auto r = ProcessWindow::Parse("8:24");
  REQUIRE(r.ok());
  CHECK(r->lo == 8);
  CHECK(r->hi == 24);
  CHECK(ProcessWindow::Parse(":").value().all());
  CHECK(ProcessWindow::Parse(":-1").value().hi == -1);
  CHECK(ProcessWindow::Parse("3:").value().hi == INT64_MAX);
  for (const char* bad : {"5:3", "a:b", "5", "1.5:3", "3:4:5"}) {
    CAPTURE(bad);
    auto e = ProcessWindow::Parse(bad);
    REQUIRE(!e.ok());
    CHECK(e.error().code() == ErrorCode::kUsage);
  }
}

}  // namespace
}  // namespace xtfq
