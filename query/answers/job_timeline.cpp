#include "query/answers/job_timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "layouts/slurm_layout.h"
#include "query/core/store_kind.h"
#include "query/darshan/darshan_logs.h"
#include "query/darshan/darshan_perf.h"
#include "query/darshan/darshan_window_query.h"
#include "query/jobstats/jobstats_view.h"
#include "query/jobstats/jobstats_window_query.h"
#include "query/slurm/slurm_window_query.h"
#include "store/endian.h"

namespace xtfq {

namespace {

using L = SlurmLayout;

// A Darshan log of the job in one store.
struct DarshanPart {
  StoreReader* reader;
  DarshanLogInfo info;
  int64_t t1 = 0, t2 = 0;  // its run, epoch seconds
  size_t source = 0;       // its line in the answer's sources
};

// The job's job_stats in one store: the view, the filter that selects the job, its targets.
struct JobStatsPart {
  StoreReader* reader;
  std::unique_ptr<JobStatsView> view;
  JobStatsFilter job;      // the job's series
  JobStatsFilter targets;  // every series on the job's targets
};

// The job's Slurm series in one store.
struct SlurmPart {
  StoreReader* reader;
  std::unique_ptr<SlurmView> view;
  std::vector<char> selected;  // the job's series
};

std::string StoreName(StoreReader& r) { return r.store().name(); }

// The jobs a Slurm store holds, for a message ("1, 2, 3 and 4 more").
std::string SlurmJobs(const SlurmView& v) {
  std::set<int64_t> jobs;
  for (const SlurmSeries& s : v.series()) jobs.insert(s.job);
  std::vector<std::string> first;
  for (int64_t j : jobs) {
    if (first.size() == 8) break;
    first.push_back(std::to_string(j));
  }
  return fmt::format("{}{}", fmt::join(first, ", "),
                     jobs.size() > first.size() ? fmt::format(" and {} more", jobs.size() - first.size()) : "");
}

// The seconds [first, last + 1) in which the series `f` selects changed: from the start of the
// first rate step with a change to the end of the last (within the collections' span), read in one
// pass over the series' steps; nullopt when no step of theirs changed. These are the least t with
// a change in [s1, t) and the greatest t with one in [t, s2), by exact window totals: a step's part
// of a window is positive exactly when its change is and it overlaps the window.
Result<std::optional<std::pair<int64_t, int64_t>>> ActiveSpan(JobStatsView& view, const JobStatsFilter& f) {
  using Span = std::optional<std::pair<int64_t, int64_t>>;
  using J = JobStatsLayout;
  XTFQ_ASSIGN_OR_RETURN(auto all, view.Span());
  if (!all) return Span();
  XTFQ_ASSIGN_OR_RETURN(std::vector<char> series, view.SelectSeries(f));
  XTFQ_ASSIGN_OR_RETURN(std::vector<uint32_t> targets, view.SelectTargets(f, series));
  const int64_t s1 = all->first, s2 = all->second + 1;
  int64_t first = s2, last = s1;
  uint64_t read = 0;
  for (const std::string& op : view.ops()) {
    const ArrayDesc* steps = view.reader().store().catalogue().Find(J::StepArrayName(op));
    if (steps == nullptr) continue;  // no rate step of this op in the store
    XTFQ_TRY(view.Steps(*steps, s1, s2, targets, series, false, read, [&](const std::byte* r) {
      if (U64At(r, J::kStepDelta) == 0) return;
      first = std::min(first, std::max(s1, I64At(r, J::kStepT0)));
      last = std::max(last, std::min(s2, I64At(r, J::kStepT1)));
    }));
  }
  if (first >= last) return Span();
  return Span(std::pair{first, last});
}

}  // namespace

std::optional<double> JobTargetLoad::Share() const {
  const double all = target_read + target_write;
  if (all <= 0) return std::nullopt;
  return (job_read + job_write) / all;
}

bool JobTimelineAnswer::any() const {
  return std::any_of(sources.begin(), sources.end(), [](const JobSource& s) { return s.found; });
}

std::string JobTimelineAnswer::NotFound() const {
  std::string why;
  for (const JobSource& s : sources)
    why += fmt::format("; {}{}: {}", s.kind, s.store.empty() ? "" : " (" + s.store + ")", s.detail);
  return fmt::format("no store holds anything of job {}{}", job, why);
}

namespace {

// What the phases of JobTimeline::Run share: the request, the answer they fill, the job's parts in
// each store, and the span they make.
struct Timeline {
  const JobTimelineRequest& request;
  JobTimelineAnswer out;
  std::vector<DarshanPart> darshan;
  std::vector<JobStatsPart> jobstats;
  std::vector<SlurmPart> slurm;
  // Slurm series already taken from an earlier store (the same profile imported into two stores,
  // say its node-step files into one and sh5util's merged file into another): counted once.
  std::map<std::tuple<int64_t, std::string, int64_t, uint8_t, int64_t, uint32_t>, std::string> slurm_seen;
  int64_t lo = INT64_MAX, hi = INT64_MIN;  // the span from Darshan and Slurm
  bool any_darshan = false, any_jobstats = false, any_slurm = false;
  bool heatmap = false, estimated = false, dxt = false;  // what the Darshan logs' windows came from

