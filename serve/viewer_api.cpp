#include "serve/viewer_api.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

#include "layouts/darshan_layout.h"
#include "layouts/grid_layout.h"
#include "query/answers/grid_answer.h"
#include "query/answers/job_timeline.h"
#include "query/answers/result_json.h"
#include "query/arrays/array_window_query.h"
#include "query/darshan/darshan_logs.h"
#include "query/darshan/darshan_segments_query.h"
#include "query/darshan/darshan_window_query.h"
#include "query/jobstats/jobstats_heatmap_query.h"
#include "query/jobstats/jobstats_view.h"
#include "query/jobstats/jobstats_window_query.h"
#include "query/slurm/slurm_window_query.h"
#include "serve/web_assets.h"

namespace xtfq::serve {

namespace {

Error Bad(std::string message) { return Error(ErrorCode::kUsage, std::move(message)); }

const std::string* Param(const HttpRequest& r, const std::string& name) {
  auto it = r.params.find(name);
  return it == r.params.end() ? nullptr : &it->second;
}

Result<std::optional<int64_t>> Int(const HttpRequest& r, const std::string& name) {
  const std::string* v = Param(r, name);
  if (v == nullptr) return std::optional<int64_t>();
  int64_t out = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || end != v->data() + v->size() || v->empty()) {
    return Bad(fmt::format("{}={}: not an integer", name, *v));
  }
  return std::optional<int64_t>(out);
}

Result<uint32_t> Count(const HttpRequest& r, const std::string& name, uint32_t fallback) {
  XTFQ_ASSIGN_OR_RETURN(std::optional<int64_t> v, Int(r, name));
  if (!v) return fallback;
  if (*v < 1 || *v > 1'000'000) return Bad(fmt::format("{}={}: give 1 to 1000000", name, *v));
  return static_cast<uint32_t>(*v);
}

Result<bool> Flag(const HttpRequest& r, const std::string& name) {
  const std::string* v = Param(r, name);
  if (v == nullptr || *v == "0" || *v == "false") return false;
  if (v->empty() || *v == "1" || *v == "true") return true;
  return Bad(fmt::format("{}={}: give 1 or 0", name, *v));
}

std::vector<std::string> List(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// Copies each parameter given into its field (those not given keep their defaults).
void Copy(const HttpRequest& r, std::initializer_list<std::pair<const char*, std::string*>> fields) {
  for (const auto& [name, field] : fields) {
    if (const std::string* v = Param(r, name)) *field = *v;
  }
}

// Parameters a request may carry, by endpoint; any other is a 400 (nothing given is ignored).
Status OnlyParams(const HttpRequest& r, std::initializer_list<std::string_view> allowed) {
  for (const auto& [k, v] : r.params) {
    if (k == "token") continue;
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
      return Bad(fmt::format("{}: no parameter '{}' (it takes {})", r.path, k,
                             allowed.size() == 0 ? std::string("none") : fmt::format("{}", fmt::join(allowed, ", "))));
    }
  }
  return Ok();
}

// JSON text; bytes that are not UTF-8 (a path asked, a file name in a log) become U+FFFD rather
// than an exception.
std::string Text(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

HttpResponse Json(int status, const nlohmann::json& j) { return HttpResponse{status, "application/json", Text(j)}; }

HttpResponse Failure(const Error& e) {
  int status = 500;
  switch (e.code()) {
    case ErrorCode::kUsage:
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kUnsupported:  // a question the data cannot answer (per-file rows of heatmaps)
      status = 400;
      break;
    case ErrorCode::kNotFound:
      status = 404;
      break;
    default:
      break;
  }
  return Json(status, {{"error", e.message()}});
}

}  // namespace

Result<std::unique_ptr<ViewerApi>> ViewerApi::Open(const std::vector<std::string>& stores, std::string token) {
  std::unique_ptr<ViewerApi> api(new ViewerApi(std::move(token)));
  for (const std::string& path : stores) {
    auto s = std::make_unique<Served>();
    s->path = path;
    XTFQ_ASSIGN_OR_RETURN(s->reader, StoreReader::Open(path));
    api->stores_.push_back(std::move(s));
  }
  return api;
}

HttpResponse ViewerApi::Handle(const HttpRequest& request) {
  // (an exception must not leave the server's thread)
  try {
    return Answer(request);
  } catch (const std::exception& e) {
    return Json(500, {{"error", fmt::format("{}: {}", request.path, e.what())}});
  }
}

HttpResponse ViewerApi::Answer(const HttpRequest& request) {
  if (request.method != "GET" && request.method != "HEAD") {
    return Json(405, {{"error", fmt::format("{} {}: only GET and HEAD", request.method, request.path)}});
  }
  // The app's files are public (they are in the binary); the data needs the token.
  if (auto asset = WebAssets::Find(request.path)) {
    return HttpResponse{200, std::string(asset->content_type), std::string(asset->body)};
  }
  if (!token_.empty()) {
    const std::string* t = Param(request, "token");
    if (t == nullptr || *t != token_) {
      return Json(403, {{"error", t == nullptr ? "this server needs its token: open the URL it printed at start "
                                                 "(…?token=…)"
                                               : "wrong token: open the URL the server printed at start"}});
    }
  }
  Result<std::string> body = Error(ErrorCode::kNotFound, fmt::format("{}: no such page or API", request.path));
  if (!request.repeated.empty()) {
    body = Bad(fmt::format("{}: parameter '{}' given more than once", request.path, request.repeated));
  } else if (request.path == "/api/stores") {
    if (Status only = OnlyParams(request, {}); !only.ok()) {
      body = only.error();
    } else {
      body = Stores();
    }
  } else if (request.path == "/api/grid") {
    body = Grid(request);
  } else if (request.path == "/api/query") {
    body = Query(request);
  } else if (request.path == "/api/segments") {
    body = Segments(request);
  } else if (request.path == "/api/heatmap") {
    body = Heatmap(request);
  } else if (request.path == "/api/job") {
    body = Job(request);
  }
  if (!body.ok()) return Failure(body.error());
  return HttpResponse{200, "application/json", std::move(*body)};
}

Result<ViewerApi::Served*> ViewerApi::Store(const HttpRequest& r) {
  XTFQ_ASSIGN_OR_RETURN(std::optional<int64_t> s, Int(r, "store"));
  const int64_t i = s.value_or(0);
  if (i < 0 || static_cast<size_t>(i) >= stores_.size()) {
    return Error(ErrorCode::kNotFound,
                 fmt::format("store={}: the server serves stores 0 to {}", i, stores_.size() - 1));
  }
  return stores_[static_cast<size_t>(i)].get();
}

Result<std::string> ViewerApi::Stores() {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < stores_.size(); ++i) {
    Served& s = *stores_[i];
    std::lock_guard lock(s.mutex);
    nlohmann::json j = {{"store", i}, {"path", s.path}};
    // A store read at the generation before a newer superblock that is not valid (Store::Rollback).
    if (auto lost = s.reader->store().Rollback()) {
      j["warning"] = fmt::format("the other superblock is not valid ({}): this is generation {}", *lost,
                                 s.reader->store().generation());
    }
    const StoreKind kind = KindOf(*s.reader);
    if (kind == StoreKind::kDarshan) {
      XTFQ_ASSIGN_OR_RETURN(std::vector<DarshanLogInfo> logs, DarshanLogs::List(*s.reader));
      j["kind"] = "darshan";
      j["logs"] = nlohmann::json::array();
      const Catalogue& cat = s.reader->catalogue();
      for (const DarshanLogInfo& l : logs) {
        // What the viewer can draw of each module: DXT segments, HEATMAP bins or counter records.
        nlohmann::json lj = ResultJson::Of(l);
        lj["draw"] = nlohmann::json::object();
        for (const std::string m : {"POSIX", "MPI-IO", "STDIO"}) {
          const std::string dxt = m == "POSIX" ? "DXT_POSIX" : m == "MPI-IO" ? "DXT_MPIIO" : "DXT_STDIO";
          const auto has = [&](const std::string& name) { return cat.Find(DarshanLayout::ArrayName(l.log, name)); };
          if (has(dxt + ".read") || has(dxt + ".write")) {
            lj["draw"][m] = "DXT";
          } else if (has(m == "MPI-IO" ? "HEATMAP.MPIIO" : "HEATMAP." + m)) {
            lj["draw"][m] = "HEATMAP";
          } else if (const ArrayDesc* c = has(m); c != nullptr && c->record_count() > 0) {
            lj["draw"][m] = "counters";
          }
        }
        j["logs"].push_back(std::move(lj));
      }
    } else if (kind == StoreKind::kJobStats) {
      // What the view offers: the targets, the ops that have rate steps, the collections' span.
      j["kind"] = "jobstats";
      XTFQ_ASSIGN_OR_RETURN(JobStatsView * view, JobStats(s));
      j["targets"] = view->targets();
      j["series"] = view->series().size();
      j["collections"] = view->collections();
      j["ops"] = nlohmann::json::array();
      for (const std::string& op : view->ops()) {
        if (view->StepsOf(op).ok()) j["ops"].push_back(op);
      }
      XTFQ_ASSIGN_OR_RETURN(auto span, view->Span());
      if (span) j["span"] = {span->first, span->second};
    } else if (kind == StoreKind::kSlurm) {
      // The Slurm jobs it holds, each with its series and span (the job view and query take them).
      j["kind"] = "slurm";
      XTFQ_ASSIGN_OR_RETURN(SlurmView * view, Slurm(s));
      std::map<int64_t, size_t> series;
      for (const SlurmSeries& x : view->series()) series[x.job] += x.duplicate() ? 0 : 1;
      j["jobs"] = nlohmann::json::array();
      for (const auto& [job, n] : series) {
        SlurmFilter f;
        f.jobs = {job};
        XTFQ_ASSIGN_OR_RETURN(std::vector<char> sel, view->Select(f));
        XTFQ_ASSIGN_OR_RETURN(auto span, view->Span(sel));
        nlohmann::json jj = {{"job", job}, {"series", n}};
        jj["span"] = span ? nlohmann::json::array({span->first, span->second}) : nlohmann::json(nullptr);
        j["jobs"].push_back(std::move(jj));
      }
    } else {
      // The arrays of its own (not grid summaries or per-process arrays), which /api/query takes.
      j["kind"] = "arrays";
      j["arrays"] = nlohmann::json::array();
      for (const ArrayDesc& a : s.reader->catalogue().arrays) {
        if (!a.per_process() && !GridLayout::IsGridArray(a.name)) j["arrays"].push_back(a.name);
      }
    }
    out.push_back(std::move(j));
  }
  return Text(nlohmann::json{{"stores", out}});
}

