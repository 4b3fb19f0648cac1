#include "importers/slurm/slurm_influx_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <map>
#include <tuple>

namespace xtfq {

namespace {

// Splits `s` at unescaped `sep` (a backslash escapes the next byte), unescaping the parts.
std::vector<std::string> SplitEscaped(std::string_view s, char sep) {
  std::vector<std::string> out(1);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      out.back() += s[++i];
    } else if (s[i] == sep) {
      out.emplace_back();
    } else {
      out.back() += s[i];
    }
  }
  return out;
}

// The index of the first unescaped space in `s` at or after `from`, or npos.
size_t UnescapedSpace(std::string_view s, size_t from) {
  for (size_t i = from; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == ' ') {
      return i;
    }
  }
  return std::string_view::npos;
}

// A field value: its type ('u', 'i' or 'f') and bits.
struct Value {
  char type = 'u';
  uint64_t bits = 0;
};

// Why value `v` does not parse.
std::string NotNumber(std::string_view v) {
  if (!v.empty() && (v.back() == 'i' || v.back() == 'u'))
    return fmt::format("'{}' is not an integer (its '{}' suffix marks one)", v, v.back());
  return fmt::format("'{}' is not a number", v);
}

// Parses field value `v` into `out`, or says why it is not one. An 'i' (or 'u') suffix marks an
// integer: the grouped form sends u64 fields as %PRIu64 "i", so one above INT64_MAX is kept as u64.
// Without a suffix a number is a float in the grouped form (%.9g prints 12.0 as "12"); in the
// per-field form it is an integer unless it has a point or an exponent (u64 as %PRIu64, doubles as
// %.2f).
bool ParseValue(std::string_view v, bool grouped, Value& out, std::string& why) {
  if (v.empty()) {
    why = "no value";
    return false;
  }
  const bool suffixed = v.back() == 'i' || v.back() == 'u';
  std::string_view n = suffixed ? v.substr(0, v.size() - 1) : v;
  auto whole = [&](auto& x) {
    auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), x);
    return ec == std::errc() && p == n.data() + n.size();
  };
  if (!suffixed && (grouped || n.find_first_of(".eEnN") != std::string_view::npos)) {
    double d = 0;
    if (!whole(d)) {
      why = NotNumber(v);
      return false;
    }
    out = Value{'f', std::bit_cast<uint64_t>(d)};
    return true;
  }
  if (!n.empty() && n.front() == '-' && v.back() != 'u') {
    int64_t i = 0;
    if (!whole(i)) {
      why = NotNumber(v);
      return false;
    }
    out = Value{'i', static_cast<uint64_t>(i)};
    return true;
  }
  uint64_t u = 0;
  if (!whole(u)) {
    why = NotNumber(v);
    return false;
  }
  out = Value{'u', u};
  return true;
}

// The step tag as the store names it: the plugin sends the batch, extern and interactive steps as
// -5/-4/-6 (%d, up to 25.11), 4294967291/4294967292/4294967290 (%u, 26.05's per-field form) or by
// name (26.05's grouped form, log_build_step_id_str); other steps as their number.
std::string StepName(const std::string& s) {
  if (s == "-5" || s == "4294967291") return "batch";
  if (s == "-4" || s == "4294967292") return "extern";
  if (s == "-6" || s == "4294967290") return "interactive";
  return s;
}

// The series kind of a grouped line's measurement (26.05 lowercases the dataset's name), or "".
std::string_view KindOfMeasurement(std::string_view m) {
  if (m == "network") return "Network";
  if (m == "filesystem") return "Filesystem";
  if (m == "energy") return "Energy";
  return {};
}

// The series kind of a per-field line without a task tag (26.05 sends none for a node's series)
// from its measurement, the field's name: the interconnect plugins' PacketsIn/PacketsOut/InMB/
// OutMB, the filesystem plugin's Reads/ReadMB/Writes/WriteMB, the energy plugins' Power,
// GPU<n>Power, <label>Power, Energy, Max/Min/Avg/CurrPower. "" for another name (a task's field).
std::string_view KindOfField(std::string_view m) {
  if (m == "PacketsIn" || m == "PacketsOut" || m == "InMB" || m == "OutMB") return "Network";
  if (m == "Reads" || m == "ReadMB" || m == "Writes" || m == "WriteMB") return "Filesystem";
  if (m == "Energy" || m.ends_with("Power")) return "Energy";
  return {};
}

// Seconds per unit of a precision name; 0 when unknown.
int64_t Divisor(std::string_view precision) {
  if (precision == "s") return 1;
  if (precision == "ms") return 1000;
  if (precision == "u" || precision == "us") return 1000000;
  if (precision == "ns" || precision == "n" || precision.empty()) return 1000000000;
  return 0;
}

