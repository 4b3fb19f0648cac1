// Test helpers for Slurm profile stores (tests/slurm_import_test.cpp, tests/slurm_real_test.cpp):
// a store's Slurm series and rows read back through the reader, and each HDF5 file's datasets
// compared value by value with what h5dump prints of it (tests/h5dump_text.h).
//
// Thread-safety: test-only; one test case's thread.
#pragma once

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "index/tn_tree.h"
#include "layouts/slurm_layout.h"
#include "query/core/store_reader.h"
#include "store/endian.h"
#include "tests/h5dump_text.h"
#include "tests/shared_data.h"
#include "tests/why.h"

namespace xtfq::test {

using SL = SlurmLayout;  // short for the layout, in these helpers

// True, and the test skipped saying why (a failure under XTFQ_REQUIRE_SHARED=1), when h5dump,
// the tests' reference for HDF5 files, is not on PATH.
inline bool H5DumpMissing() {
  if (std::system("h5dump --version > /dev/null 2>&1") == 0) return false;
  SharedAbsent("h5dump (hdf5-tools, installed by scripts/setup.sh) is not on PATH");
  return true;
}

struct Series {
  uint32_t id = 0;
  int64_t job = 0, step = 0, task = 0, start = 0;
  int32_t node_index = 0, ntasks = 0, cpus = 0, step_nodes = 0;
  uint8_t kind = 0, source = 0;
  uint16_t flags = 0;
  uint32_t rows = 0;
  std::string node, path, file, start_text;
};

// A store of Slurm profiles read back: its series, and every sample record by series, in row order.
struct Stored {
  std::vector<Series> series;
  std::map<uint32_t, std::vector<std::vector<std::byte>>> rows;  // series id -> records

  static Stored Read(const std::string& store) {
    Stored s;
    auto reader = StoreReader::Open(store);
    REQUIRE_MESSAGE(reader.ok(), Why(reader));
    StoreReader& r = **reader;
    auto str = [&](uint64_t ref) { return ref == 0 ? std::string() : r.String(StringRef::Unpack(ref)).value(); };
    const ArrayDesc* sa = r.Array(SL::kSeries).value();
    TnTree st(r.cache(), *sa);
    REQUIRE(st.ForEach(0, st.size(), [&](const std::byte* p) -> Result<bool> {
                Series x;
                x.id = static_cast<uint32_t>(s.series.size());
                x.job = LoadLe<int64_t>(p + SL::kSerJob), x.step = LoadLe<int64_t>(p + SL::kSerStep);
                x.task = LoadLe<int64_t>(p + SL::kSerTask), x.start = LoadLe<int64_t>(p + SL::kSerStart);
                x.node_index = LoadLe<int32_t>(p + SL::kSerNodeIndex);
                x.ntasks = LoadLe<int32_t>(p + SL::kSerNtasks);
                x.cpus = LoadLe<int32_t>(p + SL::kSerCpusPerTask);
                x.step_nodes = LoadLe<int32_t>(p + SL::kSerStepNodes);
                x.kind = LoadLe<uint8_t>(p + SL::kSerKind), x.source = LoadLe<uint8_t>(p + SL::kSerSource);
                x.flags = LoadLe<uint16_t>(p + SL::kSerFlags), x.rows = LoadLe<uint32_t>(p + SL::kSerRows);
                x.node = str(LoadLe<uint64_t>(p + SL::kSerNode));
                x.path = str(LoadLe<uint64_t>(p + SL::kSerPath));
                x.file = str(LoadLe<uint64_t>(p + SL::kSerFile));
                x.start_text = str(LoadLe<uint64_t>(p + SL::kSerStartText));
                s.series.push_back(std::move(x));
                return true;
              }).ok());
    for (const ArrayDesc& a : r.store().catalogue().arrays) {
      if (!a.name.starts_with(SL::kJobPrefix) || a.per_process() || a.name.ends_with("/other")) continue;
      if (a.name.find("#grid") != std::string::npos) continue;
      TnTree t(r.cache(), a);
      const uint32_t w = a.schema.record_width();
      int64_t last = INT64_MIN;
      REQUIRE(t.ForEach(0, t.size(), [&](const std::byte* p) -> Result<bool> {
                 CHECK(LoadLe<int64_t>(p + SL::kT) >= last);  // time order within the job
                 last = LoadLe<int64_t>(p + SL::kT);
                 s.rows[LoadLe<uint32_t>(p + SL::kSeriesId)].emplace_back(p, p + w);
                 return true;
               }).ok());
    }
    for (auto& [id, v] : s.rows) {
      std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
        return LoadLe<uint32_t>(a.data() + SL::kRow) < LoadLe<uint32_t>(b.data() + SL::kRow);
      });
    }
    return s;
  }

  // The series that holds the rows of `x`: itself, or the one it duplicates.
  const Series& Holder(const Series& x) const {
    if (!(x.flags & SL::kSerDuplicate)) return x;
    for (const Series& o : series) {
      if (!(o.flags & SL::kSerDuplicate) && o.job == x.job && o.step == x.step && o.node == x.node &&
          o.kind == x.kind && o.task == x.task)
        return o;
    }
    FAIL("no series holds the rows of duplicate " << x.file << " " << x.path);
    return x;
  }
};