Result<std::string> ViewerApi::Grid(const HttpRequest& r) {
  XTFQ_TRY(OnlyParams(r, {"store", "time", "ranks", "processes", "cols", "rows", "metric", "op", "module", "log", "job",
                          "array", "by", "snap", "fit"}));
  XTFQ_ASSIGN_OR_RETURN(Served * s, Store(r));
  GridAnswerRequest q;
  Copy(r, {{"time", &q.time},
           {"ranks", &q.ranks},
           {"op", &q.op},
           {"module", &q.module},
           {"array", &q.array},
           {"by", &q.by}});
  if (const std::string* v = Param(r, "metric")) q.metrics = List(*v);
  if (const std::string* v = Param(r, "processes")) {
    for (const std::string& p : List(*v)) {
      int64_t id = 0;
      const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), id);
      if (ec != std::errc() || end != p.data() + p.size())
        return Bad(fmt::format("processes: '{}' is not a process id", p));
      q.processes.push_back(id);
    }
  }
  XTFQ_ASSIGN_OR_RETURN(q.cols, Count(r, "cols", 100));
  XTFQ_ASSIGN_OR_RETURN(q.rows, Count(r, "rows", 0));
  XTFQ_ASSIGN_OR_RETURN(q.log, Int(r, "log"));
  if (const std::string* v = Param(r, "job"); v != nullptr && KindOf(*s->reader) == StoreKind::kJobStats) {
    q.filter.jobs = List(*v);  // job_stats: only these jobs
  } else {
    XTFQ_ASSIGN_OR_RETURN(q.job, Int(r, "job"));
  }
  XTFQ_ASSIGN_OR_RETURN(q.snap, Flag(r, "snap"));
  XTFQ_ASSIGN_OR_RETURN(q.fit_rows, Flag(r, "fit"));
  const uint64_t rows = q.processes.empty() ? std::max<uint32_t>(q.rows, 1) : q.processes.size();
  if (uint64_t{q.cols} * rows > kMaxGridCells) {
    return Bad(fmt::format("a grid of {} x {} cells is more than the {} a viewer needs", q.cols, rows, kMaxGridCells));
  }
  std::lock_guard lock(s->mutex);
  XTFQ_ASSIGN_OR_RETURN(GridAnswer a, GridAnswerQuery::Run(*s->reader, q));
  return Text(ResultJson::Of(a));
}

