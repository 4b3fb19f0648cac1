// Hdf5Handle: an HDF5 identifier (libhdf5's C API) closed when it goes out of scope, or by Close,
// which returns the close's own result (closing a file flushes it); and the one form of an HDF5
// error line, naming the file and object, with the innermost message of the library's error
// stack. Shared by the Slurm profile reader and writer.
//
// Thread-safety: one thread at a time per handle (Debian's libhdf5 is built thread-safe).
#pragma once

#include <fmt/format.h>
#include <hdf5.h>

#include <string>
#include <string_view>

#include "store/result.h"

namespace xtfq {

class Hdf5Handle {
 public:
  Hdf5Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Hdf5Handle() { static_cast<void>(Close()); }
  Hdf5Handle(const Hdf5Handle&) = delete;
  Hdf5Handle& operator=(const Hdf5Handle&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }
  herr_t Close() {
    const herr_t r = id_ >= 0 ? close_(id_) : 0;
    id_ = -1;
    return r;
  }

  // The innermost message of HDF5's error stack ("" when there is none); clears the stack.
  static std::string Message() {
    std::string out;
    H5Ewalk2(
        H5E_DEFAULT, H5E_WALK_UPWARD,
        [](unsigned n, const H5E_error2_t* e, void* data) -> herr_t {
          if (n == 0 && e->desc != nullptr) *static_cast<std::string*>(data) = e->desc;
          return 0;
        },
        &out);
    H5Eclear2(H5E_DEFAULT);
    return out;
  }
  // "FILE: OBJECT: WHAT: <the library's message>".
  static Error Failed(ErrorCode code, const std::string& file, std::string_view object, std::string_view what) {
    const std::string lib = Message();
    return Error(code, fmt::format("{}: {}: {}{}", file, object, what, lib.empty() ? "" : ": " + lib));
  }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

}  // namespace xtfq
