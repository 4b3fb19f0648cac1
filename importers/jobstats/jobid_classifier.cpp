#include "importers/jobstats/jobid_classifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "importers/common/text_number.h"

namespace xtfq {

namespace {
constexpr size_t kJobIdMax = 31;  // LUSTRE_JOBID_SIZE - 1

bool Digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
// Slurm job ids: digits, then array or step parts ("123_4", "123.0", "123_4.batch").
bool JobText(std::string_view s) {
  if (s.empty()) return true;  // missing job: classified later
  if (!(s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '_' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  });
}
bool HostText(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_' ||
           c == '.';
  });
}
std::optional<int64_t> Number(std::string_view s) {
  int64_t v = 0;
  return ParseNumber(s, v) ? std::optional<int64_t>(v) : std::nullopt;
}
}  // namespace

Result<JobIdClassifier> JobIdClassifier::Make(std::vector<std::string> templates) {
  // Lustre's jobid_name for Puhti-like sites, the login/system form, and a bare job id (the most
  // common setting: jobid_var=SLURM_JOB_ID with jobid_name %j).
  if (templates.empty()) templates = {"%j:%u:%H", "%e.%u", "%j"};
  JobIdClassifier c;
  for (const std::string& t : templates) {
    std::vector<Token> tokens;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == ' ' || t[i] == '\t') continue;  // Lustre drops whitespace from templates
      if (t[i] == '%') {
        if (i + 1 >= t.size() || std::string_view("jugpehH").find(t[i + 1]) == std::string_view::npos) {
          return Error(ErrorCode::kInvalidArgument,
                       fmt::format("--jobid-name '{}': unknown code at {} (known: %j %u %g %p %e %h %H)", t, i));
        }
        if (!tokens.empty() && tokens.back().code != 0) {
          return Error(ErrorCode::kInvalidArgument,
                       fmt::format("--jobid-name '{}': two codes without a separator cannot be told apart", t));
        }
        tokens.push_back(Token{t[i + 1], {}});
        ++i;
      } else if (!tokens.empty() && tokens.back().code == 0) {
        tokens.back().literal += t[i];
      } else {
        tokens.push_back(Token{0, std::string(1, t[i])});
      }
    }
    if (std::none_of(tokens.begin(), tokens.end(), [](const Token& k) { return k.code != 0; })) {
      return Error(ErrorCode::kInvalidArgument, fmt::format("--jobid-name '{}': no % code", t));
    }
    c.templates_.push_back(t);
    c.tokens_.push_back(std::move(tokens));
  }
  return c;
}

bool JobIdClassifier::Match(const std::vector<Token>& t, size_t ti, std::string_view id, JobIdFields& f) const {
  if (ti == t.size()) return id.empty();
  const Token& k = t[ti];
  if (k.code == 0) return id.starts_with(k.literal) && Match(t, ti + 1, id.substr(k.literal.size()), f);
  // A code: its text runs to an occurrence of the next literal (or to the end), tried from the
  // last occurrence to the first so that greedy fields (an executable with dots) win.
  std::vector<size_t> ends;
  if (ti + 1 == t.size()) {
    ends.push_back(id.size());
  } else {
    const std::string& sep = t[ti + 1].literal;
    for (size_t at = id.find(sep); at != std::string_view::npos; at = id.find(sep, at + 1)) ends.push_back(at);
    std::reverse(ends.begin(), ends.end());
  }
  for (size_t end : ends) {
    const std::string_view v = id.substr(0, end);
    JobIdFields g = f;
    bool ok = true;
    switch (k.code) {
      case 'j':
        ok = JobText(v), g.job = std::string(v);
        break;
      case 'u':
        ok = Digits(v), g.uid = ok ? Number(v) : std::nullopt;
        break;
      case 'g':
        ok = Digits(v), g.gid = ok ? Number(v) : std::nullopt;
        break;
      case 'p':
        ok = Digits(v), g.pid = ok ? Number(v) : std::nullopt;
        break;
      case 'e':
        ok = !v.empty(), g.exe = std::string(v);
        break;
      case 'h':
      case 'H':
        ok = HostText(v), g.node = std::string(v);
        break;
    }
    if (ok && Match(t, ti + 1, id.substr(end), g)) {
      f = std::move(g);
      return true;
    }
  }
  return false;
}

JobIdFields JobIdClassifier::Classify(std::string_view id) const {
  JobIdFields f;
  for (size_t i = 0; i < tokens_.size(); ++i) {
    JobIdFields g;
    if (Match(tokens_[i], 0, id, g)) {
      f = std::move(g);
      f.template_index = static_cast<int>(i);
      break;
    }
  }
  const bool fqdn = f.node.find('.') != std::string::npos;
  if (fqdn) f.node.resize(f.node.find('.'));  // keyed by the short name
  bool has_job_code = false;
  if (f.template_index >= 0) {
    for (const Token& k : tokens_[static_cast<size_t>(f.template_index)]) has_job_code |= k.code == 'j';
  }
  if (id.size() == kJobIdMax)
    f.cls = JobIdClass::kTruncated;
  else if (f.template_index < 0)
    f.cls = JobIdClass::kMalformed;
  else if (f.uid && *f.uid < 1000)
    f.cls = JobIdClass::kSystemUid;
  else if (has_job_code && f.job.empty())
    f.cls = JobIdClass::kMissingJob;
  else if (fqdn)
    f.cls = JobIdClass::kFqdn;
  else
    f.cls = JobIdClass::kOk;
  return f;
}

}  // namespace xtfq