// One (job, step, task, host) being rebuilt.
struct Building {
  int64_t job = 0;
  std::string step, step_text, task, host;       // step as named here and as the first line sent it
  std::vector<std::string> fields;               // in first-seen order
  std::vector<char> types;                       // 'u', 'i', 'f' (widened as values are seen)
  std::vector<int64_t> times;                    // per row
  std::vector<std::map<size_t, uint64_t>> rows;  // per row: field index -> bits
};

using Tags = std::map<std::string, std::string>;

// What SlurmInfluxParser::Parse carries from one line to the next.
struct InfluxParseState {
  std::string_view text, file;
  SlurmInfluxCapture out;
  std::map<std::tuple<int64_t, std::string, std::string, std::string>, Building> series;
  std::vector<Building*> order;  // in first-seen order
  // A request line's precision holds until the next request line; bodies alone are in seconds as
  // the plugin sends them (precision=s).
  int64_t divisor = 1;
  uint64_t line_no = 0;
  size_t pos = 0;
  // A whole request's body (after its "### " header lines) is its Content-Length bytes: one that
  // ends sooner was cut short, and its last line may still parse (a time cut to fewer digits).
  std::optional<uint64_t> declared;
  uint64_t request_line = 0;
  size_t body_from = 0;
};

// The error `m` of the line being read, naming the file and the line.
Error MakeLineError(const InfluxParseState& s, const std::string& m) {
  return Error(ErrorCode::kInvalidArgument, fmt::format("{}: line {}: {}", s.file, s.line_no, m));
}

// An error when the request being read, whose body ends at `body_end` (line `last_line`), is
// shorter than its Content-Length.
Status CheckRequestLength(const InfluxParseState& s, size_t body_end, uint64_t last_line) {
  if (!s.declared || body_end - s.body_from >= *s.declared) return Ok();
  return Error(ErrorCode::kInvalidArgument,
               fmt::format("{}: line {}: the request's Content-Length is {} bytes but its body has {} (to line {}): "
                           "the capture is cut short",
                           s.file, s.request_line, *s.declared, body_end - s.body_from, last_line));
}

// A "### content-length: N" header of a request: its body's length.
void ReadContentLength(InfluxParseState& s, std::string_view line) {
  constexpr std::string_view kLength = "### content-length:";
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  if (s.request_line > 0 && line.size() > kLength.size() &&
      std::equal(kLength.begin(), kLength.end(), line.begin(), [&](char a, char b) { return a == lower(b); })) {
    uint64_t n = 0;
    std::string_view v = line.substr(kLength.size());
    v.remove_prefix(std::min(v.find_first_not_of(' '), v.size()));
    if (auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n); ec == std::errc() && p == v.data() + v.size())
      s.declared = n;
  }
}

// A request line (its "/write?" at `q`, the line at `start` of the text): the request before it
// ends here, and its precision gives the time unit of the lines after it.
Status ReadRequestLine(InfluxParseState& s, std::string_view line, size_t q, size_t start) {
  XTFQ_TRY(CheckRequestLength(s, start, s.line_no - 1));
  s.declared.reset(), s.request_line = s.line_no;
  const size_t p = line.find("precision=", q);
  std::string_view prec;
  if (p != std::string_view::npos) {
    prec = line.substr(p + 10);
    prec = prec.substr(0, prec.find_first_of("& "));
  }
  s.divisor = Divisor(prec);
  if (s.divisor == 0) return MakeLineError(s, fmt::format("precision '{}' is not one of ns, us, ms, s", prec));
  return Ok();
}

// A comment line (at `start` of the text): a request's line or one of its headers, or another.
Status ReadComment(InfluxParseState& s, std::string_view line, size_t start) {
  ++s.out.comments;
  ReadContentLength(s, line);
  const size_t q = line.find("/write?");
  if (q != std::string_view::npos) {
    // A request line: the request before it ends here.
    XTFQ_TRY(ReadRequestLine(s, line, q, start));
  }
  if (line.starts_with("### ")) s.body_from = std::min(s.pos, s.text.size());  // a header: the body starts after it
  return Ok();
}

// The tags of a line's key split at its commas (`parts`, the measurement first), with job, step
// and host among them.
Result<Tags> ReadTags(const InfluxParseState& s, const std::vector<std::string>& parts) {
  Tags tags;
  for (size_t i = 1; i < parts.size(); ++i) {
    const size_t eq = parts[i].find('=');
    if (eq == std::string::npos) return MakeLineError(s, fmt::format("tag '{}' has no '='", parts[i]));
    tags[parts[i].substr(0, eq)] = parts[i].substr(eq + 1);
  }
  for (const char* t : {"job", "step", "host"}) {
    if (!tags.count(t))
      return MakeLineError(
          s,
          fmt::format("no '{}' tag (the influxdb plugin sends job, step and host, and task for a task's series)", t));
  }
  return tags;
}

