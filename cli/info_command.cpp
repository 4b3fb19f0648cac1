#include "cli/info_command.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "importers/darshan_log.h"
#include "query/jobstats_store.h"
#include "query/darshan_logs.h"
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
  uint64_t data_pages = 0, index_pages = 0, tree_pages = 0, shadows = heap.shadow, opens = heap.open;
  // Per array: data pages and index pages, each counting the open page's shadow once.
  struct Pages {
    uint64_t data = 0, index = 0;
    nlohmann::json levels = nlohmann::json::array();
  };
  std::vector<Pages> pages(cat.arrays.size());
  for (const ArrayDesc& a : cat.arrays) {
    Pages& ap = pages[a.id.value - 1];
    for (size_t l = 0; l < a.levels.size(); ++l) {
      const uint32_t width = l == 0 ? a.schema.record_width() : IndexEntry::Width(a.schema);
      ChainPages lc = Count(a.levels[l], sb.page_size, width);
      (l == 0 ? data_pages : index_pages) += lc.full;
      shadows += lc.shadow;
      opens += lc.open;
      (l == 0 ? ap.data : ap.index) += lc.full + lc.shadow;
      ap.levels.push_back({{"level", l}, {"pages", lc.full + lc.shadow}, {"entries_per_page", PageCapacity(sb.page_size, width)}});
    }
  }
  nlohmann::json arrays = nlohmann::json::array();
  for (const ArrayDesc& a : cat.arrays) {
    if (a.per_process()) continue;
    const Pages& ap = pages[a.id.value - 1];
    nlohmann::json fields = nlohmann::json::array();
    for (const Field& fd : a.schema.fields()) {
      fields.push_back({{"name", fd.name}, {"type", FieldTypeName(fd.type)}, {"offset", fd.offset}});
    }
    nlohmann::json aggs = nlohmann::json::array();
    for (uint16_t g : a.schema.aggregates()) aggs.push_back(a.schema.fields()[g].name);
    uint64_t all_pages = ap.data + ap.index;
    nlohmann::json pj = nullptr;
    if (a.process_index) {
      // The process tree's pages follow from the number of processes: every level full but its last.
      uint64_t processes = 0, pdata = 0, pindex = 0, ptree = 0;
      for (const ArrayDesc& c : cat.arrays) {
        if (c.parent != a.id) continue;
        ++processes;
        pdata += pages[c.id.value - 1].data;
        pindex += pages[c.id.value - 1].index;
      }
      const uint32_t cap = PageCapacity(sb.page_size, IndexEntry::Width(a.schema));
      for (uint64_t n = processes; n > 0;) {
        const uint64_t level_pages = (n + cap - 1) / cap;
        ptree += level_pages;
        n = level_pages == 1 ? 0 : level_pages;
      }
      tree_pages += ptree;
      all_pages += pdata + pindex + ptree;
      pj = {{"processes", processes}, {"data_pages", pdata}, {"index_pages", pindex},
            {"tree_pages", ptree}, {"tree_height", a.process_levels}};
    }
    arrays.push_back({{"id", a.id.value},
                      {"name", a.name},
                      {"records", a.record_count()},
                      {"record_bytes", a.schema.record_width()},
                      {"records_per_page", PageCapacity(sb.page_size, a.schema.record_width())},
                      {"full_pages", a.levels[0].FullPages(PageCapacity(sb.page_size, a.schema.record_width()))},
                      {"open_page_records", a.levels[0].OpenEntries(PageCapacity(sb.page_size, a.schema.record_width()))},
                      {"fields", fields},
                      {"aggregates", aggs},
                      {"height", a.levels.size()},
                      {"levels", ap.levels},
                      {"index_pages", ap.index},
                      {"index_overhead", ap.data == 0 ? 0.0 : static_cast<double>(ap.index) / static_cast<double>(ap.data)},
                      {"process_index", pj},
                      {"bytes_per_record", a.record_count() == 0 ? 0.0 : static_cast<double>(all_pages * p) / static_cast<double>(a.record_count())}});
  }
  // Darshan logs: the job of each, and what the text imports lack.
  nlohmann::json darshan = nlohmann::json::array();
  if (cat.Find(DarshanLayout::kLogs) != nullptr) {
    auto reader = StoreReader::Open(store_);
    if (!reader.ok()) return Fail("info", reader.error());
    auto logs = DarshanLogs::List(**reader);
    if (!logs.ok()) return Fail("info", logs.error());
    for (const DarshanLogInfo& l : *logs) {
      nlohmann::json partial = nlohmann::json::array();
      for (int slot = 0; slot < DarshanLog::kSlots; ++slot) {
        if ((l.partial >> slot) & 1) {
          const std::string_view n = DarshanLog::ModuleName(slot);
          partial.push_back(n.empty() ? fmt::format("slot {}", slot) : std::string(n));
        }
      }
      const bool text = l.source == DarshanLayout::SourceKind::kParserText;
      darshan.push_back({{"log", l.log}, {"job", l.job}, {"uid", l.uid}, {"nprocs", l.nprocs},
                         {"format", fmt::format("3.{:02}", l.format_minor)}, {"start_sec", l.start_sec},
                         {"end_sec", l.end_sec}, {"exe", l.exe}, {"file", l.file},
                         {"source", text ? "darshan-parser text" : "binary log"}, {"source_bytes", l.source_bytes},
                         {"partial_modules", partial},
                         {"note", text ? "floating-point counters carry only the six decimals darshan-parser prints; "
                                         "no DXT segments; job nanoseconds unknown"
                                       : ""}});
    }
  }
  // job_stats: targets, collections, entries, series per job id class.
  nlohmann::json jobstats;
  if (JobStatsStore::Holds(s)) {
    auto reader = StoreReader::Open(store_);
    if (!reader.ok()) return Fail("info", reader.error());
    auto js = JobStatsStore::Open(**reader);
    if (!js.ok()) return Fail("info", js.error());
    auto span = (*js)->Span();
    if (!span.ok()) return Fail("info", span.error());
    std::map<std::string, uint64_t> per_class;
    for (size_t c = 0; c < kJobIdClasses; ++c) per_class[std::string(JobIdClassName(static_cast<JobIdClass>(c)))] = 0;
    for (const JobStatsSeriesInfo& x : (*js)->series()) ++per_class[std::string(JobIdClassName(x.cls))];
    const nlohmann::json classes = per_class;
    jobstats = {{"targets", (*js)->targets().size()}, {"ops", (*js)->ops()}, {"collections", (*js)->collections()},
                {"entries", (*js)->entries()}, {"series", (*js)->series().size()}, {"classes", classes},
                {"first", *span ? (*span)->first : 0}, {"last", *span ? (*span)->second : 0}};
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
        {"process_tree", tree_pages},
        {"heap", heap.full},
        {"shadow", shadows},
        {"open_reserved", opens},
        {"free", free_pages}}},
      {"free_bytes", free_pages * p},
      {"heap_bytes", cat.heap.entries},
      {"catalogue_bytes", sb.catalogue_bytes},
      {"arrays", arrays},
      {"darshan_logs", darshan},
      {"jobstats", jobstats},
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
  fmt::print("pages        {} ({}): {} data, {} index, {} process tree, {} heap, {} catalogue, {} shadow, {} open (reserved), {} free, {} superblock\n",
             sb.page_count, Bytes(sb.page_count * p), data_pages, index_pages, tree_pages, heap.full, sb.catalogue_pages,
             shadows, opens, free_pages, format::kSuperblockSlots);
  fmt::print("free space   {} in {} free pages\n", Bytes(free_pages * p), free_pages);
  fmt::print("string heap  {}\n", Bytes(cat.heap.entries));
  fmt::print("arrays       {}\n", arrays.size());
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
    if (const auto& pi = a["process_index"]; !pi.is_null()) {
      fmt::print("  {:<12} P index: {} processes, each with its own TN tree ({} data + {} index pages); process tree "
                 "height {}, {} pages\n", "", pi["processes"].get<uint64_t>(), pi["data_pages"].get<uint64_t>(),
                 pi["index_pages"].get<uint64_t>(), pi["tree_height"].get<uint32_t>(), pi["tree_pages"].get<uint64_t>());
    }
    fmt::print("  {:<12} {:.2f} bytes per record on disk, all of the above included\n", "", a["bytes_per_record"].get<double>());
  }
  if (!cat.arrays.empty()) fmt::print("(* marks aggregated fields)\n");
  if (!darshan.empty()) fmt::print("darshan logs {}\n", darshan.size());
  for (const auto& d : darshan) {
    std::string partial;
    for (const auto& m : d["partial_modules"]) partial += (partial.empty() ? "" : ", ") + m.get<std::string>();
    fmt::print("  log {}: job {}, uid {}, {} processes, format {}, run {} s, from {} ({}, {})\n", d["log"].get<int64_t>(),
               d["job"].get<int64_t>(), d["uid"].get<int64_t>(), d["nprocs"].get<int64_t>(), d["format"].get<std::string>(),
               d["end_sec"].get<int64_t>() - d["start_sec"].get<int64_t>(), d["file"].get<std::string>(),
               d["source"].get<std::string>(), Bytes(d["source_bytes"].get<uint64_t>()));
    fmt::print("    exe: {}\n", d["exe"].get<std::string>());
    if (!partial.empty()) fmt::print("    incomplete data (partial flag) in: {}\n", partial);
    if (!d["note"].get<std::string>().empty()) fmt::print("    note: {}\n", d["note"].get<std::string>());
  }
  if (!jobstats.is_null()) {
    fmt::print("job_stats:   {} targets, {} collections from {} to {}, {} entries, {} series\n", jobstats["targets"].get<uint64_t>(),
               jobstats["collections"].get<uint64_t>(), jobstats["first"].get<int64_t>(), jobstats["last"].get<int64_t>(),
               jobstats["entries"].get<uint64_t>(), jobstats["series"].get<uint64_t>());
    std::string cls;
    for (const auto& [k, v] : jobstats["classes"].items()) cls += fmt::format("{}{} {}", cls.empty() ? "" : ", ", k, v.get<uint64_t>());
    fmt::print("  series per job id class: {}\n", cls);
    fmt::print("  ops: {}\n", fmt::join(jobstats["ops"].get<std::vector<std::string>>(), " "));
  }
  return kExitOk;
}

}  // namespace xtfq::cli