inline std::vector<std::string> SlurmFiles(const std::filesystem::path& root) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && e.path().extension() == ".h5") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Where field `name` of a dataset of `kind` is stored, and as what ('u', 'i' or 'f').
inline std::pair<uint32_t, char> Column(uint8_t kind, std::string_view name) {
  if (name == "EpochTime") return {SL::kT, 'i'};
  if (name == "ElapsedTime") return {SL::kElapsed, 'i'};
  static const std::map<std::string_view, std::pair<uint32_t, char>> tasks = {
      {"CPUFrequency", {SL::kTaCpuFreq, 'u'}},   {"CPUTime", {SL::kTaCpuTime, 'f'}},
      {"CPUUtilization", {SL::kTaCpuUtil, 'f'}}, {"RSS", {SL::kTaRss, 'u'}},
      {"VMSize", {SL::kTaVmSize, 'u'}},          {"Pages", {SL::kTaPages, 'u'}},
      {"ReadMB", {SL::kTaReadMb, 'f'}},          {"WriteMB", {SL::kTaWriteMb, 'f'}}};
  static const std::map<std::string_view, std::pair<uint32_t, char>> fsys = {{"Reads", {SL::kFsReads, 'u'}},
                                                                             {"ReadMB", {SL::kFsReadMb, 'f'}},
                                                                             {"Writes", {SL::kFsWrites, 'u'}},
                                                                             {"WriteMB", {SL::kFsWriteMb, 'f'}}};
  static const std::map<std::string_view, std::pair<uint32_t, char>> net = {{"PacketsIn", {SL::kNetPacketsIn, 'u'}},
                                                                            {"PacketsOut", {SL::kNetPacketsOut, 'u'}},
                                                                            {"InMB", {SL::kNetInMb, 'f'}},
                                                                            {"OutMB", {SL::kNetOutMb, 'f'}}};
  const auto& m = kind == SL::kTasks ? tasks : kind == SL::kFilesystem ? fsys : net;
  auto it = m.find(name);
  return it == m.end() ? std::pair<uint32_t, char>{0, 0} : it->second;
}

// Every dataset of HDF5 file `file` against the store's series from it: rows, every field's value
// (integers exact, doubles through %.17g), the node group's attributes, and the exact bytes
// behind ReadMB. Returns the datasets and rows compared.
inline std::pair<size_t, size_t> CompareWithH5Dump(const Stored& s, const std::string& file) {
  CAPTURE(file);
  const H5DumpText dump = H5DumpText::Dump(file);
  REQUIRE(dump.ok);
  size_t datasets = 0, rows = 0;
  for (const H5DumpDataset& d : dump.datasets) {
    CAPTURE(d.path);
    ++datasets;
    rows += d.rows.size();
    auto it = std::find_if(s.series.begin(), s.series.end(),
                           [&](const Series& x) { return x.file == file && x.path == d.path; });
    REQUIRE(it != s.series.end());
    CHECK(it->rows == d.rows.size());
    const bool merged = d.path.starts_with("/Steps/");
    CHECK(it->source == (merged ? SL::kMerged : SL::kNodeStep));
    const size_t tasks = d.path.rfind("/Tasks/");
    const std::string group = d.path.substr(0, tasks != std::string::npos ? tasks : d.path.rfind('/'));
    const auto& attrs = dump.attributes.at(group);
    CHECK(it->node_index == std::stoi(attrs.at("Node Index")));
    CHECK(it->ntasks == std::stoi(attrs.at("Number of Tasks")));
    CHECK(it->cpus == std::stoi(attrs.at("CPUs per Task")));
    CHECK(it->node == attrs.at("Node Name"));
    CHECK(it->start_text == attrs.at("Start Time"));
    const auto held = s.rows.find(s.Holder(*it).id);
    REQUIRE((held != s.rows.end() || d.rows.empty()));
    if (d.rows.empty()) continue;
    const std::vector<std::vector<std::byte>>& got = held->second;
    REQUIRE(got.size() == d.rows.size());
    for (size_t r = 0; r < d.rows.size(); ++r) {
      CAPTURE(r);
      REQUIRE(d.rows[r].size() == d.fields.size());
      const std::byte* p = got[r].data();
      CHECK(LoadLe<uint32_t>(p + SL::kRow) == r);
      for (size_t c = 0; c < d.fields.size(); ++c) {
        CAPTURE(d.fields[c]);
        const auto [at, type] = Column(it->kind, d.fields[c]);
        REQUIRE(type != 0);
        const std::string& text = d.rows[r][c];
        if (type == 'f') {
          CHECK(LoadLe<double>(p + at) == std::strtod(text.c_str(), nullptr));
        } else {
          CHECK(LoadLe<uint64_t>(p + at) == std::stoull(text));
        }
      }
      if (it->kind == SL::kTasks) {
        const size_t rc = std::find(d.fields.begin(), d.fields.end(), "ReadMB") - d.fields.begin();
        CHECK(static_cast<double>(LoadLe<uint64_t>(p + SL::kTaReadBytes)) ==
              std::strtod(d.rows[r][rc].c_str(), nullptr) * 1048576.0);
      }
    }
  }
  return {datasets, rows};
}

}  // namespace xtfq::test
