// ArrayOptions: the options every reading command shares (--array, --backend, --cache-mb,
// --format, --scan), the opened store and the array asked for (query/arrays/ chooses it).
//
// Thread-safety: used by main's thread only.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "query/core/store_reader.h"

namespace xtfq::cli {

class ArrayOptions {
 public:
  void Register(CLI::App* app);
  // Opens the store and the array (--array, or the only one, or 'events': ArrayWindowQuery::Choose).
  Status Open();
  // Opens only the store.
  Status OpenReader();
  bool array_given() const { return !array_name_.empty(); }
  const std::string& array_name() const { return array_name_; }
  const std::string& format() const { return format_; }

  StoreReader& reader() { return *reader_; }
  const ArrayDesc& array() const { return *array_; }
  bool json() const { return format_ == "json"; }
  bool scan() const { return scan_; }
  const std::string& store() const { return store_; }

 private:
  std::string store_;
  std::string array_name_;
  std::string backend_ = "pread";
  size_t cache_mb_ = 256;
  std::string format_ = "text";
  bool scan_ = false;
  std::unique_ptr<StoreReader> reader_;
  const ArrayDesc* array_ = nullptr;
};

}  // namespace xtfq::cli
