#include "cli/signals_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/array_options.h"
#include "cli/darshan_input.h"
#include "query/core/process_window.h"
#include "query/darshan/darshan_signals.h"

namespace xtfq::cli {

CLI::App* SignalsCommand::Register(CLI::App& parent) {
  CLI::App* app =
      parent.add_subcommand("signals", "The Darshan signal spec v2.0 for a log: job, module and record levels");
  app->add_option("INPUT", input_, "a store, a binary Darshan log, or darshan-parser text")->required();
  app->add_option("-o,--output", out_, "output file, - for stdout (default: NAME_signals_v2.txt, .json or .csv)");
  app->add_option("--format", format_, "output format")->check(CLI::IsMember({"text", "json", "csv"}));
  app->add_option("--log", log_, "in a store: the log number");
  app->add_option("--job", job_, "in a store: the log of this job id");
  app->add_option("--ranks", ranks_,
                  "R1:R2: job and module levels over the per-rank records of these ranks (shared records, rank -1, "
                  "cannot be split)");
  return app;
}

namespace {

using Line = DarshanSignals::Line;
using Record = DarshanSignals::Record;

class TextSink final : public DarshanSignals::Sink {
 public:
  explicit TextSink(std::FILE* out) : out_(out) {}
  Status Begin(const Record& r) override {
    Flush();
    fmt::print(out_,
               "# {0}\n# RECORD: {1} (rank={2})\n# file_name: {3}\n# mount_pt: {4}\n# fs_type: {5}\n# {0}\n#\n### "
               "Original Metrics:\n",
               std::string(60, '-'), r.id, r.rank, r.file_name, r.mount_pt, r.fs_type);
    state_ = State::kMetrics;
    return Ok();
  }
  Status Emit(const Line& l) override {
    const std::string v = DarshanSignals::Format(l.value);
    switch (l.kind) {
      case Line::Kind::kJob:
        if (state_ != State::kJob) {
          Banner("JOB LEVEL METRICS");
          state_ = State::kJob;
        }
        fmt::print(out_, "JOB\t{}\t{}\n", l.name, v);
        break;
      case Line::Kind::kModuleAgg:
        if (state_ == State::kJob) {
          // The spec's job level sums every module's records: a layer's bytes count again below it.
          fmt::print(out_,
                     "# (the job level sums every module's records, as the spec defines it: bytes that pass "
                     "through MPI-IO or HDF5 to POSIX count once at each layer; the modules below give each "
                     "layer apart)\n");
        }
        if (state_ != State::kAgg || l.module != module_) {
          Flush();
          Banner("MODULE: " + l.module);
          fmt::print(out_, "#\n## Module-Level Aggregates:\n");
          module_ = l.module;
          state_ = State::kAgg;
        }
        fmt::print(out_, "{}\tMODULE_AGG\t{}\t{}\n", l.module, l.name, v);
        break;
      case Line::Kind::kModulePerf:
        if (state_ != State::kPerf) {
          fmt::print(out_, "\n## Module-Level Performance Metrics:\n");
          state_ = State::kPerf;
        }
        fmt::print(out_, "{}\tMODULE_PERF\t{}\t{}\n", l.module, l.name, v);
        break;
      case Line::Kind::kRecordMetric:
        fmt::print(out_, "{}\t{}\t{}\t{}\t{}\n", l.module, l.rank, l.id, l.name, v);
        break;
      case Line::Kind::kRecordSignal:
        if (state_ == State::kMetrics) fmt::print(out_, "\n### Derived Signals:\n");
        if (state_ == State::kMetrics || l.group != group_) {
          if (state_ == State::kSignals) fmt::print(out_, "\n");
          fmt::print(out_, "# {}\n", l.group);
          group_ = l.group;
          state_ = State::kSignals;
        }
        fmt::print(out_, "{}\t{}\t{}\t{}\t{}\n", l.module, l.rank, l.id, l.name, v);
        break;
    }
    return Ok();
  }
  // Ends the current block with a blank line.
  void Flush() {
    if (state_ != State::kNone) fmt::print(out_, "\n");
    state_ = State::kNone;
  }