// The job id of job tag `j`.
Result<int64_t> ReadJob(const InfluxParseState& s, const std::string& j) {
  int64_t job = 0;
  auto [p, ec] = std::from_chars(j.data(), j.data() + j.size(), job);
  if (ec != std::errc() || p != j.data() + j.size() || job < 0)
    return MakeLineError(s, fmt::format("job '{}' is not a job id", j));
  return job;
}

// The time of a line in seconds (truncated, and counted when it was not whole).
Result<int64_t> ReadTime(InfluxParseState& s, std::string_view time) {
  if (time.empty()) return MakeLineError(s, "no time (the plugin sends one on every line)");
  int64_t ts = 0;
  auto [p, ec] = std::from_chars(time.data(), time.data() + time.size(), ts);
  if (ec != std::errc() || p != time.data() + time.size() || ts < 0)
    return MakeLineError(s, fmt::format("time '{}' is not a whole number", time));
  if (ts % s.divisor != 0) ++s.out.subsecond;
  return ts / s.divisor;
}

// The task tag, or the kind of a node's series (26.05 sends no task tag for them).
Result<std::string> ChooseTask(const InfluxParseState& s, const std::string& measurement, const Tags& tags,
                               bool grouped) {
  const auto task_tag = tags.find("task");
  std::string task;
  if (grouped && measurement == "task") {
    if (task_tag == tags.end()) return MakeLineError(s, "measurement 'task' has no 'task' tag");
    task = task_tag->second;
  } else if (grouped && !KindOfMeasurement(measurement).empty()) {
    task = KindOfMeasurement(measurement);
  } else if (task_tag != tags.end()) {
    task = task_tag->second;
  } else if (grouped) {
    task = measurement;  // a series kind not known here: kept by its name (stored as other)
  } else if (!KindOfField(measurement).empty()) {
    task = KindOfField(measurement);
  } else {
    return MakeLineError(
        s, fmt::format("no 'task' tag, and '{}' is not a field of a node's Network, Filesystem or Energy series",
                       measurement));
  }
  return task;
}

// The series of (job, step, task, host), created when new.
Building& FindOrAddSeries(InfluxParseState& s, int64_t job, const std::string& step_text, const std::string& task,
                          const std::string& host) {
  const std::string step = StepName(step_text);
  auto k = std::make_tuple(job, step, task, host);
  auto [it, fresh] = s.series.try_emplace(k);
  Building& b = it->second;
  if (fresh) {
    b.job = job, b.step = step, b.step_text = step_text, b.task = task, b.host = host;
    s.order.push_back(&b);
  }
  return b;
}

// Puts value `v` of column `name` at time `ts` into series `b`.
void AddValue(Building& b, const std::string& name, Value v, int64_t ts) {
  auto col = std::find(b.fields.begin(), b.fields.end(), name);
  size_t c = static_cast<size_t>(col - b.fields.begin());
  if (col == b.fields.end()) {
    b.fields.push_back(name);
    b.types.push_back(v.type);
  } else if (b.types[c] != v.type) {
    // Widen: a column that holds a float anywhere is f64; else signed if any value is negative.
    const char to = b.types[c] == 'f' || v.type == 'f' ? 'f' : 'i';
    if (to == 'f') {
      for (size_t r = 0; r < b.rows.size(); ++r) {
        auto x = b.rows[r].find(c);
        if (x == b.rows[r].end()) continue;
        const double d =
            b.types[c] == 'i' ? static_cast<double>(static_cast<int64_t>(x->second)) : static_cast<double>(x->second);
        x->second = std::bit_cast<uint64_t>(d);
      }
      if (v.type != 'f') {
        v.bits = std::bit_cast<uint64_t>(v.type == 'i' ? static_cast<double>(static_cast<int64_t>(v.bits))
                                                       : static_cast<double>(v.bits));
      }
    }
    b.types[c] = to;
  } else if (b.types[c] == 'f' && v.type != 'f') {
    v.bits = std::bit_cast<uint64_t>(static_cast<double>(v.bits));
  }
  // A new row at a new time, or when this field is already in the row (a repeated sample).
  if (b.rows.empty() || b.times.back() != ts || b.rows.back().count(c)) {
    b.rows.emplace_back();
    b.times.push_back(ts);
  }
  b.rows.back()[c] = v.bits;
}

