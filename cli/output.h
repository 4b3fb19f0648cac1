// What the reading commands share: job ids, times, CSV fields and numbers as a user reads them,
// and opening a store (saying when it reads an older generation).
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "query/core/store_reader.h"

namespace xtfq::cli {

// A job id as Slurm gives it (a whole number, 0 to 2^62), or kUsage naming `what` ("--job", "ID").
Result<int64_t> ParseJobId(const std::string& text, std::string_view what);
// Epoch seconds as UTC, ISO 8601 ("2026-01-01T00:00:00Z").
std::string UtcText(int64_t epoch_s);
// A CSV field, quoted when it holds a comma, a quote or a line break.
std::string CsvField(const std::string& s);
// A number as a user reads it: whole numbers without a fraction, others with the shortest exact form.
std::string NumText(double v);
// Bytes with a binary unit: "512 B", "1.5 KiB", "3.2 GiB".
std::string BinaryBytes(uint64_t n);
// Opens a store for reading. When its newer superblock is not valid and the one read is not the
// generation before it (Store::Rollback: a commit torn by a crash, or damage), says on stderr that
// it reads the older generation and what may be lost, rather than answer from it silently.
Result<std::unique_ptr<StoreReader>> OpenForReading(const std::string& path, const ReaderOptions& options = {});
// "1 page", "2 pages": a count with its noun, plural unless the count is 1 (plural given when not noun + "s").
std::string Counted(uint64_t n, std::string_view noun, std::string_view plural = {});

}  // namespace xtfq::cli
