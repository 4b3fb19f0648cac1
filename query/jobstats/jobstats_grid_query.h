// JobStatsGridQuery: job_stats of one op as a grid of W equal time columns by rows that are
// targets (default) or groups (job, uid, node, class, raw id): each cell the exact integral of the
// rows' rate steps over the column (JobStatsView::Part: a step's change spread evenly over
// [t0, t1)), so the cells of a row sum to the row's window total in `xtfq query --jobstats`.
// Rows are the H groups with the largest window totals (every group when H = 0), largest first;
// what the others hold is said. A cell that no collection of its row's targets covers (before a
// target's first collection or after its last) is marked not covered: its value is unknown, not 0.
// A row's targets are the selected targets of its selected series, whether or not they changed
// the op in the window.
//
// Cost: rows by target read the window's blocks (JobStatsView::Blocks); rows by a group with
// summaries (job, uid, class; JobStatsSummary), without a filter, read the summaries' cells for
// every column whose edges are on summarised level-0 bins (JobStatsSummary::ColumnTotals), and the
// steps of the other columns; otherwise the window's steps (JobStatsView::Steps), each spread over
// the columns it overlaps. With `snap`, such a grid's window and columns move outward onto whole
// bins (columns a whole number of bins wide, at most `cols` of them), so that every summarised
// column is read from cells: the cost follows the columns and groups, not the steps.
//
// Thread-safety: one thread at a time (shares the view's reader).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "query/jobstats/jobstats_view.h"

namespace xtfq {

struct JobStatsGridRequest {
  std::string op = "write_bytes";
  std::string time = ":";
  std::string by = "target";  // target, job, uid, node, class, id
  JobStatsFilter filter;
  uint32_t cols = 100;
  uint32_t rows = 0;  // the top H groups; 0: all
  bool scan = false;
  bool snap = false;
};

struct JobStatsGrid {
  std::string op, by, unit;       // unit: "bytes" or "events"
  std::vector<int64_t> edges;     // epoch seconds, cols + 1
  std::vector<std::string> rows;  // group labels, largest window total first
  std::vector<double> totals;     // per row: the window total
  std::vector<double> cells;      // rows x cols, row-major: integrals
  // rows x cols: 1 where the collections of the row's targets cover part of the column (a
  // target's steps cover its first to its last collection); elsewhere no value is known.
  std::vector<char> covered;
  std::vector<JobStatsView::TargetCollections> collections;  // per target of the store (JobStatsView::Collections)
  uint64_t groups = 0;      // groups with steps in the window (rows are the first of them)
  double others = 0;        // the window total of the groups left out
  uint64_t steps_read = 0;  // records read: steps, or blocks when from_blocks
  // Read from the blocks (by target, without a series filter, through the blocks' index): each
  // target's steps of one collection summed, as they share [t0, t1).
  bool from_blocks = false;
  // Columns read from the summaries' cells (JobStatsSummary::ColumnTotals), whole or up to the
  // last summarised bin edge (the rest from steps), and the cells read.
  uint32_t cell_columns = 0;
  uint64_t cells_read = 0;
  int64_t bin_seconds = 0;  // the summaries' level-0 bins, when cells were read or snapped to
  // The window and columns were moved onto whole bins (snap); what was asked for. With snap asked
  // and not done: why.
  bool snapped = false;
  std::string unsnapped;
  int64_t asked_t1 = 0, asked_t2 = 0;
  uint32_t asked_cols = 0;
};

class JobStatsGridQuery {
 public:
  static Result<JobStatsGrid> Run(JobStatsView& view, const JobStatsGridRequest& request);
};

}  // namespace xtfq
