#include "store/catalogue.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <unordered_set>

#include "store/byte_reader.h"
#include "store/endian.h"
#include "store/format.h"
#include "store/index_entry.h"

namespace xtfq {

namespace f = format;

size_t Catalogue::EncodedSize() const {
  size_t n = f::kCatalogueHeaderSize + 4 * free_pages.size() + 4 * map_leaves.size();
  for (const ArrayDesc& a : arrays) {
    n += f::kArrayFixedSize + f::kChainSize * a.levels.size();
    if (a.per_process()) continue;
    n += a.name.size() + 2 * a.schema.aggregates().size();
    for (const Field& fd : a.schema.fields()) n += f::kFieldFixedSize + fd.name.size();
  }
  return n;
}

std::vector<std::byte> Catalogue::Encode() const {
  std::vector<std::byte> out(EncodedSize());
  std::byte* p = out.data();
  StoreLe<uint32_t>(p + f::kCatArrayCount, static_cast<uint32_t>(arrays.size()));
  StoreLe<uint32_t>(p + f::kCatFreeCount, static_cast<uint32_t>(free_pages.size()));
  heap.Encode(p + f::kCatHeapChain);
  StoreLe<uint32_t>(p + f::kCatChainIds, chain_ids);
  StoreLe<uint32_t>(p + f::kCatMapCount, static_cast<uint32_t>(map_leaves.size()));
  p += f::kCatalogueHeaderSize;
  auto put_bytes = [&](std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  };
  for (const ArrayDesc& a : arrays) {
    const bool own = !a.per_process();
    StoreLe<uint32_t>(p + f::kArId, a.id.value);
    StoreLe<uint16_t>(p + f::kArNameLength, own ? static_cast<uint16_t>(a.name.size()) : 0);
    StoreLe<uint16_t>(p + f::kArFieldCount, own ? static_cast<uint16_t>(a.schema.fields().size()) : 0);
    StoreLe<uint16_t>(p + f::kArAggregateCount, own ? static_cast<uint16_t>(a.schema.aggregates().size()) : 0);
    StoreLe<uint16_t>(p + f::kArLevelCount, static_cast<uint16_t>(a.levels.size()));
    StoreLe<uint16_t>(p + f::kArTimeField,
                      own && a.schema.time_field() ? static_cast<uint16_t>(*a.schema.time_field()) : f::kNoField);
    StoreLe<uint16_t>(p + f::kArProcessField,
                      own && a.schema.process_field() ? static_cast<uint16_t>(*a.schema.process_field()) : f::kNoField);
    StoreLe<uint32_t>(p + f::kArParent, a.parent.value);
    StoreLe<uint32_t>(p + f::kArFlags,
                      (a.process_index ? f::kArrayProcessIndex : 0) | (a.sole_process ? f::kArraySoleProcess : 0));
    StoreLe<int64_t>(p + f::kArProcess, a.process);
    StoreLe<uint32_t>(p + f::kArProcessRoot, a.process_root.value);
    StoreLe<uint16_t>(p + f::kArProcessLevels, a.process_levels);
    StoreLe<uint16_t>(p + f::kArReserved, 0);
    StoreLe<uint64_t>(p + f::kArProcessRootLocation, a.process_root_location.Pack());
    p += f::kArrayFixedSize;
    if (own) {
      put_bytes(a.name);
      for (const Field& fd : a.schema.fields()) {
        StoreLe<uint8_t>(p + f::kFdType, static_cast<uint8_t>(fd.type));
        StoreLe<uint8_t>(p + f::kFdNameLength, static_cast<uint8_t>(fd.name.size()));
        p += f::kFieldFixedSize;
        put_bytes(fd.name);
      }
      for (uint16_t g : a.schema.aggregates()) {
        StoreLe<uint16_t>(p, g);
        p += 2;
      }
    }
    for (const ChainDesc& c : a.levels) {
      c.Encode(p);
      p += f::kChainSize;
    }
  }
  for (PageId id : free_pages) {
    StoreLe<uint32_t>(p, id.value);
    p += 4;
  }
  for (PageId id : map_leaves) {
    StoreLe<uint32_t>(p, id.value);
    p += 4;
  }
  return out;
}

Result<Catalogue> Catalogue::Decode(std::span<const std::byte> bytes, std::string_view where) {
  ByteReader r(bytes, std::string(where));
  Catalogue c;
  XTFQ_ASSIGN_OR_RETURN(uint32_t array_count, r.Read<uint32_t>("array count"));
  XTFQ_ASSIGN_OR_RETURN(uint32_t free_count, r.Read<uint32_t>("free page count"));
  XTFQ_ASSIGN_OR_RETURN(auto heap, r.Take(f::kChainSize, "heap chain"));
  c.heap = ChainDesc::Decode(heap.data());
  XTFQ_ASSIGN_OR_RETURN(c.chain_ids, r.Read<uint32_t>("chain id count"));
  XTFQ_ASSIGN_OR_RETURN(uint32_t map_count, r.Read<uint32_t>("page map leaf count"));
  if (c.chain_ids == 0) return r.Corrupt("chain id count 0 (it counts id 0)");
  // The smallest array descriptor (a per-process one) is a fixed part and one chain.
  if (array_count > r.remaining() / (f::kArrayFixedSize + f::kChainSize)) {
    return r.Corrupt(fmt::format("{} arrays cannot fit in {} bytes", array_count, r.remaining()));
  }
  std::set<std::string> names;
  for (uint32_t i = 0; i < array_count; ++i) {
    const size_t start = r.offset();
    XTFQ_ASSIGN_OR_RETURN(auto fixed, r.Take(f::kArrayFixedSize, "array descriptor"));
    ArrayDesc a;
    a.id = ArrayId(LoadLe<uint32_t>(fixed.data() + f::kArId));
    const uint16_t name_len = LoadLe<uint16_t>(fixed.data() + f::kArNameLength);
    const uint16_t field_count = LoadLe<uint16_t>(fixed.data() + f::kArFieldCount);
    const uint16_t agg_count = LoadLe<uint16_t>(fixed.data() + f::kArAggregateCount);
    const uint16_t level_count = LoadLe<uint16_t>(fixed.data() + f::kArLevelCount);
    const uint16_t time_field = LoadLe<uint16_t>(fixed.data() + f::kArTimeField);
    const uint16_t process_field = LoadLe<uint16_t>(fixed.data() + f::kArProcessField);
    a.parent = ArrayId(LoadLe<uint32_t>(fixed.data() + f::kArParent));
    const uint32_t flags = LoadLe<uint32_t>(fixed.data() + f::kArFlags);
    a.process = LoadLe<int64_t>(fixed.data() + f::kArProcess);
    a.process_index = (flags & f::kArrayProcessIndex) != 0;
    a.sole_process = (flags & f::kArraySoleProcess) != 0;
    a.process_root = PageId(LoadLe<uint32_t>(fixed.data() + f::kArProcessRoot));
    a.process_levels = LoadLe<uint16_t>(fixed.data() + f::kArProcessLevels);
    const uint16_t reserved = LoadLe<uint16_t>(fixed.data() + f::kArReserved);
    a.process_root_location = Location::Unpack(LoadLe<uint64_t>(fixed.data() + f::kArProcessRootLocation));
    auto bad = [&](const std::string& m) {
      return Error(ErrorCode::kCorrupt, fmt::format("{} byte {}: array {}: {}", where, start, i + 1, m));
    };
    if (a.id.value != i + 1) return bad(fmt::format("array id {} where {} was expected", a.id.value, i + 1));
    if (level_count < 1 || level_count > f::kMaxLevels)
      return bad(fmt::format("{} levels (1 to {} allowed)", level_count, f::kMaxLevels));
    if ((flags & ~f::kKnownArrayFlags) != 0 || reserved != 0)
      return bad(fmt::format("unknown flags {:#x} or reserved {}", flags, reserved));
    if ((a.process_root.value == 0) != (a.process_levels == 0) || a.process_levels > f::kMaxLevels ||
        (!a.process_index && a.process_root.value != 0) ||
        (a.process_root.value == 0) != (a.process_root_location == Location{}) ||
        (a.process_root.value != 0 && !a.process_root_location.stored())) {
      return bad(fmt::format("process tree root {} with {} levels", a.process_root.value, a.process_levels));
    }
    if (a.per_process()) {
      const ArrayDesc* parent = a.parent.value < a.id.value ? c.Get(a.parent) : nullptr;
      if (parent == nullptr || parent->per_process() || !parent->process_index || parent->sole_process) {
        return bad(fmt::format("parent {} is not an earlier array with a process index of copies", a.parent.value));
      }
      if (name_len != 0 || field_count != 0 || agg_count != 0 || time_field != f::kNoField ||
          process_field != f::kNoField || a.process_index || a.sole_process) {
        return bad("a per-process array has a name, fields or a process index of its own");
      }
      a.name = ArrayDesc::ProcessArrayName(parent->name, a.process);
      a.schema = parent->schema;
    } else {
      if (name_len == 0 || name_len > f::kMaxNameLength) return bad(fmt::format("name length {}", name_len));
      if (a.sole_process && (!a.process_index || a.process_root.value == 0)) {
        return bad("a sole process without a process index and its tree");
      }
      if (a.process != 0 && !a.sole_process) return bad(fmt::format("process {} on an array of its own", a.process));
      XTFQ_ASSIGN_OR_RETURN(a.name, r.ReadString(name_len, "array name"));
      if (!names.insert(a.name).second) return bad(fmt::format("name '{}' used twice", a.name));
      std::vector<std::pair<std::string, FieldType>> fields;
      for (uint16_t k = 0; k < field_count; ++k) {
        XTFQ_ASSIGN_OR_RETURN(uint8_t type, r.Read<uint8_t>("field type"));
        XTFQ_ASSIGN_OR_RETURN(uint8_t len, r.Read<uint8_t>("field name length"));
        if (!ValidFieldType(type)) return bad(fmt::format("field {} has unknown type {}", k, type));
        XTFQ_ASSIGN_OR_RETURN(std::string fname, r.ReadString(len, "field name"));
        fields.emplace_back(std::move(fname), static_cast<FieldType>(type));
      }
      std::vector<uint16_t> aggs;
      for (uint16_t k = 0; k < agg_count; ++k) {
        XTFQ_ASSIGN_OR_RETURN(uint16_t g, r.Read<uint16_t>("aggregate field"));
        aggs.push_back(g);
      }
      Result<Schema> schema = Schema::FromIndexes(fields, aggs, time_field, process_field);
      if (!schema.ok()) return bad(schema.error().message());
      a.schema = std::move(*schema);
      if (a.process_index && !a.schema.process_field()) return bad("a process index without a process field");
    }
    a.levels.clear();
    for (uint16_t k = 0; k < level_count; ++k) {
      XTFQ_ASSIGN_OR_RETURN(auto chain, r.Take(f::kChainSize, "level chain"));
      a.levels.push_back(ChainDesc::Decode(chain.data()));
    }
    c.arrays.push_back(std::move(a));
  }
  if (uint64_t{free_count} + map_count != r.remaining() / 4 || r.remaining() % 4 != 0) {
    return r.Corrupt(fmt::format("{} free pages and {} page map leaves announced, {} bytes left", free_count, map_count,
                                 r.remaining()));
  }
  for (uint32_t i = 0; i < free_count; ++i) {
    XTFQ_ASSIGN_OR_RETURN(uint32_t id, r.Read<uint32_t>("free page"));
    c.free_pages.emplace_back(id);
  }
  for (uint32_t i = 0; i < map_count; ++i) {
    XTFQ_ASSIGN_OR_RETURN(uint32_t id, r.Read<uint32_t>("page map leaf"));
    c.map_leaves.emplace_back(id);
  }
  c.IndexNames();
  return c;
}

Status Catalogue::Validate(uint32_t page_size, uint32_t page_count, std::string_view where) const {
  XTFQ_TRY(heap.Validate(PageCapacity(page_size, 1), chain_ids, fmt::format("{}: heap chain", where)));
  for (const ArrayDesc& a : arrays) {
    if (a.schema.record_width() > page_size - f::kPageHeaderSize) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: array '{}': records of {} bytes do not fit a page", where,
                                                    a.name, a.schema.record_width()));
    }
    if (a.process_root.value >= chain_ids) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: array '{}': process tree root {} outside chain ids 1..{}",
                                                    where, a.name, a.process_root.value, chain_ids - 1));
    }
    if (a.process_index && a.record_count() > 0 && a.process_root == kNoPage) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: array '{}' has a process index and {} records but no "
                                                    "process tree",
                                                    where, a.name, a.record_count()));
    }
    for (size_t l = 0; l < a.levels.size(); ++l) {
      const uint32_t width = l == 0 ? a.schema.record_width() : IndexEntry::Width(a.schema);
      const uint32_t cap = PageCapacity(page_size, width);
      const std::string at = fmt::format("{}: array '{}' level {}", where, a.name, l);
      if (cap < (l == 0 ? 1u : 2u)) return Error(ErrorCode::kCorrupt, at + ": too few entries fit a page");
      XTFQ_TRY(a.levels[l].Validate(cap, chain_ids, at, l > 0));
      if (l > 0) {
        // One entry per full page of the level below; the top level has no full page.
        const uint64_t below =
            a.levels[l - 1].FullPages(PageCapacity(page_size, l == 1 ? a.schema.record_width() : width));
        if (a.levels[l].entries != below) {
          return Error(ErrorCode::kCorrupt,
                       fmt::format("{}: {} entries for {} full pages below", at, a.levels[l].entries, below));
        }
      }
      if (l + 1 == a.levels.size() && a.levels[l].FullPages(cap) != 0) {
        return Error(ErrorCode::kCorrupt, at + ": the top level has full pages (it must be one open page)");
      }
      if (l + 1 < a.levels.size() && a.levels[l].FullPages(cap) == 0) {
        return Error(ErrorCode::kCorrupt, at + ": a level below the top has no full page");
      }
    }
  }
  std::unordered_set<uint32_t> seen;
  for (PageId id : free_pages) {
    if (id.value < f::kFirstDataPage || id.value >= page_count) {
      return Error(ErrorCode::kCorrupt,
                   fmt::format("{}: free page {} outside pages 2..{}", where, id.value, page_count - 1));
    }
    if (!seen.insert(id.value).second) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: page {} is free twice", where, id.value));
    }
  }
  const uint64_t per_leaf = (page_size - f::kPageHeaderSize) / f::kLocationSize;
  if (map_leaves.size() > (uint64_t{chain_ids} + per_leaf - 1) / per_leaf) {
    return Error(ErrorCode::kCorrupt,
                 fmt::format("{}: {} page map leaves for {} chain ids", where, map_leaves.size(), chain_ids));
  }
  for (size_t j = 0; j < map_leaves.size(); ++j) {
    const PageId id = map_leaves[j];
    if (id == kNoPage) continue;
    if (id.value < f::kFirstDataPage || id.value >= page_count) {
      return Error(ErrorCode::kCorrupt, fmt::format("{}: page map leaf {} at page {}, outside pages 2..{}", where, j,
                                                    id.value, page_count - 1));
    }
    if (!seen.insert(id.value).second) {
      return Error(ErrorCode::kCorrupt,
                   fmt::format("{}: page {} is a page map leaf and free, or two leaves", where, id.value));
    }
  }
  return Ok();
}

