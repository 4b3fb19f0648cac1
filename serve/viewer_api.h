// ViewerApi: what `xtfq serve` answers (docs/viewer.md): the viewer's files, embedded in the
// binary, and a JSON API over the query layer, the same result types and JSON as the command line
// (query/answers/result_json.h):
//   GET /api/stores                  the stores served: kind, and their Darshan logs
//   GET /api/grid?store=S&...        `xtfq grid` (time, ranks, processes, cols, rows, metric, op,
//                                    module, log, job, array, by, snap)
//   GET /api/query?store=S&...       `xtfq query` on Darshan logs (time, ranks, module, log, job,
//                                    file, per_file, top) or job_stats (time, by, op, top, sort)
//   GET /api/segments?store=S&...    `xtfq segments` (time, ranks, op, module, log, job, offset,
//                                    limit)
//   GET /api/heatmap?store=S&...     `xtfq heatmap --jobstats` (time, op, base, cell, by, job)
//   GET /api/job?id=ID&...           `xtfq job ID` over every store served (windows, window)
// Every API request carries the server's token (`token=`) unless it runs without one (the app's
// files need none: they are in the binary, and the page passes the token on). Errors are JSON
// {"error": "..."}: 400 for parameters that do not parse or do not apply, 403 for a missing or wrong
// token, 404 for unknown paths, stores and logs, 405 for methods other than GET and HEAD, 500 for
// what a store's reading failed on. The server keeps serving after any of them.
//
// Thread-safety: Handle may be called from several threads; each store's reader is used by one
// request at a time.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "query/core/store_kind.h"
#include "query/core/store_reader.h"
#include "query/jobstats/jobstats_view.h"
#include "query/slurm/slurm_view.h"
#include "serve/http_message.h"

namespace xtfq::serve {

class ViewerApi {
 public:
  // Opens every store (the error names the first that fails). An empty token: none required.
  static Result<std::unique_ptr<ViewerApi>> Open(const std::vector<std::string>& stores, std::string token);

  HttpResponse Handle(const HttpRequest& request);
  // The largest grid a request may ask (columns x rows): a viewer asks for its pixels' worth.
  static constexpr uint64_t kMaxGridCells = uint64_t{1} << 20;

 private:
  struct Served {
    std::string path;
    std::unique_ptr<StoreReader> reader;
    // Its job_stats (the series table read once, at the first job_stats request), or none.
    std::unique_ptr<JobStatsView> jobstats;
    // Its Slurm series (read once, at the first Slurm request), or none.
    std::unique_ptr<SlurmView> slurm;
    std::mutex mutex;
  };
  explicit ViewerApi(std::string token) : token_(std::move(token)) {}
  HttpResponse Answer(const HttpRequest& request);
  Result<std::string> Stores();
  Result<std::string> Grid(const HttpRequest& r);
  Result<std::string> Query(const HttpRequest& r);
  Result<std::string> Segments(const HttpRequest& r);
  Result<std::string> Heatmap(const HttpRequest& r);
  Result<std::string> Job(const HttpRequest& r);
  // The kind the store's answers are of (query/core/store_kind.h), and its job_stats or Slurm view
  // (opened at the first use).
  static StoreKind KindOf(StoreReader& r);
  static Result<JobStatsView*> JobStats(Served& s);
  static Result<SlurmView*> Slurm(Served& s);
  Result<Served*> Store(const HttpRequest& r);

  std::string token_;
  std::vector<std::unique_ptr<Served>> stores_;
};

}  // namespace xtfq::serve