// A line of line protocol: its fields into their series' rows.
Status ReadProtocolLine(InfluxParseState& s, std::string_view line) {
  ++s.out.lines;
  // measurement,tags fields [time]
  const size_t s1 = UnescapedSpace(line, 0);
  if (s1 == std::string_view::npos) return MakeLineError(s, "no field set (expected 'name,tags value=V time')");
  const size_t s2 = UnescapedSpace(line, s1 + 1);
  const std::string_view key = line.substr(0, s1);
  const std::string_view fields =
      line.substr(s1 + 1, s2 == std::string_view::npos ? std::string_view::npos : s2 - s1 - 1);
  const std::string_view time = s2 == std::string_view::npos ? std::string_view() : line.substr(s2 + 1);
  std::vector<std::string> parts = SplitEscaped(key, ',');
  const std::string measurement = parts[0];
  if (measurement.empty()) return MakeLineError(s, "no measurement name");
  XTFQ_ASSIGN_OR_RETURN(Tags tags, ReadTags(s, parts));
  XTFQ_ASSIGN_OR_RETURN(const int64_t job, ReadJob(s, tags["job"]));
  XTFQ_ASSIGN_OR_RETURN(const int64_t ts, ReadTime(s, time));
  // The per-field form has one field, "value", named by the measurement; the grouped form (26.05,
  // ProfileInfluxDBFlags=grouped_fields) names its series' kind by the measurement and has a field
  // per column.
  const std::vector<std::string> fieldset = SplitEscaped(fields, ',');
  const bool grouped = !(fieldset.size() == 1 && fieldset[0].substr(0, fieldset[0].find('=')) == "value");
  XTFQ_ASSIGN_OR_RETURN(const std::string task, ChooseTask(s, measurement, tags, grouped));
  Building& b = FindOrAddSeries(s, job, tags["step"], task, tags["host"]);
  for (const std::string& f : fieldset) {
    const size_t eq = f.find('=');
    if (eq == std::string::npos) return MakeLineError(s, fmt::format("field '{}' has no '='", f));
    if (eq == 0) return MakeLineError(s, fmt::format("field '{}' has no name", f));
    Value v;
    std::string why;
    if (!ParseValue(std::string_view(f).substr(eq + 1), grouped, v, why))
      return MakeLineError(s, fmt::format("field '{}': {}", f.substr(0, eq), why));
    // The column: the measurement for the per-field form's "value", else the field's name.
    const std::string name = grouped ? f.substr(0, eq) : measurement;
    AddValue(b, name, v, ts);
  }
  return Ok();
}

// The dataset of a series rebuilt: EpochTime and its fields, a row per time.
SlurmDataset BuildDataset(const Building& b) {
  SlurmDataset d;
  d.job = b.job;
  d.step = b.step;
  d.node = d.node_name = b.host;
  const bool numeric =
      !b.task.empty() && std::all_of(b.task.begin(), b.task.end(), [](char c) { return c >= '0' && c <= '9'; });
  d.kind = numeric ? "Tasks" : b.task;
  d.task = numeric ? b.task : "";
  d.path = fmt::format("job={},step={},task={},host={}", b.job, b.step_text, b.task, b.host);
  d.fields.push_back({"EpochTime", 'u'});
  for (size_t c = 0; c < b.fields.size(); ++c) d.fields.push_back({b.fields[c], b.types[c]});
  d.rows = b.rows.size();
  d.values.assign(d.rows * d.fields.size(), 0);
  for (size_t r = 0; r < b.rows.size(); ++r) {
    d.values[r * d.fields.size()] = static_cast<uint64_t>(b.times[r]);
    for (const auto& [c, bits] : b.rows[r]) d.values[r * d.fields.size() + 1 + c] = bits;
  }
  return d;
}

}  // namespace

bool SlurmInfluxParser::LooksLikeInflux(std::string_view head) {
  if (head.starts_with("### ") && head.substr(0, head.find('\n')).find("/write?") != std::string_view::npos)
    return true;
  const std::string_view line = head.substr(0, head.find('\n'));
  const std::string_view key = line.substr(0, line.find(' '));
  return key.find(",job=") != std::string_view::npos && key.find(",step=") != std::string_view::npos &&
         (key.find(",task=") != std::string_view::npos || key.find(",host=") != std::string_view::npos) &&
         line.find(' ') != std::string_view::npos;
}

Result<SlurmInfluxCapture> SlurmInfluxParser::Parse(std::string_view text, std::string_view file) {
  InfluxParseState s{.text = text, .file = file};
  while (s.pos < text.size()) {
    const size_t start = s.pos;
    size_t end = text.find('\n', s.pos);
    if (end == std::string_view::npos) {
      end = text.size();
      s.out.unterminated = s.line_no + 1;
    }
    std::string_view line = text.substr(s.pos, end - s.pos);
    s.pos = end + 1;
    ++s.line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.front() == '#') {
      XTFQ_TRY(ReadComment(s, line, start));
      continue;
    }
    XTFQ_TRY(ReadProtocolLine(s, line));
  }
  for (const Building* b : s.order) s.out.datasets.push_back(BuildDataset(*b));
  XTFQ_TRY(CheckRequestLength(s, text.size(), s.line_no));
  return std::move(s.out);
}

}  // namespace xtfq
