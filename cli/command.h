// Command: one `xtfq` subcommand. Register() declares its options on the CLI11 app; Run() does the
// work after parsing and returns the exit code. cli/ is the only layer that parses argv, prints or
// turns errors into exit codes.
//
// Thread-safety: used by main's thread only.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "store/error.h"
#include "store/result.h"

namespace xtfq::cli {

// Exit codes of every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the work failed: bad input, corruption, I/O
inline constexpr int kExitUsage = 2;    // the command line is wrong

class Command {
 public:
  virtual ~Command() = default;
  virtual CLI::App* Register(CLI::App& parent) = 0;
  virtual int Run() = 0;
};

// Prints "xtfq <command>: <message>" on stderr as one line; returns kExitUsage for
// ErrorCode::kUsage, else kExitFailure.
int Fail(std::string_view command, const Error& error);

// Prints an answer on stdout and returns kExitOk, or fails as Fail does; a request the data
// cannot answer as asked (kInvalidArgument) is the command line's to change: exit 2.
int PrintAnswer(std::string_view command, const Result<std::string>& answer);

}  // namespace xtfq::cli