void Catalogue::IndexNames() {
  by_name_.clear(), children_.clear();
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!arrays[i].per_process()) by_name_.emplace(arrays[i].name, i);
    if (arrays[i].per_process()) children_[arrays[i].parent.value].push_back(i);
  }
  for (auto& [parent, positions] : children_) {
    std::stable_sort(positions.begin(), positions.end(),
                     [&](size_t x, size_t y) { return arrays[x].process < arrays[y].process; });
  }
  indexed_size_ = arrays.size();
}

std::vector<const ArrayDesc*> Catalogue::Children(ArrayId parent, int64_t p1, int64_t p2) const {
  std::vector<const ArrayDesc*> out;
  const auto in = [&](const ArrayDesc& a) { return a.process >= p1 && (a.process < p2 || p2 == INT64_MAX); };
  // A sole-process array is its own only per-process array.
  if (const ArrayDesc* self = Get(parent); self != nullptr && self->sole_process) {
    if (in(*self)) out.push_back(self);
    return out;
  }
  if (indexed_size_ != 0 && indexed_size_ == arrays.size()) {
    auto it = children_.find(parent.value);
    if (it == children_.end()) return out;
    const std::vector<size_t>& pos = it->second;
    auto first =
        std::lower_bound(pos.begin(), pos.end(), p1, [&](size_t i, int64_t p) { return arrays[i].process < p; });
    for (; first != pos.end() && in(arrays[*first]); ++first) {
      // (checked against the array itself, as Find does)
      if (arrays[*first].parent == parent) out.push_back(&arrays[*first]);
    }
    return out;
  }
  for (const ArrayDesc& a : arrays) {
    if (a.parent == parent && in(a)) out.push_back(&a);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ArrayDesc* x, const ArrayDesc* y) { return x->process < y->process; });
  return out;
}

const ArrayDesc* Catalogue::Find(std::string_view name) const {
  if (indexed_size_ != 0 && indexed_size_ == arrays.size()) {
    // A hit is checked against the array itself; the scan below answers if the arrays changed.
    auto it = by_name_.find(std::string(name));
    if (it == by_name_.end()) return nullptr;
    const ArrayDesc& a = arrays[it->second];
    if (!a.per_process() && a.name == name) return &a;
  }
  for (const ArrayDesc& a : arrays) {
    if (!a.per_process() && a.name == name) return &a;
  }
  return nullptr;
}

const ArrayDesc* Catalogue::Get(ArrayId id) const {
  if (id.value == 0 || id.value > arrays.size()) return nullptr;
  return &arrays[id.value - 1];
}

}  // namespace xtfq
