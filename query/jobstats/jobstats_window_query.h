// JobStatsWindowQuery: job_stats totals and rates of a window grouped by job, uid, node, target,
// op, class or raw id (`xtfq query STORE --jobstats`, the viewer's top jobs).
//
// A group's total in [t1, t2) is the exact integral of its series' rate step functions
// (JobStatsView::Part); rate_mean is the total over (t2 - t1); rate_max the group's peak, the
// highest value over the window of the sum of its series' rates (RatePeak); series_rate_max the
// highest rate of any one series' step that overlaps the window. Run() resolves the request's window in the store's
// frame (query/core/time_window.h; default: every collection), orders the groups by the total of one op and keeps the
// top N.
//
// Cost. Totals grouped by target and op only (filters by target and op) come from the TN tree of
// each (op, target) per-process array: at most six descents per target and op, whatever the window
// holds; the group's peak walks the window's collection blocks of each target (the steps of one
// collection share t0 and t1): three descents per block, O(C log N) for C collections. Grouping by series attributes
// (job, uid, node, class, id), or filtering by them, reads the window's steps of the targets involved (one descent per
// leaf page), except that grouping by one of job, uid or class with no filter but ops reads
// the job_stats summaries (O(groups x log(window / bin)) cells) and the steps of the window's two
// ends. `scan` reads every step (the flat-scan baseline).
//
// Thread-safety: one thread at a time (shares the view's reader).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "index/tn_tree.h"
#include "query/jobstats/jobstats_summary.h"
#include "query/jobstats/jobstats_view.h"
#include "query/jobstats/rate_peak.h"

namespace xtfq {

struct JobStatsOpTotals {
  double total = 0;            // events or bytes in the window
  double rate_max = 0;         // per second: the group's own peak, the highest of its summed rate over the window
  double series_rate_max = 0;  // per second: the highest rate of any one series' step in the window
  uint64_t steps = 0;          // steps that overlap the window
};

struct JobStatsGroup {
  std::vector<std::string> keys;                // in --by order
  std::map<std::string, JobStatsOpTotals> ops;  // by op name; empty: no rate step in the window
};

struct JobStatsWindow {
  int64_t t1 = 0, t2 = 0;
  std::vector<std::string> ops;       // the ops asked for (or all), in store order
  std::vector<JobStatsGroup> groups;  // sorted by keys
  bool indexed = false;               // answered from index aggregates (no step read)
  uint64_t steps_read = 0;            // step records read one by one
  // Answered from the job_stats summaries (query/jobstats/jobstats_summary.h: their cells, summarised up to
  // `summarised_to`, and the steps of the window's ends); `summary_cells` read.
  bool summarised = false;
  int64_t summarised_to = 0;
  uint64_t summary_cells = 0;
  // How the window was read, for the reports.
  std::string How() const;
};

struct JobStatsWindowRequest {
  std::string time = ":";       // --time (query/core/time_window.h, job_stats frame)
  std::vector<std::string> by;  // group keys: job uid node target op class id
  JobStatsFilter filter;
  uint32_t top = 0;  // 0: every group
  std::string sort;  // the op whose total orders the groups (default: the first column)
  bool scan = false;
  // Move the window outward onto the job_stats summaries' level-0 bins, where they answer its rows
  // (one key of job, uid, class; no filter but ops): such a window is read from their cells alone.
  bool snap = false;
};

struct JobStatsWindowAnswer {
  JobStatsWindow window;  // groups in answer order (by --sort when asked, else by keys)
  std::vector<JobStatsKey> by;
  // The op columns: one per op, or a single unnamed column ("") when grouping by op.
  std::vector<std::string> columns;
  uint64_t groups_in_window = 0;  // before --top kept the first N
  uint32_t request_top = 0;       // --top (0: every group)
  std::string sorted_by;          // the op whose total ordered the groups (with --top or --sort)
  // A window that lies wholly outside the collections (its zeros are no data, not no I/O).
  std::vector<std::string> warnings;
  // The window asked for, before snap moved it onto bins (`snapped`), and what to say of it: the
  // window answered, or why snap did not apply.
  int64_t asked_t1 = 0, asked_t2 = 0;
  bool snapped = false;
  std::vector<std::string> notes;
  // The group's result in a column (nullptr: no step of that op).
  static const JobStatsOpTotals* Column(const JobStatsGroup& g, const std::string& column);
  // total / (t2 - t1); none for the empty window.
  std::optional<double> RateMean(const JobStatsOpTotals& o) const;
};

class JobStatsWindowQuery {
 public:
  static Result<JobStatsWindowAnswer> Run(JobStatsView& view, const JobStatsWindowRequest& request);
  // `summaries` false: never the job_stats summaries (the path before them, for benchmarks).
  static Result<JobStatsWindow> Compute(JobStatsView& view, int64_t t1, int64_t t2, const JobStatsFilter& filter,
                                        const std::vector<JobStatsKey>& by, bool scan = false, bool summaries = true);
  // The window of a request in the view's frame (default: first to last collection), and its
  // group keys.
  static Result<std::pair<int64_t, int64_t>> ResolveWindow(JobStatsView& view, const std::string& time);
  static Result<std::vector<JobStatsKey>> ParseKeys(const std::vector<std::string>& by);

 private:
  // Compute with the summaries given (JobStatsSummary::ForRows of the request), loaded once for it
  // and for Snap.
  static Result<JobStatsWindow> ComputeWith(JobStatsView& view, int64_t t1, int64_t t2, const JobStatsFilter& filter,
                                            const std::vector<JobStatsKey>& by, bool scan,
                                            const std::optional<JobStatsSummary>& summary);
  // The state of one ComputeWith, shared by its phases: the window, the selection, the answer
  // being built with its groups by key, and the rate steps each group sums per op.
  struct Summing;
  // Grouped by one summarised key, with no filter but ops: adds the summaries' parts of the window.
  static Status AddSummaryParts(Summing& w, const JobStatsSummary& summary);
  // Adds the rate steps of one op in the window: read step by step, or from each target's TN tree.
  static Status AddOp(Summing& w, const std::string& op);
  static Status AddSteps(Summing& w, const ArrayDesc& steps, const std::string& op);
  static Status AddTargetBlocks(Summing& w, const JobStatsView::TargetIndex& index, const std::string& op);
  // The answer: its quiet groups added, its groups sorted by keys.
  static JobStatsWindow ListGroups(Summing& w);
  // Moves the window `w` outward onto the summaries' level-0 bins when `summary` (the request's
  // JobStatsSummary::ForRows, or nullopt and `why`) answers it from cells alone, and says so, or
  // why not, in a.notes.
  static void Snap(const std::optional<JobStatsSummary>& summary, std::string why, JobStatsWindowAnswer& a,
                   std::pair<int64_t, int64_t>& w);
  // Adds to `peak` the summed rate of each collection block of a target's steps from position lo
  // (the first step ending after the window's start) to the first block starting at or after t2.
  static Status AddBlocks(TnTree& t, uint64_t lo, int64_t t2, RatePeak& peak);
  // Every group the selection holds (each selected series, or each selected target, times the
  // ops when grouping by op) through `group`, which creates it empty when it had no rate step:
  // a target seen in one collection only, or a series that never changed, is listed with zeros.
  static void AddQuietGroups(const JobStatsView& view, const std::vector<JobStatsKey>& by,
                             const std::vector<char>& series, const std::vector<uint32_t>& targets,
                             const std::vector<std::string>& ops,
                             const std::function<JobStatsGroup&(const std::string&)>& group);
};

}  // namespace xtfq
