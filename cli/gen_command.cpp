#include "cli/gen_command.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "importers/events_generator.h"
#include "store/posix_file.h"

namespace xtfq::cli {

CLI::App* GenCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("gen", "Write synthetic data");
  app->require_subcommand(1);
  events_ = app->add_subcommand("events", "N 32-byte events in the ../shared/bench format (t, bytes, dur, rank, op)");
  events_->add_option("N", count_, "number of events (1e6 style allowed)")->required()->check(CLI::NonNegativeNumber);
  events_->add_option("-o,--output", out_, "output file (must not exist)")->required();
  events_->add_option("--ranks", ranks_, "ranks R: rank is uniform in [0, R)")->check(CLI::Range(1, 1 << 30));
  events_->add_option("--seed", seed_, "random seed");
  return app;
}

int GenCommand::Run() {
  const double n_d = std::floor(count_);
  if (n_d > 1e15) return Fail("gen events", Error(ErrorCode::kInvalidArgument, fmt::format("N = {} is too large", count_)));
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

}  // namespace xtfq::cli
