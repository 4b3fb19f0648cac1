#include "cli/gen_command.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "gen/events_generator.h"
#include "store/posix_file.h"

namespace xtfq::cli {

CLI::App* GenCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("gen", "Write synthetic data");
  app->require_subcommand(1);
  events_ = app->add_subcommand("events", "N 32-byte events in the ../shared/bench format (t, bytes, dur, rank, op)");
  events_->add_option("N", count_, "number of events (1e6 style allowed)")
      ->required()
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            double v = 0;
            if (!CLI::detail::lexical_cast(text, v) || !(v >= 0 && v <= 1e12 && v == std::floor(v)))
              return fmt::format("'{}' is not a whole number from 0 to 1e12", text);
            return "";
          },
          "0..1e12"));
  events_->add_option("-o,--output", out_, "output file (must not exist)")->required();
  events_->add_option("--ranks", ranks_, "ranks R: rank is uniform in [0, R)")->check(CLI::Range(1, 1 << 30));
  events_->add_option("--seed", seed_, "random seed");
  darshan_ = app->add_subcommand(
      "darshan", "a binary Darshan log (format 3.41, zlib) of a synthetic MPI run: POSIX, MPI-IO, STDIO, DXT");
  darshan_->add_option("SEGMENTS", darshan_segments_, "DXT segments in all (1e7 style allowed)")
      ->check(CLI::Range(1.0, 1e12));
  darshan_->add_option("-o,--output", out_, "output log (replaced if it exists)")->required();
  darshan_->add_option("--ranks", darshan_opts_.ranks, "MPI ranks")->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
  darshan_->add_option("--files", darshan_opts_.files, "files: input, checkpoints, the rest per-rank diagnostics")
      ->check(CLI::Range(int64_t{2}, int64_t{1} << 30));
  darshan_->add_option("--checkpoints", darshan_opts_.checkpoints, "collective checkpoints")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  darshan_->add_option("--duration", darshan_opts_.duration, "run time in seconds")->check(CLI::Range(1.0, 1e8));
  darshan_->add_option("--seed", darshan_opts_.seed, "random seed");
  darshan_->add_option("--job", darshan_opts_.job, "job id (default 4242000 + seed mod 1000)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 62));
  darshan_->add_option("--start", darshan_opts_.start, "the job's start, epoch seconds (default 1795300000)")
      ->check(CLI::Range(int64_t{1}, int64_t{253402300799}));
  jobstats_ = app->add_subcommand(
      "jobstats", "Lustre job_stats snapshots (lctl get_param framing) of a Puhti-like load, with ground truth");
  JobStatsGenOptions& j = jobstats_opts_;
  jobstats_->add_option("--targets", j.targets, "targets: an MDT and OSTs, four per server")
      ->check(CLI::Range(1u, 1u << 20));
  jobstats_->add_option("--jobs", j.jobs, "jobs (each makes one entry per target it touches)")
      ->check(CLI::Range(0u, 1u << 26));
  jobstats_->add_option("--samples", j.samples, "collections")->check(CLI::Range(1u, 1u << 24));
  jobstats_->add_option("--interval", j.interval, "seconds between collections")
      ->check(CLI::Range(int64_t{2}, int64_t{1} << 30));
  jobstats_->add_option("--start", j.start, "epoch of the first collection")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  jobstats_->add_option("--variant", j.variant, "Lustre output variant")
      ->check(CLI::IsMember({"A", "B", "C", "D", "E1", "E2", "F"}));
  jobstats_->add_option("--malformed-rate", j.malformed_rate, "share of job ids with overwritten characters")
      ->check(CLI::Range(0.0, 1.0));
  jobstats_->add_option("--reset-rate", j.reset_rate, "chance per entry and collection of a reset")
      ->check(CLI::Range(0.0, 1.0));
  jobstats_
      ->add_option("--missing-rate", j.missing_rate, "chance per server and collection that the collector missed it")
      ->check(CLI::Range(0.0, 0.9));
  jobstats_->add_option("--fs", j.fs, "file system name");
  jobstats_->add_option("--seed", j.seed, "random seed");
  jobstats_->add_flag("--dense", j.dense,
                      "every job on every target for the whole run: targets x jobs x samples entries (the scale "
                      "shape)");
  jobstats_->add_option("-o,--output", out_, "output directory (created)")->required();
  slurm_ = app->add_subcommand(
      "slurm",
      "a Slurm 22.05 acct_gather_profile/hdf5 job profile (node-step files of step 0 and batch), with ground truth");
  SlurmGenOptions& s = slurm_opts_;
  slurm_->add_option("-o,--output", out_, "output directory (created; files of the same names are replaced)")
      ->required();
  slurm_->add_option("--job", s.job, "job id")->required()->check(CLI::Range(int64_t{1}, int64_t{1} << 62));
  slurm_->add_option("--start", s.start, "the steps' start, epoch seconds")
      ->required()
      ->check(CLI::Range(int64_t{1}, int64_t{253402300799}));
  slurm_->add_option("--nodes", s.nodes, "nodes n1..nN")->check(CLI::Range(1u, 1u << 20));
  slurm_->add_option("--tasks", s.tasks, "tasks per node (global task ids; task k on node k / T)")
      ->check(CLI::Range(1u, 1u << 24));
  slurm_->add_option("--samples", s.samples, "polls of each series")->check(CLI::Range(1u, 1u << 24));
  slurm_->add_option("--interval", s.interval, "seconds between polls")->check(CLI::Range(int64_t{1}, int64_t{86400}));
  slurm_->add_option("--seed", s.seed, "random seed");
  slurm_->add_flag("--merged", s.merged, "also job_<job>.h5, as sh5util -S merges the node-step files");
  slurm_->add_flag("--truth-rows", s.truth_rows, "also truth_rows.csv: every row's values");
  return app;
}

