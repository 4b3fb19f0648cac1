#include "cli/info_command.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "store/format.h"
#include "store/index_entry.h"
#include "store/store.h"

namespace xtfq::cli {

CLI::App* InfoCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("info", "Show a store's layout: pages, generation, free space, arrays");
  app->add_option("STORE", store_, "store file")->required();
  app->add_option("--format", format_, "output format")->check(CLI::IsMember({"text", "json"}));
  return app;
}

namespace {

std::string Bytes(uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", n) : fmt::format("{:.1f} {}", v, units[u]);
}

struct ChainPages {
  uint64_t full = 0;
  uint64_t open = 0;    // reserved open pages (0 or 1)
  uint64_t shadow = 0;  // 0 or 1
};

ChainPages Count(const ChainDesc& c, uint32_t page_size, uint32_t width) {
  const uint32_t cap = PageCapacity(page_size, width);
  return ChainPages{c.FullPages(cap), c.open != kNoPage ? 1u : 0u, c.shadow != kNoPage ? 1u : 0u};
}

}  // namespace

int InfoCommand::Run() {
  auto opened = Store::OpenPath(store_);
  if (!opened.ok()) return Fail("info", opened.error());
  Store& s = **opened;
  const Superblock& sb = s.superblock();
  const Catalogue& cat = s.catalogue();
  const uint64_t p = sb.page_size;

  ChainPages heap = Count(cat.heap, sb.page_size, 1);
  uint64_t data_pages = 0, index_pages = 0, shadows = heap.shadow, opens = heap.open;
  nlohmann::json arrays = nlohmann::json::array();
  for (const ArrayDesc& a : cat.arrays) {
    ChainPages c = Count(a.levels[0], sb.page_size, a.schema.record_width());
    data_pages += c.full;
    shadows += c.shadow;
    opens += c.open;
    // Pages per level, counting each level's open page (its shadow) once.
    nlohmann::json levels = nlohmann::json::array();
    uint64_t array_index = 0;
    for (size_t l = 0; l < a.levels.size(); ++l) {
      const uint32_t width = l == 0 ? a.schema.record_width() : IndexEntry::Width(a.schema);
      ChainPages lc = Count(a.levels[l], sb.page_size, width);
      if (l > 0) {
        index_pages += lc.full;
        shadows += lc.shadow;
        opens += lc.open;
        array_index += lc.full + lc.shadow;
      }
      levels.push_back({{"level", l}, {"pages", lc.full + lc.shadow}, {"entries_per_page", PageCapacity(sb.page_size, width)}});
    }
    const uint64_t array_data = c.full + c.shadow;
    nlohmann::json fields = nlohmann::json::array();
    for (const Field& fd : a.schema.fields()) {
      fields.push_back({{"name", fd.name}, {"type", FieldTypeName(fd.type)}, {"offset", fd.offset}});
    }
    nlohmann::json aggs = nlohmann::json::array();
    for (uint16_t g : a.schema.aggregates()) aggs.push_back(a.schema.fields()[g].name);
    arrays.push_back({{"id", a.id.value},
                      {"name", a.name},
                      {"records", a.record_count()},
                      {"record_bytes", a.schema.record_width()},
                      {"records_per_page", PageCapacity(sb.page_size, a.schema.record_width())},
                      {"full_pages", c.full},
                      {"open_page_records", a.levels[0].OpenEntries(PageCapacity(sb.page_size, a.schema.record_width()))},
                      {"fields", fields},
                      {"aggregates", aggs},
                      {"height", a.levels.size()},
                      {"levels", levels},
                      {"index_pages", array_index},
                      {"index_overhead", array_data == 0 ? 0.0 : static_cast<double>(array_index) / static_cast<double>(array_data)}});
  }
  const uint64_t free_pages = cat.free_pages.size();
  nlohmann::json j = {
      {"store", s.name()},
      {"format_version", sb.version},
      {"page_size", sb.page_size},
      {"generation", sb.generation},
      {"superblock_slot", s.superblock_slot()},
      {"commit_time_ns", sb.commit_time_ns},
      {"page_count", sb.page_count},
      {"file_bytes", s.file_size()},
      {"pages",
       {{"superblock", format::kSuperblockSlots},
        {"catalogue", sb.catalogue_pages},
        {"data", data_pages},
        {"index", index_pages},
        {"heap", heap.full},
        {"shadow", shadows},
        {"open_reserved", opens},
        {"free", free_pages}}},
      {"free_bytes", free_pages * p},
      {"heap_bytes", cat.heap.entries},
      {"catalogue_bytes", sb.catalogue_bytes},
      {"arrays", arrays},
  };
  if (format_ == "json") {
    fmt::print("{}\n", j.dump(2));
    return kExitOk;
  }
  const auto when = std::chrono::sys_time<std::chrono::seconds>(std::chrono::seconds(sb.commit_time_ns / 1000000000));
  fmt::print("store        {}\n", s.name());
  fmt::print("format       version {}, page size {} B\n", sb.version, sb.page_size);
  fmt::print("generation   {} (superblock {}, committed {:%Y-%m-%dT%H:%M:%SZ})\n", sb.generation,
             s.superblock_slot(), when);
  fmt::print("pages        {} ({}): {} data, {} index, {} heap, {} catalogue, {} shadow, {} open (reserved), {} free, {} superblock\n",
             sb.page_count, Bytes(sb.page_count * p), data_pages, index_pages, heap.full, sb.catalogue_pages, shadows,
             opens, free_pages, format::kSuperblockSlots);
  fmt::print("free space   {} in {} free pages\n", Bytes(free_pages * p), free_pages);
  fmt::print("string heap  {}\n", Bytes(cat.heap.entries));
  fmt::print("arrays       {}\n", cat.arrays.size());
  for (const auto& a : arrays) {
    fmt::print("  {:<12} {} records of {} B ({} per page) in {} full pages + {} records in the open page\n",
               a["name"].get<std::string>(), a["records"].get<uint64_t>(), a["record_bytes"].get<uint32_t>(),
               a["records_per_page"].get<uint32_t>(), a["full_pages"].get<uint64_t>(),
               a["open_page_records"].get<uint32_t>());
    fmt::print("  {:<12} fields {}\n", "", cat.Find(a["name"].get<std::string>())->schema.Describe());
    std::string per_level;
    for (const auto& l : a["levels"]) {
      per_level += fmt::format("{}{}", per_level.empty() ? "" : " / ", l["pages"].get<uint64_t>());
    }
    fmt::print("  {:<12} TN tree height {}, pages per level (leaves first) {}, index {} pages = {:.2f}% of data pages\n",
               "", a["height"].get<size_t>(), per_level, a["index_pages"].get<uint64_t>(),
               100.0 * a["index_overhead"].get<double>());
  }
  if (!cat.arrays.empty()) fmt::print("(* marks aggregated fields)\n");
  return kExitOk;
}

}  // namespace xtfq::cli
