#include "query/darshan/darshan_window.h"

#include <fmt/format.h>

#include <functional>

#include "index/process_tree.h"
#include "index/tn_tree.h"
#include "layouts/darshan_layout.h"
#include "query/core/primitives.h"
#include "query/darshan/darshan_counter_window.h"
#include "query/darshan/dxt_segments.h"
#include "store/endian.h"

namespace xtfq {

namespace {
using L = DarshanLayout;

// The statistics of a summary of DXT segments (aggregates in DxtSchema's order: length,
// duration, seq, consec, the ten size classes).
DarshanOpStats FromSummary(const Summary& s) {
  DarshanOpStats o;
  o.ops = s.count;
  if (s.count == 0) return o;
  o.bytes = s.fields[0].i_sum;
  o.busy = s.fields[1].f_sum;
  o.seq = s.fields[2].i_sum;
  o.consec = s.fields[3].i_sum;
  for (size_t b = 0; b < 10; ++b) o.size_classes[b] = s.fields[4 + b].i_sum;
  return o;
}

void AddSegment(DarshanOpStats& o, const std::byte* r) {
  ++o.ops;
  o.bytes += LoadLe<int64_t>(r + L::kDxtOffsetLength);
  o.busy += LoadLe<double>(r + L::kDxtOffsetDuration);
  o.seq += static_cast<int64_t>(r[L::kDxtOffsetSeq]);
  o.consec += static_cast<int64_t>(r[L::kDxtOffsetConsec]);
  for (size_t b = 0; b < 10; ++b) o.size_classes[b] += static_cast<int64_t>(r[L::kDxtOffsetSizeClasses + b]);
}
// Calls fn(rank, summary of the window) for each rank of the spec's range with records in the
// window: one descent per rank, through the P index.
Status PerRank(StoreReader& reader, const ArrayDesc& a, const DarshanWindowSpec& spec,
               const std::function<void(int64_t, const Summary&)>& fn) {
  if (!a.process_index) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: {} has no P index (imported with --no-process-index); per-rank rows need --scan",
                             reader.store().name(), a.name));
  }
  ProcessTree tree(reader.cache(), reader.store().catalogue(), a);
  XTFQ_ASSIGN_OR_RETURN(std::vector<const ArrayDesc*> procs, tree.Range(spec.p1, spec.p2));
  for (const ArrayDesc* pa : procs) {
    TnTree t(reader.cache(), *pa);
    Summary ps(pa->schema);
    XTFQ_TRY(t.AggregateTime(spec.t1, spec.t2, ps));
    if (ps.count > 0) fn(pa->process, ps);
  }
  return Ok();
}
}  // namespace

void DarshanOpStats::Add(const DarshanOpStats& o) {
  ops += o.ops, bytes += o.bytes, busy += o.busy, seq += o.seq, consec += o.consec;
  for (size_t b = 0; b < size_classes.size(); ++b) size_classes[b] += o.size_classes[b];
  seq_known = seq_known && o.seq_known, consec_known = consec_known && o.consec_known;
  size_classes_known = size_classes_known && o.size_classes_known;
}