int GenCommand::RunJobStats() {
  auto st = JobStatsGenerator::Write(jobstats_opts_, out_);
  if (!st.ok()) return Fail("gen jobstats", st.error());
  fmt::print(
      stderr,
      "gen jobstats: variant {}, {} files, {} entries, {} series, {} true steps, {} resets, {} purges, {} missed "
      "collections -> {} (truth_steps.csv, truth_series.csv)\n",
      jobstats_opts_.variant, st->files, st->entries, st->series, st->steps, st->resets, st->purges, st->missed, out_);
  return kExitOk;
}

int GenCommand::RunSlurm() {
  const SlurmGenOptions& o = slurm_opts_;
  auto st = SlurmProfileWriter::Write(o, out_);
  if (!st.ok()) return Fail("gen slurm", st.error());
  fmt::print(stderr,
             "gen slurm: job {}, {} nodes x {} tasks, {} samples every {} s from {}, seed {}: {} HDF5 files ({} MiB), "
             "{} datasets, {} rows -> {} (truth.csv{})\n",
             o.job, o.nodes, o.tasks, o.samples, o.interval, o.start, o.seed, st->files, st->bytes >> 20, st->datasets,
             st->rows, out_, o.truth_rows ? ", truth_rows.csv" : "");
  return kExitOk;
}

int GenCommand::Run() {
  if (darshan_->parsed()) return RunDarshan();
  if (slurm_->parsed()) return RunSlurm();
  if (jobstats_->parsed()) return RunJobStats();
  const double n_d = std::floor(count_);
  if (n_d > 1e15)
    return Fail("gen events", Error(ErrorCode::kInvalidArgument, fmt::format("N = {} is too large", count_)));
  const auto n = static_cast<uint64_t>(n_d);
  auto file = PosixFile::Open(out_, PosixFile::Mode::kCreateNew);
  if (!file.ok()) return Fail("gen events", file.error());
  EventsGenerator gen(ranks_, seed_);
  constexpr size_t kBlock = 131072;  // events per write: 4 MiB
  std::vector<std::byte> buf(kBlock * EventRecord::kSize);
  for (uint64_t done = 0; done < n;) {
    const size_t m = static_cast<size_t>(std::min<uint64_t>(kBlock, n - done));
    for (size_t i = 0; i < m; ++i) gen.Next().Encode(buf.data() + i * EventRecord::kSize);
    Status s = (*file)->WriteAt(done * EventRecord::kSize, std::span(buf).first(m * EventRecord::kSize));
    if (!s.ok()) return Fail("gen events", s.error());
    done += m;
  }
  Status s = (*file)->Sync();
  if (!s.ok()) return Fail("gen events", s.error());
  fmt::print(stderr, "gen events: {} events, {} ranks, seed {} -> {}\n", n, ranks_, seed_, out_);
  return kExitOk;
}

int GenCommand::RunDarshan() {
  darshan_opts_.segments = static_cast<uint64_t>(std::floor(darshan_segments_));
  auto st = DarshanGenerator::Write(out_, darshan_opts_);
  if (!st.ok()) return Fail("gen darshan", st.error());
  fmt::print(
      stderr, "gen darshan: {} DXT_POSIX + {} DXT_MPIIO segments, {} records, {} names, {} ranks, seed {} -> {}\n",
      st->posix_segments, st->mpiio_segments, st->records, st->names, darshan_opts_.ranks, darshan_opts_.seed, out_);
  return kExitOk;
}

}  // namespace xtfq::cli
