#include "store/column_plan.h"

#include "store/field_type.h"
#include "store/format.h"
#include "store/summary.h"

namespace xtfq {

ColumnPlan::ColumnPlan(std::vector<uint8_t> sizes) : sizes_(std::move(sizes)) {
  for (uint8_t s : sizes_) width_ += s;
}

std::shared_ptr<const ColumnPlan> ColumnPlan::ForWidth(uint32_t width) {
  std::vector<uint8_t> sizes;
  if (width > 1) {
    for (uint32_t i = 0; i + 8 <= width; i += 8) sizes.push_back(8);
    sizes.insert(sizes.end(), width % 8, uint8_t{1});
  }
  return std::make_shared<const ColumnPlan>(std::move(sizes));
}

std::shared_ptr<const ColumnPlan> ColumnPlan::ForRecords(const Schema& schema) {
  std::vector<uint8_t> sizes;
  for (const Field& f : schema.fields()) sizes.push_back(static_cast<uint8_t>(FieldWidth(f.type)));
  return std::make_shared<const ColumnPlan>(std::move(sizes));
}

std::shared_ptr<const ColumnPlan> ColumnPlan::ForIndexEntries(const Schema& schema) {
  static_assert(format::kIeKey == 0 && format::kIeCount == 8 && format::kIeChildLocation == 16 &&
                    format::kIeChild == 24 && format::kIndexEntryFixedSize == 28,
                "the plan follows the index entry's fixed part");
  static_assert(Summary::kFieldBytes == 32, "four 8-byte statistics per aggregate");
  std::vector<uint8_t> sizes = {8, 8, 8, 4};
  sizes.insert(sizes.end(), 4 * schema.aggregates().size(), uint8_t{8});
  return std::make_shared<const ColumnPlan>(std::move(sizes));
}

}  // namespace xtfq
