// DarshanFileImporter: the Importer of Darshan logs, binary (DarshanImporter) or darshan-parser
// text (DarshanTextImporter), each input sniffed (by the InputSniffer it is given:
// ImporterRegistry::Sniff) unless the format was forced; each becomes the next log of the store
// (numbered after the logs it already holds). An input that is byte for byte a log already there,
// or an earlier input, is skipped with a warning (DarshanDuplicates) unless
// ImportOptions::keep_duplicates.
//
// Thread-safety: one import at a time.
#pragma once

#include "importers/common/importer.h"

namespace xtfq {

class DarshanFileImporter final : public Importer {
 public:
  enum class Mode : uint8_t { kSniff = 0, kBinary = 1, kText = 2 };
  // `sniff` tells each input's format in Mode::kSniff.
  DarshanFileImporter(ImportOptions options, Mode mode, InputSniffer sniff)
      : options_(std::move(options)), mode_(mode), sniff_(std::move(sniff)) {}
  std::string_view format() const override { return mode_ == Mode::kText ? "darshan-text" : "darshan"; }
  Result<ImportReport> Import(const std::vector<std::string>& inputs, RecordSink& sink,
                              RecordSource* existing) override;

 private:
  ImportOptions options_;
  Mode mode_;
  InputSniffer sniff_;
};

}  // namespace xtfq