Result<std::string> ViewerApi::Query(const HttpRequest& r) {
  XTFQ_ASSIGN_OR_RETURN(Served * s, Store(r));
  std::lock_guard lock(s->mutex);
  if (KindOf(*s->reader) == StoreKind::kJobStats) {
    XTFQ_TRY(OnlyParams(r, {"store", "time", "by", "op", "top", "sort", "job", "snap"}));
    JobStatsWindowRequest q;
    XTFQ_ASSIGN_OR_RETURN(q.snap, Flag(r, "snap"));
    if (const std::string* v = Param(r, "job")) q.filter.jobs = List(*v);
    Copy(r, {{"time", &q.time}, {"sort", &q.sort}});
    q.by = List(Param(r, "by") != nullptr ? *Param(r, "by") : std::string("job"));
    if (const std::string* v = Param(r, "op")) q.filter.ops = List(*v);
    XTFQ_ASSIGN_OR_RETURN(q.top, Count(r, "top", 0));  // as --top: 1 or more when given; all groups without
    XTFQ_ASSIGN_OR_RETURN(JobStatsView * view, JobStats(*s));
    XTFQ_ASSIGN_OR_RETURN(JobStatsWindowAnswer a, JobStatsWindowQuery::Run(*view, q));
    return Text(ResultJson::Of(a));
  }
  if (KindOf(*s->reader) == StoreKind::kSlurm) {
    XTFQ_TRY(OnlyParams(r, {"store", "time", "by", "job", "step", "node", "task", "kind", "edges"}));
    SlurmWindowRequest q;
    Copy(r, {{"time", &q.time}});
    if (const std::string* v = Param(r, "by")) q.by = List(*v);
    if (const std::string* v = Param(r, "step")) q.filter.steps = List(*v);
    if (const std::string* v = Param(r, "node")) q.filter.nodes = List(*v);
    if (const std::string* v = Param(r, "kind")) q.filter.kinds = List(*v);
    for (const auto& [name, into] : {std::pair{"job", &q.filter.jobs}, std::pair{"task", &q.filter.tasks}}) {
      const std::string* v = Param(r, name);
      if (v == nullptr) continue;
      for (const std::string& x : List(*v)) {
        // As the command line takes them: whole numbers from 0 to 2^62 (a job id as Slurm gives it).
        int64_t n = -1;
        const auto [end, ec] = std::from_chars(x.data(), x.data() + x.size(), n);
        const bool job = std::string_view(name) == "job";
        if (ec != std::errc() || end != x.data() + x.size() || (job && (n < 0 || n > (int64_t{1} << 62))))
          return Bad(fmt::format("{}={}: give {}, comma-separated", name, *v,
                                 job ? "job ids (whole numbers from 0 to 2^62)" : "whole numbers"));
        into->push_back(n);
      }
    }
    if (const std::string* v = Param(r, "edges")) {
      if (*v != "prorate" && *v != "sample") return Bad(fmt::format("edges={}: give prorate or sample", *v));
      q.prorate = *v == "prorate";
    }
    XTFQ_ASSIGN_OR_RETURN(std::vector<SlurmKey> by, SlurmWindowQuery::ParseKeys(q.by));
    XTFQ_ASSIGN_OR_RETURN(SlurmView * view, Slurm(*s));
    XTFQ_ASSIGN_OR_RETURN(SlurmWindow w, SlurmWindowQuery::Run(*view, q));
    return Text(ResultJson::Of(w, by));
  }
  if (KindOf(*s->reader) == StoreKind::kRaw) {
    // A store of raw arrays: as `xtfq query --array`, with buckets for a histogram.
    XTFQ_TRY(OnlyParams(r, {"store", "array", "time", "ranks", "buckets", "scan"}));
    ArrayWindowRequest q;
    Copy(r, {{"array", &q.array}, {"time", &q.time}, {"ranks", &q.ranks}});
    XTFQ_ASSIGN_OR_RETURN(q.buckets, Count(r, "buckets", 0));
    if (q.buckets > kMaxGridCells)
      return Bad(fmt::format("buckets={}: more than the {} a viewer needs", q.buckets, kMaxGridCells));
    XTFQ_ASSIGN_OR_RETURN(q.scan, Flag(r, "scan"));
    XTFQ_ASSIGN_OR_RETURN(ArrayWindowAnswer a, ArrayWindowQuery::Run(*s->reader, q));
    return Text(ResultJson::Of(a));
  }
  XTFQ_TRY(OnlyParams(r, {"store", "time", "ranks", "module", "log", "job", "file", "per_file", "top"}));
  DarshanWindowRequest q;
  Copy(r, {{"time", &q.time}, {"ranks", &q.ranks}, {"module", &q.module}, {"file", &q.file_glob}});
  XTFQ_ASSIGN_OR_RETURN(q.log, Int(r, "log"));
  XTFQ_ASSIGN_OR_RETURN(q.job, Int(r, "job"));
  XTFQ_ASSIGN_OR_RETURN(q.per_file, Flag(r, "per_file"));
  if (Param(r, "top") != nullptr) {
    if (!q.per_file) return Bad("top on Darshan logs lists files: give per_file=1");
    XTFQ_ASSIGN_OR_RETURN(q.top_files, Count(r, "top", 0));
  }
  XTFQ_ASSIGN_OR_RETURN(DarshanWindowAnswer a, DarshanWindowQuery::Run(*s->reader, q));
  return Text(ResultJson::Of(a));
}

