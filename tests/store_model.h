// StoreModel: the naive oracle of the store tests: every array's records as byte vectors and every
// string with its reference, exactly as appended, plus the generation each commit produced.
// Verify() reads a store back through StoreReader and compares record by record.
#pragma once

#include <map>
#include <random>
#include <string>
#include <vector>

#include "query/core/store_reader.h"
#include "store/schema.h"
#include "store/store_writer.h"

namespace xtfq::test {

struct ModelArray {
  std::string name;
  Schema schema;
  std::vector<std::vector<std::byte>> records;
  ArrayId id;  // as the writer returned it (per-process arrays take ids too)
};

struct StoreModel {
  std::vector<ModelArray> arrays;
  std::vector<std::pair<StringRef, std::string>> strings;

  // A record for `schema` whose bytes depend only on (seed, array, index): random values of every
  // field type, so a misplaced or stale record never compares equal.
  static std::vector<std::byte> MakeRecord(const Schema& schema, uint64_t seed, size_t array, uint64_t index);

  // Empty when the store holds exactly the model, otherwise what differs first.
  std::string Verify(StoreReader& reader) const;
};

// Schemas the tests use: 32-byte events, a 1-byte array, an 800-byte array, and a mixed one.
std::vector<std::pair<std::string, Schema>> TestSchemas();

}  // namespace xtfq::test
