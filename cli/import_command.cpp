#include "cli/import_command.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "importers/events_importer.h"
#include "store/posix_file.h"
#include "store/store_writer.h"

namespace xtfq::cli {

CLI::App* ImportCommand::Register(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("import", "Read inputs into a store (created if it does not exist)");
  app->add_option("INPUT", inputs_, "input files")->required();
  app->add_option("-o,--output", out_, "store file (default: the first input's name with .xtfq)");
  app->add_option("--format", format_, "input format")->check(CLI::IsMember({"auto", "events"}));
  app->add_option("--array", array_, "array name for events");
  app->add_option("--page-size", page_size_, "page size of a new store: 4096 to 65536, a power of two");
  app->add_flag("--no-process-index", no_process_index_,
                "do not keep per-process copies and the process tree (half the space; --ranks windows then need --scan)");
  return app;
}

int ImportCommand::Run() {
  namespace fs = std::filesystem;
  if (out_.empty()) out_ = fs::path(inputs_.front()).replace_extension(".xtfq").string();
  if (inputs_.size() > 1 && format_ != "auto") {
    // One events file per array: a second one would need its own --array.
    return Fail("import", Error(ErrorCode::kInvalidArgument, "give one events file per import (each goes to its own --array)"));
  }
  for (const std::string& in : inputs_) {
    if (format_ == "auto" && fs::path(in).extension() != ".bin") {
      return Fail("import", Error(ErrorCode::kInvalidArgument,
                                  fmt::format("{}: cannot tell the format from the name; give --format events", in)));
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  const bool exists = fs::exists(out_, ec);
  StoreOptions opts;
  opts.process_index = !no_process_index_;
  opts.page_size = page_size_;
  auto writer = exists ? StoreWriter::OpenPath(out_, opts) : StoreWriter::CreatePath(out_, opts);
  if (!writer.ok()) return Fail("import", writer.error());
  uint64_t total = 0;
  for (const std::string& in : inputs_) {
    auto file = PosixFile::Open(in, PosixFile::Mode::kRead);
    if (!file.ok()) return Fail("import", file.error());
    auto n = EventsImporter::Import(**file, **writer, array_);
    if (!n.ok()) {
      fmt::print(stderr, "xtfq import: {}\n", n.error().message());
      fmt::print(stderr, "xtfq import: nothing committed; {} stays at generation {}\n", out_, (*writer)->generation());
      if (!exists) fs::remove(out_, ec);
      return kExitFailure;
    }
    total += *n;
  }
  Status s = (*writer)->Commit();
  if (!s.ok()) return Fail("import", s.error());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print(stderr, "import: {} records into {} (generation {}) in {:.2f} s ({:.1f} M records/s)\n", total, out_,
             (*writer)->generation(), secs, secs > 0 ? total / secs / 1e6 : 0.0);
  return kExitOk;
}

}  // namespace xtfq::cli