Result<SlurmView*> ViewerApi::Slurm(Served& s) {
  if (!s.slurm) {
    XTFQ_ASSIGN_OR_RETURN(s.slurm, SlurmView::Open(*s.reader));
  }
  return s.slurm.get();
}

StoreKind ViewerApi::KindOf(StoreReader& r) { return StoreContents::Of(r.catalogue()).Default(); }

Result<JobStatsView*> ViewerApi::JobStats(Served& s) {
  if (!s.jobstats) {
    XTFQ_ASSIGN_OR_RETURN(s.jobstats, JobStatsView::Open(*s.reader));
  }
  return s.jobstats.get();
}

Result<std::string> ViewerApi::Heatmap(const HttpRequest& r) {
  XTFQ_TRY(OnlyParams(r, {"store", "time", "op", "base", "cell", "by", "job"}));
  XTFQ_ASSIGN_OR_RETURN(Served * s, Store(r));
  if (KindOf(*s->reader) != StoreKind::kJobStats)
    return Bad(fmt::format("store={}: {} holds no job_stats to draw z_b(t, k) of", s->path, s->path));
  JobStatsHeatmapRequest q;
  q.op = "write_bytes";
  Copy(r, {{"time", &q.time}, {"op", &q.op}});
  if (const std::string* v = Param(r, "by")) q.by = List(*v);
  if (const std::string* v = Param(r, "job")) q.filter.jobs = List(*v);
  if (const std::string* v = Param(r, "base")) {
    char* end = nullptr;
    q.base = std::strtod(v->c_str(), &end);
    if (v->empty() || *end != '\0' || !(q.base > 1) || !std::isfinite(q.base)) {
      return Bad(fmt::format("base={}: give a number above 1", *v));
    }
  }
  XTFQ_ASSIGN_OR_RETURN(std::optional<int64_t> cell, Int(r, "cell"));
  if (cell && (*cell < 1 || *cell > 100'000'000))
    return Bad(fmt::format("cell={}: give 1 to 100000000 seconds", *cell));
  q.cell = cell.value_or(q.cell);
  std::lock_guard lock(s->mutex);
  XTFQ_ASSIGN_OR_RETURN(JobStatsView * view, JobStats(*s));
  XTFQ_ASSIGN_OR_RETURN(JobStatsHeatmap h, JobStatsHeatmapQuery::Run(*view, q));
  return Text(ResultJson::Of(h));
}