 private:
  enum class State { kNone, kJob, kAgg, kPerf, kMetrics, kSignals };
  void Banner(const std::string& title) { fmt::print(out_, "# {0}\n# {1}\n# {0}\n", std::string(60, '='), title); }
  std::FILE* out_;
  State state_ = State::kNone;
  std::string module_, group_;
};

// One JSON object per module, records streamed inside it.
class JsonSink final : public DarshanSignals::Sink {
 public:
  JsonSink(std::FILE* out, const std::string& header, const DarshanLogInfo& info) : out_(out) {
    nlohmann::json lines = nlohmann::json::array();
    for (size_t at = 0; at < header.size();) {
      const size_t nl = header.find('\n', at);
      lines.push_back(header.substr(at, nl - at));
      at = nl == std::string::npos ? header.size() : nl + 1;
    }
    fmt::print(out_, "{{\"log\": {}, \"job\": {}, \"header\": {}, ", info.log, info.job, lines.dump());
  }
  static nlohmann::json V(const DarshanSignals::Value& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }
  Status Begin(const Record& r) override {
    EndRecord();
    rec_ = {{"id", r.id},
            {"rank", r.rank},
            {"file_name", r.file_name},
            {"mount_pt", r.mount_pt},
            {"fs_type", r.fs_type},
            {"original_metrics", nlohmann::json::object()},
            {"derived_signals", nlohmann::json::object()}};
    return Ok();
  }
  Status Emit(const Line& l) override {
    switch (l.kind) {
      case Line::Kind::kJob:
        job_[l.name] = V(l.value);
        break;
      case Line::Kind::kModuleAgg:
        if (l.module != module_) {
          EndModule();
          if (!job_.is_null()) fmt::print(out_, "\"job_level\": {}, \"modules\": [", job_.dump()), job_ = nullptr;
          fmt::print(out_, "{}{{\"module\": {}, ", first_module_ ? "" : ", ", nlohmann::json(l.module).dump());
          first_module_ = false;
          module_ = l.module;
          first_record_ = true;
        }
        agg_[l.name] = V(l.value);
        break;
      case Line::Kind::kModulePerf:
        perf_[l.name] = V(l.value);
        break;
      case Line::Kind::kRecordMetric:
        rec_["original_metrics"][l.name] = V(l.value);
        break;
      case Line::Kind::kRecordSignal:
        rec_["derived_signals"][l.name] = V(l.value);
        break;
    }
    return Ok();
  }
  void Finish() {
    EndModule();
    if (!job_.is_null()) fmt::print(out_, "\"job_level\": {}, \"modules\": [", job_.dump());
    fmt::print(out_, "]}}\n");
  }

 private:
  void EndRecord() {
    if (rec_.is_null()) return;
    if (first_record_)
      fmt::print(out_, "\"aggregates\": {}, \"performance\": {}, \"records\": [", agg_.dump(), perf_.dump());
    fmt::print(out_, "{}{}", first_record_ ? "" : ", ", rec_.dump());
    first_record_ = false;
    rec_ = nullptr;
  }
  void EndModule() {
    if (module_.empty()) return;
    EndRecord();
    if (first_record_)
      fmt::print(out_, "\"aggregates\": {}, \"performance\": {}, \"records\": [", agg_.dump(), perf_.dump());
    fmt::print(out_, "]}}");
    agg_ = nlohmann::json::object(), perf_ = nlohmann::json::object();
    module_.clear();
  }
  std::FILE* out_;
  nlohmann::json job_ = nlohmann::json::object(), agg_ = nlohmann::json::object(), perf_ = nlohmann::json::object(),
                 rec_;
  std::string module_;
  bool first_module_ = true, first_record_ = true;
};

// One row per value: level, module, rank, record id, group, name, value (empty for NA).
class CsvSink final : public DarshanSignals::Sink {
 public:
  explicit CsvSink(std::FILE* out) : out_(out) { fmt::print(out_, "level,module,rank,record_id,group,name,value\n"); }
  Status Begin(const Record&) override { return Ok(); }
  Status Emit(const Line& l) override {
    static const char* kLevel[] = {"job", "module_agg", "module_perf", "record_metric", "record_signal"};
    const bool rec = l.kind == Line::Kind::kRecordMetric || l.kind == Line::Kind::kRecordSignal;
    fmt::print(out_, "{},{},{},{},\"{}\",{},{}\n", kLevel[static_cast<int>(l.kind)], l.module,
               rec ? std::to_string(l.rank) : "", rec ? std::to_string(l.id) : "", l.group, l.name,
               l.value ? DarshanSignals::Format(l.value) : "");
    return Ok();
  }

