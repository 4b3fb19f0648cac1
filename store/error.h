// Error: the one error value of every xtfq layer.
//
// An Error says what went wrong and where (file, page, byte offset, line, stored vs computed
// value) in one line of text that cli/ prints as it is. Library code never prints and never
// aborts on bad data; it returns an Error inside a Result (result.h). The code lets callers
// branch without parsing the text.
//
// Thread-safety: a value type; distinct objects may be used from distinct threads.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace xtfq {

enum class ErrorCode : uint8_t {
  kIo = 1,               // the operating system refused a read, write, sync or open
  kCorrupt = 2,          // stored bytes fail a checksum or a format invariant
  kInvalidArgument = 3,  // the caller (or the user, through the CLI) asked for something invalid
  kNotFound = 4,         // a named thing does not exist
  kUnsupported = 5,      // a format version or feature this build cannot read
  kBusy = 6,             // another writer holds the store
  kFailed = 7,           // the writer failed earlier and refuses further work until reopened
  kUsage = 8,            // the command line is malformed or does not apply (cli/ exits 2)
};

class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns this error with `context: ` put before the message (for example a file name).
  Error Within(const std::string& context) const { return Error(code_, context + ": " + message_); }

 private:
  ErrorCode code_;
  std::string message_;
};

}  // namespace xtfq
