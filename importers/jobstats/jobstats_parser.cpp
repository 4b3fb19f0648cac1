#include "importers/jobstats/jobstats_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unordered_map>

#include "importers/common/line_reader.h"
#include "importers/common/text_number.h"

namespace xtfq {

namespace {

[[gnu::always_inline]] inline std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool ParseU64(std::string_view s, uint64_t& out) { return ParseNumber(Trim(s), out); }

bool ParseSeconds(std::string_view s, double& out) {
  s = Trim(s);
  if (s.ends_with("secs.nsecs")) s = Trim(s.substr(0, s.size() - 10));
  return ParseNumber(s, out);
}

// Calls fn with each trimmed, non-empty item of `s` between commas; stops at fn's first message.
template <class Fn>
std::optional<std::string> EachItem(std::string_view s, const Fn& fn) {
  for (size_t at = 0; at < s.size();) {
    size_t comma = s.find(',', at);
    if (comma == std::string_view::npos) comma = s.size();
    const std::string_view item = Trim(s.substr(at, comma - at));
    at = comma + 1;
    if (item.empty()) continue;
    if (auto m = fn(item)) return m;
  }
  return std::nullopt;
}

int64_t Balance(std::string_view s) {
  int64_t b = 0;
  for (char c : s) b += c == '{' ? 1 : c == '}' ? -1 : 0;
  return b;
}

// Whether a line of job_stats text opens a new entry or leaves the current target: where a
// counter whose '{' was never closed ends at the latest.
// The parameter of an `lctl get_param` line "param=value" (no space, tab or ':' before the '='),
// else nullopt.
std::optional<std::string_view> FramingParam(std::string_view l) {
  if (l.empty() || l.front() == ' ' || l.front() == '-') return std::nullopt;
  const size_t eq = l.find('='), sp = l.find_first_of(" \t:");
  if (eq == std::string_view::npos || (sp != std::string_view::npos && sp < eq)) return std::nullopt;
  return l.substr(0, eq);
}

// The target a job_stats parameter names ("obdfilter.scratch-OST0000.job_stats"), else nullopt.
std::optional<std::string> StatsTarget(std::string_view param) {
  if (!param.ends_with(".job_stats")) return std::nullopt;
  const size_t dot = param.find('.');
  return dot == std::string_view::npos ? std::string()
                                       : std::string(param.substr(dot + 1, param.size() - 10 - dot - 1));
}

bool StartsEntry(std::string_view trimmed) { return trimmed.starts_with("- job_id:") || trimmed == "- job_id"; }

bool StartsEntryOrTarget(std::string_view l, std::string_view trimmed) {
  return StartsEntry(trimmed) || trimmed == "job_stats:" || FramingParam(l).has_value();
}

// "op: { samples: N, unit: U, min: A, max: B, sum: C, sumsq: D, hist: { 4K: 1, ... } }".
std::optional<std::string> ParseCounter(std::string_view text, JobStatsCounter& c) {
  const size_t colon = text.find(':'), open = text.find('{');
  if (colon == std::string_view::npos || open == std::string_view::npos || open < colon)
    return "a counter line without 'name: {'";
  c = JobStatsCounter{};
  c.op = std::string(Trim(text.substr(0, colon)));
  if (c.op.empty() || c.op.find(' ') != std::string::npos) return "a counter without a name";
  const size_t close = text.rfind('}');
  if (close == std::string_view::npos || close < open) return "a counter without its closing '}'";
  std::string_view body = text.substr(open + 1, close - open - 1);
  // The histogram first (it has commas of its own); the rest is "key: value" pairs around it.
  std::string_view before = body, after;
  if (const size_t h = body.find("hist:"); h != std::string_view::npos) {
    const size_t ho = body.find('{', h), hc = body.find('}', h);
    if (ho == std::string_view::npos || hc == std::string_view::npos || hc < ho)
      return "a histogram without its braces";
    auto bucket = [&](std::string_view b) -> std::optional<std::string> {
      const size_t bc = b.find(':');
      uint64_t n = 0;
      if (bc == std::string_view::npos || !ParseU64(b.substr(bc + 1), n))
        return fmt::format("histogram bucket '{}'", b);
      c.hist.emplace_back(std::string(Trim(b.substr(0, bc))), n);
      return std::nullopt;
    };
    const std::string_view buckets = body.substr(ho + 1, hc - ho - 1);
    c.hist.reserve(static_cast<size_t>(std::count(buckets.begin(), buckets.end(), ':')));  // one allocation
    if (auto m = EachItem(buckets, bucket)) return m;
    before = body.substr(0, h);
    after = body.substr(hc + 1);
  }
  bool samples = false;
  auto pair = [&](std::string_view kv) -> std::optional<std::string> {
    const size_t k = kv.find(':');
    if (k == std::string_view::npos) return fmt::format("'{}' is not 'key: value'", kv);
    const std::string_view key = Trim(kv.substr(0, k)), value = Trim(kv.substr(k + 1));
    if (key == "unit") {
      c.unit = std::string(value);
      return std::nullopt;
    }
    uint64_t v = 0;
    if (!ParseU64(value, v)) return fmt::format("{} = '{}' is not an unsigned integer", key, value);
    if (key == "samples")
      c.samples = v, samples = true;
    else if (key == "min")
      c.min = v;
    else if (key == "max")
      c.max = v;
    else if (key == "sum")
      c.sum = v;
    else if (key == "sumsq")
      c.sumsq = v;
    // Other keys of future versions are ignored.
    return std::nullopt;
  };
  for (std::string_view part : {before, after}) {
    if (auto m = EachItem(part, pair)) return m;
  }
  if (!samples) return "a counter without samples";
  return std::nullopt;
}

// The common counter line, read in one pass: `name: { key: N, unit: U, ..., hist: { L: N, ... } }`
// with nothing after its last '}'. Whatever else it meets (a wrapped or malformed line, a number
// that is not plain digits, an empty item, a missing samples) makes it give up, and the line is
// read by ParseCounter, which says what is wrong: so both read a line it takes the same way
// (tests/jobstats_test.cpp compares them).
bool FastCounter(std::string_view t, JobStatsCounter& c) {
  static constexpr auto kNameChar = [] {
    std::array<bool, 256> a{};
    for (int ch = 0; ch < 256; ++ch) {
      a[ch] =
          (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.';
    }
    return a;
  }();
  const char* p = t.data();
  const char* const end = p + t.size();
  // Lustre pads its columns with runs of spaces: eight at a time, then the rest one by one.
  auto spaces = [&] {
    while (end - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      const uint64_t x = w ^ 0x2020202020202020ULL;
      if (x != 0) {
        p += std::countr_zero(x) / 8;
        break;
      }
      p += 8;
    }
    while (p < end && (*p == ' ' || *p == '\t')) ++p;
  };
  auto word = [&]() -> std::string_view {
    const char* w = p;
    while (p < end && kNameChar[static_cast<unsigned char>(*p)]) ++p;
    return {w, static_cast<size_t>(p - w)};
  };
  // Plain digits that fit in 64 bits (what from_chars takes in ParseCounter).
  auto number = [&](uint64_t& v) {
    const char* d = p;
    while (p < end && static_cast<unsigned char>(*p - '0') < 10) ++p;
    if (p == d) return false;
    if (p - d > 19) {  // may not fit
      auto [q, ec] = std::from_chars(d, p, v);
      return ec == std::errc() && q == p;
    }
    v = 0;
    for (; d < p; ++d) v = v * 10 + static_cast<uint64_t>(*d - '0');
    return true;
  };
  // ':' right after the word (ParseCounter finds "hist:" only so), then blanks.
  auto colon = [&] {
    if (p == end || *p != ':') return false;
    ++p;
    spaces();
    return true;
  };
  const std::string_view op = word();
  // (An entry's time keys are read as times, also when a '{' follows: ParseCounter's caller says so.)
  if (op.empty() || op == "snapshot_time" || op == "start_time" || op == "elapsed_time") return false;
  if (!colon() || p == end || *p != '{') return false;
  ++p;
  c.op.assign(op);
  c.samples = 0;
  c.unit.clear();
  c.min.reset(), c.max.reset(), c.sum.reset(), c.sumsq.reset();
  c.hist.clear();
  bool samples = false, hist = false;
  enum class Key { kOther, kSamples, kUnit, kMin, kMax, kSum, kSumsq, kHist };
  auto key_of = [](std::string_view k) {
    switch (k.size()) {
      case 3:
        return k == "min" ? Key::kMin : k == "max" ? Key::kMax : k == "sum" ? Key::kSum : Key::kOther;
      case 4:
        return k == "unit" ? Key::kUnit : k == "hist" ? Key::kHist : Key::kOther;
      case 5:
        return k == "sumsq" ? Key::kSumsq : Key::kOther;
      case 7:
        return k == "samples" ? Key::kSamples : Key::kOther;
      default:
        return Key::kOther;
    }
  };
  for (;;) {
    spaces();
    const Key key = key_of(word());
    if (key == Key::kOther || !colon()) return false;  // a key of a later version: ParseCounter ignores it
    if (key == Key::kUnit) {
      const char* u = p;
      while (p < end && *p != ',' && *p != '}' && *p != '{' && *p != ':') ++p;
      if (p == end || *p == '{' || *p == ':') return false;
      c.unit.assign(Trim(std::string_view(u, static_cast<size_t>(p - u))));
      if (c.unit.empty()) return false;
    } else if (key == Key::kHist) {
      if (hist || p == end || *p != '{') return false;
      hist = true;
      ++p;
      spaces();
      if (p < end && *p == '}') {
        ++p;
      } else {
        for (;;) {
          spaces();
          const std::string_view label = word();
          uint64_t n = 0;
          if (label.empty() || !colon() || !number(n)) return false;
          c.hist.emplace_back(std::string(label), n);
          spaces();
          if (p == end) return false;
          if (*p == '}') {
            ++p;
            break;
          }
          if (*p != ',') return false;
          ++p;
        }
      }
    } else {
      uint64_t v = 0;
      if (!number(v)) return false;
      switch (key) {
        case Key::kSamples:
          c.samples = v, samples = true;
          break;
        case Key::kMin:
          c.min = v;
          break;
        case Key::kMax:
          c.max = v;
          break;
        case Key::kSum:
          c.sum = v;
          break;
        default:
          c.sumsq = v;
          break;
      }
    }
    spaces();
    if (p == end) return false;
    if (*p == '}') break;
    if (*p != ',') return false;
    ++p;
  }
  ++p;
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
  return p == end && samples;
}

}  // namespace

std::optional<double> JobStatsParser::TimeFromName(std::string_view name) {
  if (const size_t slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  if (const size_t dot = name.rfind(".txt"); dot != std::string_view::npos && dot + 4 == name.size())
    name.remove_suffix(4);
  // ISO 8601: the last 'T' with a date before it and a 'Z' at the end.
  if (!name.empty() && name.back() == 'Z') {
    const size_t t = name.rfind('T');
    if (t != std::string_view::npos && t >= 8) {
      std::string digits;
      for (char c : name.substr(t >= 10 && name[t - 3] == '-' ? t - 10 : t - 8)) {
        if (c >= '0' && c <= '9') digits += c;
      }
      if (digits.size() == 14) {
        std::tm tm{};
        tm.tm_year = std::stoi(digits.substr(0, 4)) - 1900, tm.tm_mon = std::stoi(digits.substr(4, 2)) - 1;
        tm.tm_mday = std::stoi(digits.substr(6, 2)), tm.tm_hour = std::stoi(digits.substr(8, 2));
        tm.tm_min = std::stoi(digits.substr(10, 2)), tm.tm_sec = std::stoi(digits.substr(12, 2));
        if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
            tm.tm_sec > 60) {
          return std::nullopt;
        }
        return static_cast<double>(timegm(&tm));
      }
    }
    return std::nullopt;
  }
  // "...-<epoch>": the digits (and a fraction) after the last '-' or '_'.
  const size_t sep = name.find_last_of("-_");
  if (sep == std::string_view::npos) return std::nullopt;
  double v = 0;
  const std::string_view tail = name.substr(sep + 1);
  if (tail.size() < 9 || !ParseSeconds(tail, v) || tail.find_first_not_of("0123456789.") != std::string_view::npos)
    return std::nullopt;
  return v;
}

bool JobStatsParser::CollectedAt(std::string_view line, std::optional<double>* time) {
  if (line.empty() || line.front() != '#') return false;
  const std::string_view c = Trim(line.substr(1));
  if (!c.starts_with("collected_at:")) return false;
  double v = 0;
  *time = ParseSeconds(c.substr(13), v) ? std::optional<double>(v) : std::nullopt;
  return true;
}

std::optional<std::string> JobStatsParser::DecodeJobId(std::string_view text, bool* quoted) {
  text = Trim(text);
  *quoted = text.size() >= 2 && text.front() == '"' && text.back() == '"';
  if (!*quoted) return std::string(text);
  text = text.substr(1, text.size() - 2);
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size() + 0 && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
      unsigned v = 0;
      auto [p, ec] = std::from_chars(text.data() + i + 2, text.data() + i + 4, v, 16);
      if (ec != std::errc() || p != text.data() + i + 4) return std::nullopt;
      out.push_back(static_cast<char>(v));
      i += 3;
    } else if (text[i] == '\\') {
      return std::nullopt;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

Result<std::vector<std::string>> JobStatsParser::Targets(File& in, const std::string& target) {
  // The rules of Parse for `param=` lines, `job_stats:` and entries, without reading the entries.
  LineReader lines(in, size_t{64} << 20);
  std::string_view line;
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  std::string current = target;
  bool in_stats = true;
  for (;;) {
    XTFQ_ASSIGN_OR_RETURN(bool more, lines.Next(line));
    if (!more) break;
    if (line.empty() || line.front() == '#') continue;
    std::string_view l = line;
    if (l.back() == '\r') l.remove_suffix(1);
    if (const auto name = FramingParam(l)) {
      const auto stats = StatsTarget(*name);
      in_stats = stats.has_value();
      if (in_stats) add(current = *stats);
      continue;
    }
    if (!in_stats) continue;
    const std::string_view t = Trim(l);
    if (StartsEntry(t) || (t == "job_stats:" && !target.empty() && out.empty())) add(current);
  }
  return out;
}

namespace {

// A counter line whose '{' is not closed yet, with the lines joined to it so far.
struct WrappedCounter {
  std::string text;       // empty when there is none
  uint64_t line = 0;      // where it starts
  int64_t balance = 0;    // of the '{' and '}' in `text`, counted line by line
  bool too_long = false;  // past kMaxCounterText: counted, no longer kept
};

// What JobStatsParser::Parse carries from one line to the next.
struct JobStatsParseState {
  File& in;
  const std::function<Status(JobStatsEntry&)>& entry;
  std::string current_target;
  JobStatsParser::Summary sum;
  WrappedCounter pending;
  bool in_stats = true;  // a plain `cat` is job_stats from the first line
  std::optional<JobStatsEntry> e;
  bool bad = false;  // `e` is skipped
  // Unknown unit -> its first line and its counters, and the units in order of appearance.
  std::unordered_map<std::string, std::pair<uint64_t, uint64_t>> units;
  std::vector<std::string> unit_order;
  JobStatsCounter c;  // the counter being read
};

// Reports problem `m` at line `at`; the entry being read is skipped.
void Report(JobStatsParseState& s, uint64_t at, std::string m) {
  s.sum.problems.push_back({at, fmt::format("{}: line {}: {}", s.in.name(), at, m)});
  s.bad = true;
}

// Delivers the entry being read, unless it is skipped, and forgets it.
Status FinishEntry(JobStatsParseState& s) {
  if (s.e && !s.bad) {
    ++s.sum.entries;
    XTFQ_TRY(s.entry(*s.e));
  }
  s.e.reset();
  s.bad = false;
  return Ok();
}

// Moves counter s.c, read at line `at`, into the entry, counting a unit of its own.
void AddCounter(JobStatsParseState& s, uint64_t at) {
  JobStatsCounter& c = s.c;
  c.line = at;
  if (!c.unit.empty() && c.unit != "reqs" && c.unit != "bytes" && c.unit != "usecs") {
    auto [it, fresh] = s.units.try_emplace(c.unit, at, 0);
    if (fresh) s.unit_order.push_back(c.unit);
    ++it->second.second;
  }
  s.e->counters.push_back(std::move(c));
}

// Reads `text`, which starts at line `at`, as a counter of the entry (by the general parser).
void ReadCounter(JobStatsParseState& s, std::string_view text, uint64_t at) {
  if (!s.e) return Report(s, at, "a counter before any '- job_id:' line");
  if (s.bad) return;
  s.sum.scanned += text.size();
  if (auto err = ParseCounter(text, s.c)) return Report(s, at, *err + " (the entry is skipped)");
  AddCounter(s, at);
}

// REQUIRES: a wrapped counter is pending. Whether line `l` (number `at`) is taken as a part of it.
bool ContinueWrappedCounter(JobStatsParseState& s, std::string_view l, uint64_t at) {
  // A wrapped counter line continues until its braces close, but not past the start of the
  // next entry or target: there the counter is reported and the line read as usual. Each
  // line is counted once (the brace balance is kept as lines come), so this is linear.
  WrappedCounter& w = s.pending;
  const std::string_view tl = Trim(l);
  if (StartsEntryOrTarget(l, tl)) {
    Report(s, w.line, fmt::format("a counter whose '{{' is not closed before the next entry (line {})", at));
    w.text.clear();
    w.too_long = false;
    return false;
  }
  s.sum.scanned += tl.size();
  w.balance += Balance(tl);
  if (!w.too_long && w.text.size() + 1 + tl.size() > JobStatsParser::kMaxCounterText) {
    w.too_long = true;
  } else if (!w.too_long) {
    w.text += ' ';
    w.text += tl;
  }
  if (w.balance <= 0) {
    if (w.too_long) {
      Report(s, w.line, fmt::format("a counter longer than {} bytes", JobStatsParser::kMaxCounterText));
    } else {
      ReadCounter(s, w.text, w.line);
    }
    w.text.clear();
    w.too_long = false;
  }
  return true;
}

// Whether line `l` (number `at`) is a counter of the current entry on one line, as the one-pass
// reader takes it; it is then added.
bool ReadOneLineCounter(JobStatsParseState& s, std::string_view l, uint64_t at) {
  if (!s.e || s.bad || !s.in_stats || l.empty() || l.front() != ' ') return false;
  const std::string_view t = Trim(l);
  if (!FastCounter(t, s.c)) return false;
  s.sum.scanned += t.size();
  AddCounter(s, at);
  return true;
}

// A comment line `l` (number `at`): a "# collected_at:" line gives the collection time.
void ReadComment(JobStatsParseState& s, std::string_view l, uint64_t at) {
  std::optional<double> v;
  if (!JobStatsParser::CollectedAt(l, &v)) return;
  if (v) {
    s.sum.collected_at = v;
  } else {
    Report(s, at, fmt::format("collected_at '{}' is not an epoch time", Trim(Trim(l.substr(1)).substr(13))));
    s.bad = false;
  }
}

// `param=value` of lctl get_param: line `l` (number `at`) with parameter `name`.
Status ReadParam(JobStatsParseState& s, std::string_view l, std::string_view name, uint64_t at) {
  XTFQ_TRY(FinishEntry(s));
  const auto stats = StatsTarget(name);
  s.in_stats = stats.has_value();
  if (s.in_stats) {
    s.current_target = *stats;
    s.sum.targets.push_back(s.current_target);
    const std::string_view value = Trim(l.substr(name.size() + 1));
    if (!value.empty() && value != "job_stats:")
      Report(s, at, fmt::format("unexpected value '{}' after {}=", value, name));
    s.bad = false;
  }
  return Ok();
}

// A "- job_id:" line (`t` trimmed, number `at`): the entry before it ends and this one starts.
Status StartEntry(JobStatsParseState& s, std::string_view t, uint64_t at) {
  XTFQ_TRY(FinishEntry(s));
  JobStatsEntry& e = s.e.emplace();
  e.counters.reserve(16);  // an entry has 10-20 ops: one allocation, not five
  e.target = s.current_target;
  e.line = at;
  bool quoted = false;
  auto id = JobStatsParser::DecodeJobId(t.size() > 9 ? t.substr(9) : std::string_view(), &quoted);
  if (!id) {
    Report(s, at, fmt::format("job id {} has a bad escape", t.substr(9, 80)));
    return Ok();
  }
  if (id->size() > JobStatsParser::kMaxJobId) {
    Report(
        s, at,
        fmt::format("a job id of {} bytes: longer than {} (Lustre's hold 31)", id->size(), JobStatsParser::kMaxJobId));
    return Ok();
  }
  if (id->find('\0') != std::string::npos) {
    Report(s, at, "the job id holds a NUL byte");
    return Ok();
  }
  e.job_id = std::move(*id);
  e.quoted = quoted;
  return Ok();
}

// Whether line `l` (`t` trimmed, number `at`) is an entry's snapshot_time, start_time or
// elapsed_time; it is then read into the entry.
bool ReadTime(JobStatsParseState& s, std::string_view l, std::string_view t, uint64_t at) {
  for (std::string_view key : {"snapshot_time", "start_time", "elapsed_time"}) {
    if (!t.starts_with(key)) continue;
    const std::string_view after = Trim(t.substr(key.size()));
    if (after.empty() || after.front() != ':') continue;
    if (!s.e) {
      Report(s, at, fmt::format("{} before any '- job_id:' line", key));
      return true;
    }
    double v = 0;
    if (!ParseSeconds(after.substr(1), v)) {
      Report(s, at, fmt::format("{} '{}' is not a time", key, Trim(after.substr(1)).substr(0, 80)));
      return true;
    }
    if (!std::isfinite(v) || v < 0 || v > JobStatsParser::kMaxTime) {
      Report(s, at,
             fmt::format("{} '{}' is not a time in epoch or since-boot seconds from 0 to {}", key,
                         Trim(after.substr(1)).substr(0, 80), JobStatsParser::kMaxTime));
      return true;
    }
    if (key == "snapshot_time") {
      s.e->snapshot_time = v;
      // 2.15.0-2.15.1 print it unindented, in seconds since boot.
      s.e->since_boot = l.front() != ' ' || v < 1e9;
    } else if (key == "start_time") {
      s.e->start_time = v;
    } else {
      s.e->elapsed_time = v;
    }
    return true;
  }
  return false;
}

// A counter line `t` (trimmed, number `at`): read, or kept while its braces are open.
void StartCounter(JobStatsParseState& s, std::string_view t, uint64_t at) {
  s.sum.scanned += t.size();
  if (const int64_t b = Balance(t); b > 0) {
    s.pending.text.assign(t.substr(0, JobStatsParser::kMaxCounterText));
    s.pending.balance = b;
    s.pending.too_long = t.size() > JobStatsParser::kMaxCounterText;
    s.pending.line = at;
    return;
  }
  ReadCounter(s, t, at);
}

// Warns of the units that are none of reqs, bytes, usecs: one warning a unit up to
// kMaxUnitWarnings, then one for the rest.
void WarnUnits(JobStatsParseState& s) {
  constexpr size_t kMax = JobStatsParser::kMaxUnitWarnings;
  for (size_t i = 0; i < s.unit_order.size() && i < kMax; ++i) {
    const auto& [line, n] = s.units[s.unit_order[i]];
    s.sum.warnings.push_back(
        {line, fmt::format("{}: line {}: unit '{}' ({} counter{}) is none of reqs, bytes, usecs: kept as unit 4 "
                           "(other), counted as events",
                           s.in.name(), line, s.unit_order[i].substr(0, 80), n, n == 1 ? "" : "s")});
  }
  if (s.unit_order.size() > kMax) {
    uint64_t n = 0;
    for (size_t i = kMax; i < s.unit_order.size(); ++i) n += s.units[s.unit_order[i]].second;
    const uint64_t line = s.units[s.unit_order[kMax]].first;
    s.sum.warnings.push_back({line, fmt::format("{}: line {}: {} more units that are none of reqs, bytes, usecs ({} "
                                                "counters): kept as unit 4 (other), counted as events",
                                                s.in.name(), line, s.unit_order.size() - kMax, n)});
  }
}

}  // namespace

Result<JobStatsParser::Summary> JobStatsParser::Parse(File& in, const std::string& target,
                                                      const std::function<Status(JobStatsEntry&)>& entry,
                                                      bool one_pass) {
  JobStatsParseState s{.in = in, .entry = entry, .current_target = target};
  LineReader lines(in, size_t{64} << 20);
  std::string_view line;
  for (;;) {
    XTFQ_ASSIGN_OR_RETURN(bool more, lines.Next(line));
    if (!more) break;
    const uint64_t at = lines.number();
    std::string_view l = line;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (!s.pending.text.empty() && ContinueWrappedCounter(s, l, at)) continue;
    // The common line first: a counter of the current entry, on one line.
    if (one_pass && ReadOneLineCounter(s, l, at)) continue;
    if (Trim(l).empty()) continue;
    if (l.front() == '#') {
      ReadComment(s, l, at);
      continue;
    }
    if (const auto name = FramingParam(l)) {
      XTFQ_TRY(ReadParam(s, l, *name, at));
      continue;
    }
    if (!s.in_stats) continue;
    const std::string_view t = Trim(l);
    if (t == "job_stats:") {
      XTFQ_TRY(FinishEntry(s));
      if (target.empty() == false && s.sum.targets.empty()) s.sum.targets.push_back(s.current_target);
      continue;
    }
    if (StartsEntry(t)) {
      XTFQ_TRY(StartEntry(s, t, at));
      continue;
    }
    if (ReadTime(s, l, t, at)) continue;
    if (t.find('{') != std::string_view::npos && t.find(':') < t.find('{')) {
      StartCounter(s, t, at);
      continue;
    }
    Report(s, at, fmt::format("unrecognized line '{}'", t.substr(0, 80)));
  }
  if (!s.pending.text.empty()) Report(s, s.pending.line, "the file ends inside a counter");
  XTFQ_TRY(FinishEntry(s));
  s.sum.lines = lines.number();
  WarnUnits(s);
  return std::move(s.sum);
}

}  // namespace xtfq
