// Result<T>: a value or an Error, the return type of everything that can fail.
//
// Result<void> (alias Status) carries only success or an Error. Both are [[nodiscard]]: an
// ignored failure is a compile warning, which the build turns into an error. XTFQ_TRY and
// XTFQ_ASSIGN_OR_RETURN propagate failures without exceptions. (tl::expected is not packaged for
// Debian 12, and std::expected needs C++23 with concepts that clang 14 lacks, so this small type
// stands in.)
//
// Thread-safety: a value type.
#pragma once

#include <cassert>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include "store/error.h"

namespace xtfq {

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}      // NOLINT: implicit on purpose
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // REQUIRES: ok()
  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // REQUIRES: !ok()
  const Error& error() const& {
    assert(!ok());
    return std::get<1>(v_);
  }
  Error&& error() && {
    assert(!ok());
    return std::get<1>(std::move(v_));
  }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : e_(std::move(error)) {}  // NOLINT: implicit on purpose

  bool ok() const { return !e_.has_value(); }
  explicit operator bool() const { return ok(); }

  // REQUIRES: !ok()
  const Error& error() const& {
    assert(!ok());
    return *e_;
  }
  Error&& error() && {
    assert(!ok());
    return std::move(*e_);
  }

 private:
  std::optional<Error> e_;
};

using Status = Result<void>;

inline Status Ok() { return {}; }

}  // namespace xtfq

#define XTFQ_CONCAT_INNER(a, b) a##b
#define XTFQ_CONCAT(a, b) XTFQ_CONCAT_INNER(a, b)

// Returns the error of `expr` (a Result or Status) from the enclosing function.
#define XTFQ_TRY(expr)                                                      \
  do {                                                                      \
    auto&& xtfq_try_result_ = (expr);                                       \
    if (!xtfq_try_result_.ok()) return std::move(xtfq_try_result_).error(); \
  } while (0)

// Declares or assigns `lhs` from the value of `expr`, or returns its error.
#define XTFQ_ASSIGN_OR_RETURN(lhs, expr) XTFQ_ASSIGN_OR_RETURN_IMPL(XTFQ_CONCAT(xtfq_result_, __LINE__), lhs, expr)
#define XTFQ_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return std::move(tmp).error();    \
  lhs = std::move(*tmp)