Result<DarshanWindowStats> DarshanWindow::Compute(StoreReader& reader, const DarshanLogInfo& info,
                                                  const DarshanWindowSpec& spec) {
  if (spec.module != "POSIX" && spec.module != "MPI-IO" && spec.module != "STDIO") {
    return Error(
        ErrorCode::kInvalidArgument,
        fmt::format("--module {}: POSIX or MPI-IO (the modules DXT traces), or STDIO (heatmaps only)", spec.module));
  }
  const std::string dxt = spec.module == "POSIX" ? "DXT_POSIX" : spec.module == "MPI-IO" ? "DXT_MPIIO" : "DXT_STDIO";
  const Catalogue& cat = reader.store().catalogue();
  DarshanWindowStats out;
  out.indexed = !spec.scan && !spec.files && !spec.per_file;
  bool any = false;
  for (int op = 0; op < 2; ++op) {
    const ArrayDesc* a = cat.Find(L::ArrayName(info.log, fmt::format("{}.{}", dxt, op == 0 ? "read" : "write")));
    if (a == nullptr) continue;
    if (!(a->schema == L::DxtSchema())) {
      return Error(ErrorCode::kCorrupt,
                   fmt::format("{}: {} does not have the DXT segment schema", reader.store().name(), a->name));
    }
    any = true;
    DarshanOpStats& total = op == 0 ? out.read : out.write;
    if (!out.indexed) {
      auto add = [&](const std::byte* r) {
        const int64_t t = LoadLe<int64_t>(r + L::kDxtOffsetT), rank = LoadLe<int64_t>(r + L::kDxtOffsetRank);
        const uint64_t file = LoadLe<uint64_t>(r + L::kDxtOffsetFile);
        if (t >= spec.t1 && t < spec.t2 && rank >= spec.p1 && rank < spec.p2 &&
            (!spec.files || spec.files->count(file))) {
          AddSegment(total, r);
          if (spec.per_rank) AddSegment(out.ranks[rank][static_cast<size_t>(op)], r);
          if (spec.per_file) AddSegment(out.files[file][static_cast<size_t>(op)], r);
        }
      };
      if (spec.scan) {
        // Every segment, filtered.
        XTFQ_TRY(reader.ForEach(*a, [&](const std::byte* r) {
          add(r);
          return Ok();
        }));
      } else {
        // The window's segments (a file filter and per-file rows have no index).
        XTFQ_TRY(DxtSegments::ForEach(reader, *a, {spec.t1, spec.t2, spec.p1, spec.p2}, add));
      }
      continue;
    }
    Primitives p(reader.cache(), *a, &cat);
    XTFQ_ASSIGN_OR_RETURN(Summary s, p.Aggregate(spec.t1, spec.t2, spec.p1, spec.p2));
    total = FromSummary(s);
    if (spec.per_rank) {
      XTFQ_TRY(PerRank(reader, *a, spec, [&](int64_t rank, const Summary& ps) {
        out.ranks[rank][static_cast<size_t>(op)] = FromSummary(ps);
      }));
    }
  }
  if (any) return out;
  // No DXT: the HEATMAP bins of the module give bytes (no operations, sizes or times; the counter
  // records give those where they are exact for the window: AddCounterOps).
  const ArrayDesc* h =
      cat.Find(L::ArrayName(info.log, spec.module == "MPI-IO" ? "HEATMAP.MPIIO" : "HEATMAP." + spec.module));
  if (h == nullptr || !(h->schema == L::HeatmapSchema())) return DarshanCounterWindow::Compute(reader, info, spec);
  // Bins are per rank and time, not per file: a file filter or per-file rows come from the module's
  // counter records (by record id), as a log without HEATMAP is answered: exact where each record
  // lies wholly inside or outside the window (the whole run), an estimate otherwise.
  if (spec.files || spec.per_file) {
    XTFQ_ASSIGN_OR_RETURN(DarshanWindowStats c, DarshanCounterWindow::Compute(reader, info, spec));
    c.files_from_counters = true;
    return c;
  }
  out.heatmap = true;
  auto bytes = [](const Summary& s, DarshanOpStats& r, DarshanOpStats& w) {
    if (s.count == 0) return;
    r.bytes += s.fields[0].i_sum, w.bytes += s.fields[1].i_sum;
  };
  if (!out.indexed) {
    XTFQ_TRY(reader.ForEach(*h, [&](const std::byte* r) {
      const int64_t t = LoadLe<int64_t>(r + L::kHeatOffsetT), rank = LoadLe<int64_t>(r + L::kHeatOffsetRank);
      if (t >= spec.t1 && t < spec.t2 && rank >= spec.p1 && rank < spec.p2) {
        out.heatmap_width = LoadLe<double>(r + L::kHeatOffsetWidth);
        const int64_t rb = LoadLe<int64_t>(r + L::kHeatOffsetRead), wb = LoadLe<int64_t>(r + L::kHeatOffsetWrite);
        out.read.bytes += rb, out.write.bytes += wb;
        ++out.heatmap_bins;
        if (spec.per_rank) out.ranks[rank][0].bytes += rb, out.ranks[rank][1].bytes += wb;
      }
      return Ok();
    }));
    return out;
  }
  Primitives p(reader.cache(), *h, &cat);
  XTFQ_ASSIGN_OR_RETURN(Summary s, p.Aggregate(spec.t1, spec.t2, spec.p1, spec.p2));
  bytes(s, out.read, out.write);
  out.heatmap_bins = s.count;
  if (h->record_count() > 0) {
    std::vector<std::byte> first(h->schema.record_width());
    TnTree t(reader.cache(), *h);
    XTFQ_TRY(t.Record(0, first));
    out.heatmap_width = LoadLe<double>(first.data() + L::kHeatOffsetWidth);
  }
  if (spec.per_rank) {
    XTFQ_TRY(PerRank(reader, *h, spec,
                     [&](int64_t rank, const Summary& ps) { bytes(ps, out.ranks[rank][0], out.ranks[rank][1]); }));
  }
  XTFQ_TRY(AddCounterOps(reader, info, spec, out));
  return out;
}

Status DarshanWindow::AddCounterOps(StoreReader& reader, const DarshanLogInfo& info, const DarshanWindowSpec& spec,
                                    DarshanWindowStats& out) {
  DarshanWindowSpec totals = spec;
  totals.per_rank = false, totals.per_file = false;
  Result<DarshanWindowStats> c = DarshanCounterWindow::Compute(reader, info, totals);
  if (!c.ok()) {
    // No counter records of the module: the bins alone answer. Damage or I/O errors are said.
    if (c.error().code() == ErrorCode::kCorrupt || c.error().code() == ErrorCode::kIo) return c.error();
    return Ok();
  }
  if (!c->exact) return Ok();
  // Darshan's runtime splits an access's bytes over the bins it spans in whole bytes, so the bins
  // may count a few bytes fewer than the counters: up to one a bin (tolerated; said). More than
  // that, or more bytes in the bins, is a disagreement.
  const int64_t short_by = (c->read.bytes - out.read.bytes) + (c->write.bytes - out.write.bytes);
  const bool rounding = c->read.bytes >= out.read.bytes && c->write.bytes >= out.write.bytes &&
                        static_cast<uint64_t>(short_by) <= out.heatmap_bins;
  if (!rounding) {
    out.counter_bytes = std::array<int64_t, 2>{c->read.bytes, c->write.bytes};
    return Ok();
  }
  out.heatmap_short_by = short_by;
  out.read = c->read, out.write = c->write;
  out.counter_ops = true;
  return Ok();
}

}  // namespace xtfq
