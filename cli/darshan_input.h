// DarshanInput: what `xtfq signals` reads: a store holding Darshan logs (one selected by --log or
// --job), or a log file - binary, or darshan-parser text - imported into a temporary store in
// $TMPDIR that goes away with the DarshanInput. Also the log's darshan-parser header lines.
//
// Thread-safety: one thread at a time.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "query/core/store_reader.h"
#include "query/darshan/darshan_logs.h"

namespace xtfq::cli {

class DarshanInput {
 public:
  static Result<std::unique_ptr<DarshanInput>> Open(const std::string& path, std::optional<int64_t> log,
                                                    std::optional<int64_t> job);
  ~DarshanInput();

  StoreReader& reader() { return *reader_; }
  const DarshanLogInfo& info() const { return info_; }
  // darshan-parser's header: job lines, log file regions and mount table, each with its newline.
  Result<std::string> Header();
  // Whether `path` starts with a store's magic.
  static bool IsStore(const std::string& path);

 private:
  DarshanInput() = default;
  std::unique_ptr<StoreReader> reader_;
  DarshanLogInfo info_;
  std::string temp_;  // the temporary store, removed at the end
};

}  // namespace xtfq::cli