  void Widen(int64_t a, int64_t b) { lo = std::min(lo, a), hi = std::max(hi, b); }
};

// Darshan logs.
Status FindDarshan(Timeline& t, StoreReader& r) {
  const std::string name = StoreName(r);
  XTFQ_ASSIGN_OR_RETURN(std::vector<DarshanLogInfo> logs, DarshanLogs::List(r));
  if (logs.empty()) return Ok();
  t.any_darshan = true;
  std::vector<std::string> others;
  size_t found = 0;
  for (const DarshanLogInfo& l : logs) {
    if (l.job != t.request.job) {
      others.push_back(std::to_string(l.job));
      continue;
    }
    XTFQ_ASSIGN_OR_RETURN(DarshanLogInfo info, DarshanLogs::Find(r, l.log, std::nullopt));
    const TimeFrame f = DarshanWindowQuery::Frame(info);
    const int64_t end_ns = std::max<int64_t>(f.last, 0);
    // The run's end, rounded up to a whole second.
    const int64_t run_end = info.start_sec + (info.start_nsec + end_ns + 999999999) / 1000000000;
    t.out.sources.push_back({"darshan", name, true,
                             fmt::format("log {} (job {}, {} processes, {}, started {})", info.log, info.job,
                                         info.nprocs, info.file, info.start_sec)});
    // Darshan's own figure for the run, beside the windows' rates on the wall clock.
    XTFQ_ASSIGN_OR_RETURN(DarshanPerfAnswer perf, DarshanPerf::Read(r, info));
    for (const DarshanModulePerfAnswer& m : perf.modules) {
      if (m.module != "POSIX" && !(m.module == "STDIO" && perf.Find("POSIX") == nullptr)) continue;
      t.out.notes.push_back(fmt::format(
          "darshan: log {}'s agg_perf_by_slowest ({}, whole run, as darshan-parser --perf computes it{}): {:.2f} MiB/s "
          "= {} bytes over agg_time_by_slowest {:.6f} s",
          info.log, m.module, perf.from_text ? "; from its text, an estimate" : "", m.perf.agg_perf_by_slowest,
          m.perf.total_bytes, m.perf.agg_time_by_slowest));
    }
    t.darshan.push_back({&r, std::move(info), 0, run_end, t.out.sources.size() - 1});
    t.darshan.back().t1 = t.darshan.back().info.start_sec;
    ++found;
  }
  if (found == 0) {
    t.out.sources.push_back({"darshan", name, false,
                             fmt::format("no log of job {} ({} log{}: jobs {})", t.request.job, logs.size(),
                                         logs.size() == 1 ? "" : "s", fmt::join(others, ", "))});
  }
  return Ok();
}

// job_stats.
Status FindJobStats(Timeline& t, StoreReader& r) {
  const std::string name = StoreName(r);
  t.any_jobstats = true;
  XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<JobStatsView> view, JobStatsView::Open(r));
  JobStatsFilter f;
  f.jobs = {std::to_string(t.request.job)};
  XTFQ_ASSIGN_OR_RETURN(std::vector<char> sel, view->SelectSeries(f));
  const size_t n = static_cast<size_t>(std::count(sel.begin(), sel.end(), 1));
  if (n == 0) {
    t.out.sources.push_back(
        {"jobstats", name, false,
         fmt::format("no series of job {} among its {} series", t.request.job, view->series().size())});
    return Ok();
  }
  XTFQ_ASSIGN_OR_RETURN(std::vector<uint32_t> targets, view->SelectTargets(f, sel));
  JobStatsFilter on;
  for (uint32_t target : targets) on.targets.push_back(view->targets()[target]);
  t.out.sources.push_back({"jobstats", name, true,
                           fmt::format("{} series of job {} on {} target{}: {}", n, t.request.job, targets.size(),
                                       targets.size() == 1 ? "" : "s", fmt::join(on.targets, ", "))});
  t.jobstats.push_back({&r, std::move(view), std::move(f), std::move(on)});
  return Ok();
}

// Slurm.
Status FindSlurm(Timeline& t, StoreReader& r) {
  const std::string name = StoreName(r);
  const int64_t job = t.request.job;
  t.any_slurm = true;
  XTFQ_ASSIGN_OR_RETURN(std::unique_ptr<SlurmView> view, SlurmView::Open(r));
  size_t n = 0, rows = 0;
  std::set<std::string> steps;
  std::map<std::string, size_t> kinds;
  for (const SlurmSeries& s : view->series()) {
    // A merged file's copy of a series read before holds no rows of its own: counted once.
    if (s.job != job || s.duplicate()) continue;
    ++n, rows += s.rows, ++kinds[std::string(L::KindName(s.kind))];
    steps.insert(L::StepName(s.step));
  }
  SlurmFilter f;
  f.jobs = {job};
  XTFQ_ASSIGN_OR_RETURN(std::vector<char> sel, view->Select(f));
  size_t again = 0;
  std::set<std::string> first_in;
  for (const SlurmSeries& s : view->series()) {
    if (!sel[s.id]) continue;
    auto [it, fresh] = t.slurm_seen.try_emplace({s.step, s.node, s.task, s.kind, s.start, s.rows}, name);
    if (fresh) continue;
    sel[s.id] = 0, ++again;
    first_in.insert(it->second);
  }
  if (again > 0) {
    t.out.notes.push_back(
        fmt::format("slurm ({}): {} series of job {} are the same as {}'s (same step, node, task, start and rows): "
                    "counted once",
                    name, again, job, fmt::join(first_in, ", ")));
  }
  XTFQ_ASSIGN_OR_RETURN(auto span, view->Span(sel));
  if (n == 0) {
    t.out.sources.push_back(
        {"slurm", name, false, fmt::format("no series of job {} (jobs held: {})", job, SlurmJobs(*view))});
    return Ok();
  }
  std::vector<std::string> k;
  for (const auto& [kind, count] : kinds) k.push_back(fmt::format("{} {}", count, kind));
  const std::string why = again == n ? fmt::format(": the same as in {}, counted there", fmt::join(first_in, ", "))
                          : !span    ? ": none of them with samples"
                                     : "";
  t.out.sources.push_back({"slurm", name, span.has_value() || again == n,
                           fmt::format("{} series of job {} ({}; {} rows; step{} {}){}", n, job, fmt::join(k, ", "),
                                       rows, steps.size() == 1 ? "" : "s", fmt::join(steps, ", "), why)});
  if (span) {
    t.Widen(span->first, span->second + 1);
    t.slurm.push_back({&r, std::move(view), std::move(sel)});
  }
  return Ok();
}

// What each store holds of the job: its Darshan logs, job_stats and Slurm series.
Status FindParts(Timeline& t, const std::vector<StoreReader*>& stores) {
  for (StoreReader* r : stores) {
    const StoreContents held = StoreContents::Of(r->catalogue());
    XTFQ_TRY(FindDarshan(t, *r));
    if (held.jobstats) XTFQ_TRY(FindJobStats(t, *r));
    if (held.slurm) XTFQ_TRY(FindSlurm(t, *r));
  }
  return Ok();
}

// Job ids are reused: with a Slurm profile, a Darshan log that ran outside its span (a minute of
// slack for the clocks) is another job's, left out and named.
void DropOtherJobsLogs(Timeline& t) {
  if (t.lo == INT64_MAX) return;
  std::erase_if(t.darshan, [&](const DarshanPart& d) {
    if (d.t2 >= t.lo - 60 && d.t1 <= t.hi + 60) return false;
    JobSource& s = t.out.sources[d.source];
    s.found = false;
    s.detail = fmt::format(
        "log {} of job {} ran from {} to {}, outside the Slurm profile's span ({} to {}): another "
        "job with the same id; left out",
        d.info.log, t.request.job, d.t1, d.t2, t.lo, t.hi);
    return true;
  });
}

// The span: Darshan's and Slurm's; else the seconds the job's job_stats series changed in (its
// rate steps), else the collections of the stores that hold the job.
Status ChooseSpan(Timeline& t) {
  if (t.lo == INT64_MAX) {
    for (JobStatsPart& j : t.jobstats) {
      XTFQ_ASSIGN_OR_RETURN(auto active, ActiveSpan(*j.view, j.job));
      if (active) t.Widen(active->first, active->second);
    }
    if (t.lo != INT64_MAX) {
      t.out.notes.push_back(
          "the span is that of the job's job_stats rate steps, from the first to the last collection interval in "
          "which a counter of its series changed (no Darshan log or Slurm profile of the job)");
    } else {
      for (JobStatsPart& j : t.jobstats) {
        XTFQ_ASSIGN_OR_RETURN(auto span, j.view->Span());
        if (span) t.Widen(span->first, span->second);
      }
      t.out.notes.push_back(
          "the span is that of the job_stats collections: no counter of the job's series changed between two "
          "collections (no Darshan log or Slurm profile of the job)");
    }
  }
  t.out.t1 = t.lo, t.out.t2 = std::max(t.hi, t.lo + 1);
  return Ok();
}

// Each window, then the span as one more (the totals), of the width asked or of the span in at most
// max_windows.
std::vector<std::pair<int64_t, int64_t>> CutWindows(Timeline& t) {
  JobTimelineAnswer& out = t.out;
  const double span = static_cast<double>(out.t2 - out.t1);
  out.window_s = t.request.window_s ? std::max(1.0, std::ceil(*t.request.window_s))
                                    : std::max(1.0, std::ceil(span / std::max<uint32_t>(1, t.request.max_windows)));
  const auto width = static_cast<int64_t>(out.window_s);
  std::vector<std::pair<int64_t, int64_t>> cuts;
  for (int64_t a = out.t1; a < out.t2; a += width) cuts.emplace_back(a, std::min(out.t2, a + width));
  cuts.emplace_back(out.t1, out.t2);
  return cuts;
}

// The window's Darshan bytes and operations, over every matched log.
Status AddDarshan(Timeline& t, JobWindow& w) {
  for (DarshanPart& d : t.darshan) {
    DarshanWindowRequest q;
    q.time = fmt::format("@{}:@{}", w.t1, w.t2);
    q.log = d.info.log;
    XTFQ_ASSIGN_OR_RETURN(DarshanWindowAnswer a, DarshanWindowQuery::Run(*d.reader, q));
    // Bytes moved during the window: a DXT segment's spread over its duration (rounded to whole bytes).
    w.darshan_read = w.darshan_read.value_or(0) + std::llround(a.rate.total[0].bytes);
    w.darshan_write = w.darshan_write.value_or(0) + std::llround(a.rate.total[1].bytes);
    t.heatmap = t.heatmap || a.result.heatmap;
    t.dxt = t.dxt || (!a.result.heatmap && !a.result.estimated);
    t.estimated = t.estimated || a.result.estimated;
    w.darshan_estimated = w.darshan_estimated || (a.result.estimated && !a.result.exact);
    // Operations and the slowest rank only where they are known, not spread from counters.
    const bool known = (!a.result.heatmap && (!a.result.estimated || a.result.exact)) || a.result.counter_ops;
    if (known) w.darshan_ops = w.darshan_ops.value_or(0) + a.result.read.ops + a.result.write.ops;
    auto busiest = [](const RankImbalance& r) { return r.slowest ? r.slowest->busy : -1.0; };
    if (known && a.imbalance && a.imbalance->slowest &&
        (!w.darshan_ranks || busiest(*a.imbalance) > busiest(*w.darshan_ranks))) {
      w.darshan_ranks = a.imbalance;
      w.darshan_ranks_log = d.info.log;
    }
  }
  return Ok();
}

// The window's job_stats: the job's bytes on each of its targets, and every job's.
Status AddJobStats(Timeline& t, JobWindow& w) {
  for (JobStatsPart& j : t.jobstats) {
    XTFQ_ASSIGN_OR_RETURN(JobStatsWindow mine,
                          JobStatsWindowQuery::Compute(*j.view, w.t1, w.t2, j.job, {JobStatsKey::kTarget}));
    XTFQ_ASSIGN_OR_RETURN(JobStatsWindow all,
                          JobStatsWindowQuery::Compute(*j.view, w.t1, w.t2, j.targets, {JobStatsKey::kTarget}));
    auto bytes = [](const JobStatsGroup& g, const char* op) {
      auto it = g.ops.find(op);
      return it == g.ops.end() ? 0.0 : it->second.total;
    };
    for (const std::string& target : j.targets.targets) {
      JobTargetLoad load;
      load.store = StoreName(*j.reader), load.target = target;
      for (const JobStatsGroup& g : mine.groups) {
        if (!g.keys.empty() && g.keys[0] == target)
          load.job_read = bytes(g, "read_bytes"), load.job_write = bytes(g, "write_bytes");
      }
      for (const JobStatsGroup& g : all.groups) {
        if (!g.keys.empty() && g.keys[0] == target)
          load.target_read = bytes(g, "read_bytes"), load.target_write = bytes(g, "write_bytes");
      }
      w.targets.push_back(std::move(load));
    }
  }
  return Ok();
}

// The window's Slurm series: the tasks' bytes, CPU and rows, the Filesystem and Network metrics;
// with the totals, the notes of the Slurm window query.
Status AddSlurm(Timeline& t, JobWindow& w, bool totals) {
  for (SlurmPart& s : t.slurm) {
    XTFQ_ASSIGN_OR_RETURN(SlurmWindow sw, SlurmWindowQuery::Compute(*s.view, w.t1, w.t2, s.selected, {}));
    for (const SlurmGroup& g : sw.groups) {
      if (g.kind == L::kTasks) {
        w.slurm_rows += g.rows;
        w.slurm_read = w.slurm_read.value_or(0) + g.totals[0];
        w.slurm_write = w.slurm_write.value_or(0) + g.totals[1];
        w.slurm_cpu = w.slurm_cpu.value_or(0) + g.totals[2];
        continue;
      }
      std::optional<std::vector<double>>& into = g.kind == L::kFilesystem ? w.slurm_fs : w.slurm_net;
      if (!into) into.emplace(g.totals.size(), 0.0);
      for (size_t m = 0; m < g.totals.size(); ++m) (*into)[m] += g.totals[m];
    }
    if (totals) {
      for (const std::string& n : sw.notes) t.out.notes.push_back("slurm: " + n);
    }
  }
  return Ok();
}

// Each window, then the span as one more (the totals): each source's part of it.
Status ComputeWindows(Timeline& t) {
  const std::vector<std::pair<int64_t, int64_t>> cuts = CutWindows(t);
  for (size_t k = 0; k < cuts.size(); ++k) {
    const bool totals = k + 1 == cuts.size();
    JobWindow w;
    w.t1 = cuts[k].first, w.t2 = cuts[k].second;
    XTFQ_TRY(AddDarshan(t, w));
    XTFQ_TRY(AddJobStats(t, w));
    XTFQ_TRY(AddSlurm(t, w, totals));
    if (totals) {
      t.out.totals = std::move(w);
    } else {
      t.out.windows.push_back(std::move(w));
    }
  }
  return Ok();
}

// job_stats of the job outside the span: its bytes over every collection against those shown.
Status NoteOutsideSpan(Timeline& t) {
  for (JobStatsPart& j : t.jobstats) {
    XTFQ_ASSIGN_OR_RETURN(auto all, j.view->Span());
    if (!all) continue;
    XTFQ_ASSIGN_OR_RETURN(JobStatsWindow whole,
                          JobStatsWindowQuery::Compute(*j.view, all->first, all->second + 1, j.job, {}));
    double everywhere = 0, shown = 0;
    for (const JobStatsGroup& g : whole.groups) {
      for (const char* op : {"read_bytes", "write_bytes"}) {
        if (auto it = g.ops.find(op); it != g.ops.end()) everywhere += it->second.total;
      }
    }
    for (const JobTargetLoad& load : t.out.totals.targets) {
      if (load.store == StoreName(*j.reader)) shown += load.job_read + load.job_write;
    }
    if (everywhere > shown + 0.5) {
      t.out.notes.push_back(
          fmt::format("jobstats ({}): {:.0f} bytes of job {} lie outside the span shown (of {:.0f} "
                      "in all its collections): a reused job id, or I/O after the job's last sample",
                      StoreName(*j.reader), everywhere - shown, t.request.job, everywhere));
    }
  }
  return Ok();
}

// The window rules of each source that gave something.
void NoteWindowRules(Timeline& t) {
  JobTimelineAnswer& out = t.out;
  if (!t.darshan.empty()) {
    if (t.dxt) {
      out.notes.push_back(
          "darshan: DXT_POSIX segments (MPI-IO's are the same bytes seen one layer up); a segment's bytes are "
          "spread evenly over its duration, so a window holds what moved during it (the compute nodes' clock), and "
          "operations count in the window that holds their start");
    }
    if (t.heatmap) out.notes.push_back("darshan: a log without DXT gives bytes from its HEATMAP bins, no operations");
    if (t.estimated) {
      out.notes.push_back("darshan: a log with neither DXT nor HEATMAP gives estimates from its counters");
    }
  }
  if (!t.jobstats.empty()) {
    out.notes.push_back(
        "jobstats: totals are the integral of the rate steps over each window (the collector's clock; steps are as "
        "wide "
        "as the collection interval); share = the job's bytes over every job's on the target");
  }
  if (!t.slurm.empty()) {
    out.notes.push_back(
        "slurm: a sample's deltas accrued over the interval since the sample before it, and a window takes the share "
        "of that interval it covers (the compute nodes' clock); task bytes are ReadMB and WriteMB x 2^20, the I/O of "
        "the task's processes (a process that exits between samples takes its last interval's I/O with it)");
    if (out.totals.slurm_fs || out.totals.slurm_net) {
      out.notes.push_back(
          "slurm: Filesystem and Network series are node-wide: every process on the job's nodes, not the job's "
          "alone");
    }
  }
}

}  // namespace

Result<JobTimelineAnswer> JobTimeline::Run(const std::vector<StoreReader*>& stores, const JobTimelineRequest& request) {
  Timeline t{request};
  t.out.job = request.job;
  XTFQ_TRY(FindParts(t, stores));
  DropOtherJobsLogs(t);
  for (const DarshanPart& d : t.darshan) t.Widen(d.t1, d.t2);
  if (!t.any_darshan) t.out.sources.push_back({"darshan", "", false, "no store given holds Darshan logs"});
  if (!t.any_jobstats) t.out.sources.push_back({"jobstats", "", false, "no store given holds job_stats"});
  if (!t.any_slurm) t.out.sources.push_back({"slurm", "", false, "no store given holds Slurm profiles"});
  if (!t.out.any()) return std::move(t.out);
  XTFQ_TRY(ChooseSpan(t));
  XTFQ_TRY(ComputeWindows(t));
  XTFQ_TRY(NoteOutsideSpan(t));
  NoteWindowRules(t);
  return std::move(t.out);
}

}  // namespace xtfq