Result<std::string> ViewerApi::Segments(const HttpRequest& r) {
  XTFQ_TRY(OnlyParams(r, {"store", "time", "ranks", "op", "module", "log", "job", "offset", "limit"}));
  XTFQ_ASSIGN_OR_RETURN(Served * s, Store(r));
  DarshanSegmentsRequest q;
  Copy(r, {{"time", &q.time}, {"ranks", &q.ranks}, {"op", &q.op}, {"module", &q.module}});
  XTFQ_ASSIGN_OR_RETURN(q.log, Int(r, "log"));
  XTFQ_ASSIGN_OR_RETURN(q.job, Int(r, "job"));
  XTFQ_ASSIGN_OR_RETURN(std::optional<int64_t> offset, Int(r, "offset"));
  if (offset && *offset < 0) return Bad(fmt::format("offset={}: give 0 or more", *offset));
  q.offset = static_cast<uint64_t>(offset.value_or(0));
  XTFQ_ASSIGN_OR_RETURN(q.limit, Count(r, "limit", 100));
  std::lock_guard lock(s->mutex);
  XTFQ_ASSIGN_OR_RETURN(DarshanSegmentsAnswer a, DarshanSegmentsQuery::Run(*s->reader, q));
  return Text(ResultJson::Of(a));
}