 private:
  std::FILE* out_;
};

}  // namespace

int SignalsCommand::Run() {
  auto in = DarshanInput::Open(input_, log_, job_);
  if (!in.ok()) return Fail("signals", in.error());
  auto header = (*in)->Header();
  if (!header.ok()) return Fail("signals", header.error());
  std::optional<std::pair<int64_t, int64_t>> ranks;
  if (!ranks_.empty()) {
    auto r = ProcessWindow::Parse(ranks_);
    if (!r.ok()) return Fail("signals", r.error());
    ranks = std::pair{r->lo, r->hi};
    *header += fmt::format(
        "\n# ranks {}: the per-rank records of ranks {} <= rank < {} only, from the P index; shared records\n"
        "# (rank -1) cannot be split by rank and are not included\n",
        ranks_, r->lo == INT64_MIN ? std::string("-inf") : std::to_string(r->lo),
        r->hi == INT64_MAX ? std::string("+inf") : std::to_string(r->hi));
  }
  if (out_.empty()) {
    // NAME from the log file's name: "x.darshan" and "x.darshan.txt" give "x".
    std::string name = std::filesystem::path((*in)->info().file).filename().string();
    for (const char* ext : {".txt", ".darshan", ".xtfq"}) {
      if (name.size() > std::strlen(ext) && name.ends_with(ext)) name.resize(name.size() - std::strlen(ext));
    }
    if (ranks)
      name += "_ranks_" + std::to_string(std::max<int64_t>(ranks->first, 0)) + "-" +
              (ranks->second == INT64_MAX ? std::string("end") : std::to_string(ranks->second));
    out_ = name + "_signals_v2." + (format_ == "text" ? "txt" : format_);
  }
  std::FILE* out = out_ == "-" ? stdout : std::fopen(out_.c_str(), "w");
  if (out == nullptr)
    return Fail("signals", Error(ErrorCode::kIo, fmt::format("{}: cannot write: {}", out_, std::strerror(errno))));
  Status s = Ok();
  if (format_ == "text") {
    fmt::print(out, "{}", *header);
    fmt::print(out, "\n");
    TextSink sink(out);
    s = DarshanSignals::Compute((*in)->reader(), (*in)->info(), sink, ranks);
    sink.Flush();
  } else if (format_ == "json") {
    JsonSink sink(out, *header, (*in)->info());
    s = DarshanSignals::Compute((*in)->reader(), (*in)->info(), sink, ranks);
    sink.Finish();
  } else {
    CsvSink sink(out);
    s = DarshanSignals::Compute((*in)->reader(), (*in)->info(), sink, ranks);
  }
  const bool write_ok = std::fflush(out) == 0 && !std::ferror(out);
  if (out != stdout) std::fclose(out);
  if (!s.ok()) return Fail("signals", s.error());
  if (!write_ok) return Fail("signals", Error(ErrorCode::kIo, fmt::format("{}: write failed", out_)));
  if (out_ != "-") fmt::print(stderr, "signals: log {} (job {}) -> {}\n", (*in)->info().log, (*in)->info().job, out_);
  const std::vector<std::string> partial = DarshanLogs::PartialModules((*in)->info());
  if (!partial.empty()) {
    fmt::print(stderr,
               "xtfq signals: warning: log {}'s {} data is incomplete (Darshan's partial flag: the runtime ran out of "
               "memory): its signals count only the records Darshan kept\n",
               (*in)->info().log, fmt::join(partial, ", "));
  }
  return kExitOk;
}

}  // namespace xtfq::cli
