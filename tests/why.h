// Why(r): the error message of a Result or Status (or the first problem of a check report), or ""
// when it succeeded. For doctest messages,
// which doctest may evaluate even when the assertion holds.
#pragma once

#include <string>

#include "store/result.h"
#include "store/store_checker.h"

namespace xtfq::test {

template <class T>
std::string Why(const Result<T>& r) {
  return r.ok() ? std::string() : r.error().message();
}

inline std::string Why(const StoreChecker::Report& r) { return r.ok() ? std::string() : r.problems.front().message(); }

}  // namespace xtfq::test
