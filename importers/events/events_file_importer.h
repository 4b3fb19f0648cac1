// EventsFileImporter: the Importer of files of 32-byte events (EventsImporter), one file per
// import, into the array ImportOptions::array.
//
// Thread-safety: one import at a time.
#pragma once

#include "importers/common/importer.h"

namespace xtfq {

class EventsFileImporter final : public Importer {
 public:
  explicit EventsFileImporter(ImportOptions options) : options_(std::move(options)) {}
  std::string_view format() const override { return "events"; }
  Result<ImportReport> Import(const std::vector<std::string>& inputs, RecordSink& sink,
                              RecordSource* existing) override;

 private:
  ImportOptions options_;
};

}  // namespace xtfq