Result<std::string> ViewerApi::Job(const HttpRequest& r) {
  XTFQ_TRY(OnlyParams(r, {"id", "windows", "window"}));
  XTFQ_ASSIGN_OR_RETURN(std::optional<int64_t> id, Int(r, "id"));
  if (!id || *id < 0) return Bad("give id=JOB (a job id, 0 or more)");
  XTFQ_ASSIGN_OR_RETURN(std::optional<int64_t> windows, Int(r, "windows"));
  XTFQ_ASSIGN_OR_RETURN(std::optional<int64_t> window, Int(r, "window"));
  if (windows && (*windows < 1 || *windows > 100000)) return Bad(fmt::format("windows={}: give 1 to 100000", *windows));
  if (window && (*window < 1 || *window > 1'000'000'000))
    return Bad(fmt::format("window={}: give 1 or more seconds", *window));
  JobTimelineRequest q;
  q.job = *id;
  if (windows) q.max_windows = static_cast<uint32_t>(*windows);
  if (window) q.window_s = static_cast<double>(*window);
  // Every store, each locked in the order served (one order for every request: no deadlock).
  std::vector<std::unique_lock<std::mutex>> locks;
  std::vector<StoreReader*> readers;
  for (auto& s : stores_) {
    locks.emplace_back(s->mutex);
    readers.push_back(s->reader.get());
  }
  XTFQ_ASSIGN_OR_RETURN(JobTimelineAnswer a, JobTimeline::Run(readers, q));
  if (!a.any()) return Error(ErrorCode::kNotFound, a.NotFound());
  return Text(ResultJson::Of(a));
}

}  // namespace xtfq::serve
