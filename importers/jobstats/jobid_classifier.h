// JobIdClassifier: a Lustre job id parsed against the `jobid_name` templates a site uses
// (../shared/docs/lustre-jobstats.md, 5.1-5.4) and classified. The raw bytes stay the series
// identity; the fields are for grouping, and no id is ever dropped.
//
// Template codes: %j (the job: digits, with Slurm's `_` and `.` array/step suffixes; may be
// empty), %u and %g (digits), %p (digits), %e (the executable: any non-empty text), %h (the
// node name, dots allowed), %H (the node name cut at the first dot; a dot there marks an FQDN).
// Other characters are literal separators. Matching tries every split (an executable may
// contain the separator).
//
// Classes, first that applies: kTruncated (31 bytes, the LUSTRE_JOBID_SIZE limit, whatever it
// matches), kMalformed (no template matches), kSystemUid (uid < 1000), kMissingJob (%j empty),
// kFqdn (%H holds a dot; the node is keyed by its short name), kOk.
//
// Thread-safety: immutable after Make().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layouts/jobstats_layout.h"
#include "store/result.h"

namespace xtfq {

struct JobIdFields {
  JobIdClass cls = JobIdClass::kMalformed;
  int template_index = -1;     // the template that matched, -1 for none
  std::string job, exe, node;  // node: the short name
  std::optional<int64_t> uid, gid, pid;
};

class JobIdClassifier {
 public:
  // "%j:%u:%H", "%e.%u" and "%j" (a bare job id) when `templates` is empty. An error for a template with an unknown
  // code, two codes without a separator between them, or no code at all.
  static Result<JobIdClassifier> Make(std::vector<std::string> templates = {});
  JobIdFields Classify(std::string_view id) const;
  const std::vector<std::string>& templates() const { return templates_; }

 private:
  struct Token {
    char code = 0;  // 0 for a literal
    std::string literal;
  };
  bool Match(const std::vector<Token>& t, size_t ti, std::string_view id, JobIdFields& f) const;
  std::vector<std::string> templates_;
  std::vector<std::vector<Token>> tokens_;
};

}  // namespace xtfq
