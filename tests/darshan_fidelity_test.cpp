// Fidelity to darshan-util 3.5.0 where the corpus has no example (issue 13), each expectation
// derived from darshan-util's sources (repository darshan-hpc/darshan, darshan-util/) and the
// function it follows named beside it:
//   1. records of older versions (POSIX 2, H5F 1 and 2, PNETCDF_FILE 1 and 2, BG/Q 1) are printed
//      up-converted, under their version's description and warnings, in logs written here;
//   2. `dump --dxt` on a log whose DXT or LUSTRE module is flagged partial prints what
//      darshan-dxt-parser prints (copies of corpus logs with the flag set);
//   3. a big-endian log of format 3.00/3.10 gives the same signals from its binary and from its
//      darshan-parser text (POSIX_F_META_TIME as darshan-util reads it).
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "gen/darshan_log_writer.h"
#include "importers/darshan/darshan_importer.h"
#include "importers/darshan/darshan_log.h"
#include "importers/darshan/darshan_module_tables.h"
#include "importers/darshan/darshan_parser_text.h"
#include "importers/darshan/darshan_text_importer.h"
#include "query/core/store_reader.h"
#include "query/darshan/darshan_logs.h"
#include "query/darshan/darshan_signals.h"
#include "store/endian.h"
#include "store/posix_file.h"
#include "store/store_writer.h"
#include "tests/shared_data.h"
#include "tests/temp_dir.h"
#include "tests/why.h"

namespace xtfq {
namespace {

namespace fs = std::filesystem;
using test::Why;

fs::path Corpus() { return fs::path(XTFQ_SHARED_DIR) / "data" / "darshan"; }

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void UseUtc() {
  setenv("TZ", "UTC", 1);
  tzset();
}

// What a dump writes to its two streams, and how it ended.
struct Rendered {
  Status status;
  std::string out, err;
};

enum class Tool : uint8_t { kParser = 0, kDxtParser = 1 };

// `xtfq dump` (kParser) or `xtfq dump --dxt` (kDxtParser) of the log at `path`.
Rendered Dump(const std::string& path, Tool tool, bool show_incomplete) {
  auto log = DarshanLog::Open(path);
  REQUIRE_MESSAGE(log.ok(), Why(log));
  char *out_buf = nullptr, *err_buf = nullptr;
  size_t out_len = 0, err_len = 0;
  std::FILE* out = open_memstream(&out_buf, &out_len);
  std::FILE* err = open_memstream(&err_buf, &err_len);
  Rendered r{tool == Tool::kParser ? DarshanParserText::Base(**log, show_incomplete, out, err)
                                   : DarshanParserText::Dxt(**log, show_incomplete, out, err),
             {},
             {}};
  std::fclose(out);
  std::fclose(err);
  r.out.assign(out_buf, out_len);
  r.err.assign(err_buf, err_len);
  std::free(out_buf);
  std::free(err_buf);
  return r;
}

// ------------------------------------------------------------------------------------------------
// 1. Older record versions.

// Little-endian record bytes, as the runtime of that version wrote them.
class Bytes {
 public:
  Bytes& I64(int64_t v) {
    std::byte b[8];
    StoreLe<int64_t>(b, v);
    bytes_.insert(bytes_.end(), b, b + 8);
    return *this;
  }
  Bytes& F64(double v) { return I64(std::bit_cast<int64_t>(v)); }
  const std::vector<std::byte>& bytes() const { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

struct Module {
  int slot;  // as in format 3.41
  uint32_t version;
  std::vector<std::byte> record;
};

// A format 3.41 log at `path` holding one record in each of `modules`.
void WriteLog(const std::string& path, const std::vector<std::pair<uint64_t, std::string>>& names,
              const std::vector<Module>& modules) {
  auto w = DarshanLogWriter::Create(path);
  REQUIRE_MESSAGE(w.ok(), Why(w));
  DarshanJob job;
  job.job = 77, job.uid = 1000, job.nprocs = 4, job.start_sec = 1700000000, job.end_sec = 1700000100;
  job.exe = "/bin/app";
  job.metadata = "lib_ver=3.0.0\n";
  job.mounts = {{"/scratch", "lustre"}, {"/", "ext4"}};
  REQUIRE((*w)->WriteJob(job).ok());
  REQUIRE((*w)->WriteNames(names).ok());
  for (const Module& m : modules) {
    REQUIRE((*w)->BeginModule(m.slot, m.version).ok());
    REQUIRE((*w)->Write(m.record).ok());
    REQUIRE((*w)->EndModule().ok());
  }
  REQUIRE((*w)->Finish().ok());
}

// darshan-parser.c, main: the column description printed once after the header.
const char* kColumns =
    "\n# description of columns:\n"
    "#   <module>: module responsible for this I/O record.\n"
    "#   <rank>: MPI rank.  -1 indicates that the file is shared\n"
    "#      across all processes and statistics are aggregated.\n"
    "#   <record id>: hash of the record's file path\n"
    "#   <counter name> and <counter value>: statistical counters.\n"
    "#      A value of -1 indicates that Darshan could not monitor\n"
    "#      that counter, and its value should be ignored.\n"
    "#   <file name>: full file path for the record.\n"
    "#   <mount pt>: mount point that the file resides on.\n"
    "#   <fs type>: type of file system that the file resides on.\n";

// darshan-parser.c, main: a module's banner, its log_print_description(mod_ver), then
// DARSHAN_PRINT_HEADER (darshan-logutils.h); `records` follow.
std::string Section(const std::string& module, const std::string& description, const std::string& records) {
  const std::string stars(55, '*');
  return "\n# " + stars + "\n# " + module + " module data\n# " + stars + "\n" + description +
         "\n#<module>\t<rank>\t<record id>\t<counter>\t<value>\t<file name>\t<mount pt>\t<fs type>\n" + records;
}

// One record's lines (DARSHAN_D/U/F_COUNTER_PRINT of darshan-logutils.h): every counter with its
// value as printed.
std::string Lines(const std::string& module, int64_t rank, uint64_t id, const std::string& columns,
                  const std::vector<std::pair<std::string, std::string>>& values) {
  std::string s;
  for (const auto& [name, value] : values)
    s += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\n", module, rank, id, name, value, columns);
  return s;
}

std::string F(double v) { return fmt::format("{:.6f}", v); }  // %f

// darshan-posix-logutils.c, darshan_log_print_posix_description: the text every version prints.
const char* kPosixCommon =
    "\n# description of POSIX counters:\n"
    "#   POSIX_*: posix operation counts.\n"
    "#   READS,WRITES,OPENS,SEEKS,STATS,MMAPS,SYNCS,FILENOS,DUPS are types of operations.\n"
    "#   POSIX_RENAME_SOURCES/TARGETS: total count file was source or target of a rename operation\n"
    "#   POSIX_RENAMED_FROM: Darshan record ID of the first rename source, if file was a rename target\n"
    "#   POSIX_MODE: mode that file was opened in.\n"
    "#   POSIX_BYTES_*: total bytes read and written.\n"
    "#   POSIX_MAX_BYTE_*: highest offset byte read and written.\n"
    "#   POSIX_CONSEC_*: number of exactly adjacent reads and writes.\n"
    "#   POSIX_SEQ_*: number of reads and writes from increasing offsets.\n"
    "#   POSIX_RW_SWITCHES: number of times access alternated between read and write.\n"
    "#   POSIX_*_ALIGNMENT: memory and file alignment.\n"
    "#   POSIX_*_NOT_ALIGNED: number of reads and writes that were not aligned.\n"
    "#   POSIX_MAX_*_TIME_SIZE: size of the slowest read and write operations.\n"
    "#   POSIX_SIZE_*_*: histogram of read and write access sizes.\n"
    "#   POSIX_STRIDE*_STRIDE: the four most common strides detected.\n"
    "#   POSIX_STRIDE*_COUNT: count of the four most common strides.\n"
    "#   POSIX_ACCESS*_ACCESS: the four most common access sizes.\n"
    "#   POSIX_ACCESS*_COUNT: count of the four most common access sizes.\n"
    "#   POSIX_*_RANK: rank of the processes that were the fastest and slowest at I/O (for shared files).\n"
    "#   POSIX_*_RANK_BYTES: bytes transferred by the fastest and slowest ranks (for shared files).\n"
    "#   POSIX_F_*_START_TIMESTAMP: timestamp of first open/read/write/close.\n"
    "#   POSIX_F_*_END_TIMESTAMP: timestamp of last open/read/write/close.\n"
    "#   POSIX_F_READ/WRITE/META_TIME: cumulative time spent in read, write, or metadata operations.\n"
    "#   POSIX_F_MAX_*_TIME: duration of the slowest read and write operations.\n"
    "#   POSIX_F_*_RANK_TIME: fastest and slowest I/O time for a single rank (for shared files).\n"
    "#   POSIX_F_VARIANCE_RANK_*: variance of total I/O time and bytes moved for all ranks (for shared files).\n";
// Its `ver <= 2` and `ver <= 3` warnings (version 2 prints both; `ver == 1` has one more).
const char* kPosixWarnings2 =
    "\n# WARNING: POSIX module log format version <=2 has the following limitations:\n"
    "# - No support for the following timers:\n"
    "# \t- POSIX_F_CLOSE_START_TIMESTAMP\n"
    "# \t- POSIX_F_OPEN_END_TIMESTAMP\n"
    "\n# WARNING: POSIX module log format version <=3 has the following limitations:\n"
    "# - No support for the following counters to properly instrument dup, fileno, and rename operations:\n"
    "# \t- POSIX_FILENOS\n"
    "# \t- POSIX_DUPS\n"
    "# \t- POSIX_RENAME_SOURCES\n"
    "# \t- POSIX_RENAME_TARGETS\n"
    "# \t- POSIX_RENAMED_FROM\n";

// darshan-hdf5-logutils.c, darshan_log_print_hdf5_file_description.
const char* kH5fCommon =
    "\n# description of HDF5 counters:\n"
    "#   H5F_OPENS: HDF5 file open/create operation counts.\n"
    "#   H5F_FLUSHES: HDF5 file flush operation counts.\n"
    "#   H5F_USE_MPIIO: flag indicating whether MPI-IO was used to access this file.\n"
    "#   H5F_F_*_START_TIMESTAMP: timestamp of first HDF5 file open/close.\n"
    "#   H5F_F_*_END_TIMESTAMP: timestamp of last HDF5 file open/close.\n"
    "#   H5F_F_META_TIME: cumulative time spent in HDF5 metadata operations.\n";
const char* kH5fWarning1 =
    "\n# WARNING: H5F module log format version 1 does not support the following counters:\n"
    "# - H5F_F_CLOSE_START_TIMESTAMP\n"
    "# - H5F_F_OPEN_END_TIMESTAMP\n";
const char* kH5fWarning2 =
    "\n# WARNING: H5F module log format version <=2 does not support the following counters:\n"
    "# \t- H5F_FLUSHES\n"
    "# \t- H5F_USE_MPIIO\n"
    "# \t- H5F_F_META_TIME\n";

// darshan-pnetcdf-logutils.c, darshan_log_print_pnetcdf_file_description.
const char* kPnetcdfCommon =
    "\n# description of PnetCDF counters:\n"
    "#   PNETCDF_FILE_CREATES: PnetCDF file create operation counts.\n"
    "#   PNETCDF_FILE_OPENS: PnetCDF file open operation counts.\n"
    "#   PNETCDF_FILE_REDEFS: PnetCDF file re-define operation counts.\n"
    "#   PNETCDF_FILE_INDEP_WAITS: PnetCDF independent file wait operation counts.\n"
    "#   PNETCDF_FILE_COLL_WAITS: PnetCDF collective file wait operation counts.\n"
    "#   PNETCDF_FILE_SYNCS: PnetCDF file sync operation counts.\n"
    "#   PNETCDF_FILE_BYTES_READ: PnetCDF total bytes read for all file variables.\n"
    "#   PNETCDF_FILE_BYTES_WRITTEN: PnetCDF total bytes written for all file variables.\n"
    "#   PNETCDF_FILE_WAIT_FAILURES: PnetCDF file wait operation failure counts.\n"
    "#   PNETCDF_FILE_F_*_START_TIMESTAMP: timestamp of first PnetCDF file open/close/wait operation.\n"
    "#   PNETCDF_FILE_F_*_END_TIMESTAMP: timestamp of last PnetCDF file open/close/wait operation.\n"
    "#   PNETCDF_FILE_F_META_TIME: Cumulative time spent in file metadata operations.\n"
    "#   PNETCDF_FILE_F_WAIT_TIME: Cumulative time spent in file wait operations.\n";
const char* kPnetcdfWarning1 =
    "\n# WARNING: PnetCDF file module log format version 1 does not support the following counters:\n"
    "# - PNETCDF_FILE_F_CLOSE_START_TIMESTAMP\n"
    "# - PNETCDF_FILE_F_OPEN_END_TIMESTAMP\n";
const char* kPnetcdfWarning2 =
    "\n# WARNING: PnetCDF file module log format version <=2 does not support the following counters:\n"
    "# - PNETCDF_FILE_CREATES\n"
    "# - PNETCDF_FILE_REDEFS\n"
    "# - PNETCDF_FILE_INDEP_WAITS\n"
    "# - PNETCDF_FILE_COLL_WAITS\n"
    "# - PNETCDF_FILE_SYNCS\n"
    "# - PNETCDF_FILE_BYTES_READ\n"
    "# - PNETCDF_FILE_BYTES_WRITTEN\n"
    "# - PNETCDF_FILE_WAIT_FAILURES\n"
    "# - PNETCDF_FILE_F_WAIT_START_TIMESTAMP\n"
    "# - PNETCDF_FILE_F_WAIT_END_TIMESTAMP\n"
    "# - PNETCDF_FILE_F_META_TIME\n"
    "# - PNETCDF_FILE_F_WAIT_TIME\n";

// darshan-bgq-logutils.c, darshan_log_print_bgq_description: the same for every version.
const char* kBgqDescription =
    "\n# description of BGQ counters:\n"
    "#   BGQ_CSJOBID: BGQ control system job ID.\n"
    "#   BGQ_NNODES: number of BGQ compute nodes for this job.\n"
    "#   BGQ_RANKSPERNODE: number of MPI ranks per compute node.\n"
    "#   BGQ_DDRPERNODE: size in MB of DDR3 per compute node.\n"
    "#   BGQ_INODES: number of BGQ I/O nodes for this job.\n"
    "#   BGQ_*NODES: dimension of A, B, C, D, & E dimensions of torus.\n"
    "#   BGQ_TORUSENABLED: which dimensions of the torus are enabled.\n"
    "#   BGQ_F_TIMESTAMP: timestamp when the BGQ data was collected.\n";

const std::vector<std::string> kPnetcdfNames = {"PNETCDF_FILE_CREATES",
                                                "PNETCDF_FILE_OPENS",
                                                "PNETCDF_FILE_REDEFS",
                                                "PNETCDF_FILE_INDEP_WAITS",
                                                "PNETCDF_FILE_COLL_WAITS",
                                                "PNETCDF_FILE_SYNCS",
                                                "PNETCDF_FILE_BYTES_READ",
                                                "PNETCDF_FILE_BYTES_WRITTEN",
                                                "PNETCDF_FILE_WAIT_FAILURES",
                                                "PNETCDF_FILE_F_OPEN_START_TIMESTAMP",
                                                "PNETCDF_FILE_F_CLOSE_START_TIMESTAMP",
                                                "PNETCDF_FILE_F_WAIT_START_TIMESTAMP",
                                                "PNETCDF_FILE_F_OPEN_END_TIMESTAMP",
                                                "PNETCDF_FILE_F_CLOSE_END_TIMESTAMP",
                                                "PNETCDF_FILE_F_WAIT_END_TIMESTAMP",
                                                "PNETCDF_FILE_F_META_TIME",
                                                "PNETCDF_FILE_F_WAIT_TIME"};
const std::vector<std::string> kH5fNames = {"H5F_OPENS",
                                            "H5F_FLUSHES",
                                            "H5F_USE_MPIIO",
                                            "H5F_F_OPEN_START_TIMESTAMP",
                                            "H5F_F_CLOSE_START_TIMESTAMP",
                                            "H5F_F_OPEN_END_TIMESTAMP",
                                            "H5F_F_CLOSE_END_TIMESTAMP",
                                            "H5F_F_META_TIME"};
const std::vector<std::string> kBgqNames = {"BGQ_CSJOBID", "BGQ_NNODES", "BGQ_RANKSPERNODE", "BGQ_DDRPERNODE",
                                            "BGQ_INODES",  "BGQ_ANODES", "BGQ_BNODES",       "BGQ_CNODES",
                                            "BGQ_DNODES",  "BGQ_ENODES", "BGQ_TORUSENABLED", "BGQ_F_TIMESTAMP"};

std::vector<std::pair<std::string, std::string>> Zip(const std::vector<std::string>& names,
                                                     const std::vector<std::string>& values) {
  REQUIRE(names.size() == values.size());
  std::vector<std::pair<std::string, std::string>> z;
  for (size_t i = 0; i < names.size(); ++i) z.emplace_back(names[i], values[i]);
  return z;
}

constexpr uint64_t kPosixId = 11, kH5fId = 12, kNcId = 13, kBgqId = 14, kH5dId = 15;
const std::vector<std::pair<uint64_t, std::string>> kNames = {{kPosixId, "/scratch/run/out.dat"},
                                                              {kH5fId, "/scratch/run/f.h5"},
                                                              {kNcId, "/home/u/f.nc"},
                                                              {kH5dId, "/scratch/run/f.h5:/d"}};

// POSIX version 2 (darshan-posix-logutils.c, DARSHAN_POSIX_FILE_SIZE_2 = 648): 64 ints, 15 floats
// (the version 3 floats without F_CLOSE_START_TIMESTAMP and F_OPEN_END_TIMESTAMP).
Module PosixV2() {
  Bytes b;
  b.I64(kPosixId).I64(-1);
  for (int k = 0; k < 64; ++k) b.I64(1000 + k);
  for (int j = 0; j < 15; ++j) b.F64(j + 0.25);
  REQUIRE(b.bytes().size() == 648);
  return {1, 2, b.bytes()};
}
// H5F version 1 (darshan-hdf5-logutils.c, DARSHAN_H5F_FILE_SIZE_1 = 40): OPENS,
// F_OPEN_TIMESTAMP, F_CLOSE_TIMESTAMP.
Module H5fV1() {
  Bytes b;
  b.I64(kH5fId).I64(0).I64(5).F64(1.5).F64(9.75);
  return {3, 1, b.bytes()};
}
// PNETCDF_FILE version 1 (darshan-pnetcdf-logutils.c, DARSHAN_PNETCDF_FILE_SIZE_1 = 48):
// INDEP_OPENS, COLL_OPENS, F_OPEN_TIMESTAMP, F_CLOSE_TIMESTAMP.
Module PnetcdfV1() {
  Bytes b;
  b.I64(kNcId).I64(0).I64(200).I64(100).F64(0.5).F64(8.5);
  return {5, 1, b.bytes()};
}
// BG/Q version 1 (darshan-bgq-logutils.c, DARSHAN_BGQ_FILE_SIZE_1 = 112 + 8): 8 bytes between
// the base record and the 11 counters, which darshan_log_get_bgq_rec skips; no name record.
Module BgqV1() {
  Bytes b;
  b.I64(kBgqId).I64(-1).I64(0x0badf00d);
  for (int k = 0; k < 11; ++k) b.I64(10 * (k + 1));
  b.F64(123.5);
  REQUIRE(b.bytes().size() == 120);
  return {7, 1, b.bytes()};
}

TEST_CASE(
    "darshan fidelity: POSIX 2, H5F 1, PNETCDF_FILE 1 and BG/Q 1 records print up-converted with their version "
    "warnings") {
  UseUtc();
  test::TempDir dir;
  const std::string path = dir.File("old1.darshan");
  WriteLog(path, kNames, {PosixV2(), H5fV1(), PnetcdfV1(), BgqV1()});

  const Rendered got = Dump(path, Tool::kParser, false);
  REQUIRE_MESSAGE(got.status.ok(), Why(got.status));
  auto log = DarshanLog::Open(path);
  REQUIRE(log.ok());
  std::string want = DarshanParserText::Header(**log) + kColumns;

  // darshan_log_get_posix_file, version 2: "upconvert version 2 to version 3" opens the two float
  // gaps (F_CLOSE_START, F_OPEN_END = -1); "upconvert version 3 to version 4" opens FILENOS, DUPS
  // (-1) after OPENS and RENAME_SOURCES, RENAME_TARGETS (-1), RENAMED_FROM (0) after FDSYNCS. Both
  // of its memmoves there use rec_len, still 648 for a version 2 record: the last 32 bytes of the
  // version 4 record are never written, so F_FASTEST_RANK_TIME, F_SLOWEST_RANK_TIME and the two
  // F_VARIANCE_RANK counters read back as 0 (the scratch buffer is zeroed).
  std::vector<std::string> pv;
  pv.push_back("1000");
  pv.insert(pv.end(), {"-1", "-1"});
  for (int k = 1; k <= 7; ++k) pv.push_back(std::to_string(1000 + k));
  pv.insert(pv.end(), {"-1", "-1", "0"});
  for (int k = 8; k < 64; ++k) pv.push_back(std::to_string(1000 + k));
  for (int j : {0, 1, 2}) pv.push_back(F(j + 0.25));
  pv.insert(pv.end(), {F(-1), F(-1)});
  for (int j = 3; j <= 10; ++j) pv.push_back(F(j + 0.25));
  for (int j = 0; j < 4; ++j) pv.push_back(F(0));
  std::vector<std::string> posix_names;
  for (const auto& c : DarshanModuleTables::CounterNames()) {
    if (c.module == "POSIX") posix_names.assign(c.names.begin(), c.names.end());
  }
  want += Section("POSIX", std::string(kPosixCommon) + kPosixWarnings2,
                  Lines("POSIX", -1, kPosixId, "/scratch/run/out.dat\t/scratch\tlustre", Zip(posix_names, pv)));

  // darshan_log_get_hdf5_file, version 1: F_CLOSE_START and F_OPEN_END (-1) between the two
  // timestamps, then as version 2: FLUSHES and USE_MPIIO (-1) after OPENS, F_META_TIME (-1) last.
  want += Section("H5F", std::string(kH5fCommon) + kH5fWarning1 + kH5fWarning2,
                  Lines("H5F", 0, kH5fId, "/scratch/run/f.h5\t/scratch\tlustre",
                        Zip(kH5fNames, {"5", "-1", "-1", F(1.5), F(-1), F(-1), F(9.75), F(-1)})));

  // darshan_log_get_pnetcdf_file, version 1: as H5F's first step, then "upconvert version 2 to
  // version 3": COLL_OPENS += INDEP_OPENS becomes FILE_OPENS, CREATES and REDEFS..WAIT_FAILURES -1,
  // the start and end timestamps moved to their slots, the wait timestamps and both timers -1.
  want += Section("PNETCDF_FILE", std::string(kPnetcdfCommon) + kPnetcdfWarning1 + kPnetcdfWarning2,
                  Lines("PNETCDF_FILE", 0, kNcId, "/home/u/f.nc\t/\text4",
                        Zip(kPnetcdfNames, {"-1", "300", "-1", "-1", "-1", "-1", "-1", "-1", "-1", F(0.5), F(-1), F(-1),
                                            F(-1), F(8.5), F(-1), F(-1), F(-1)})));

  // darshan_log_get_bgq_rec, version 1: the counters after the skipped bytes; darshan-parser names
  // an unnamed BG/Q record "darshan-bgq-record".
  want +=
      Section("BG/Q", kBgqDescription,
              Lines("BG/Q", -1, kBgqId, "darshan-bgq-record\tUNKNOWN\tUNKNOWN",
                    Zip(kBgqNames, {"10", "20", "30", "40", "50", "60", "70", "80", "90", "100", "110", F(123.5)})));
  CHECK(got.out == want);
  CHECK(got.err.empty());
}

TEST_CASE("darshan fidelity: H5F 2 and PNETCDF_FILE 2 records print up-converted with their version warnings") {
  UseUtc();
  test::TempDir dir;
  const std::string path = dir.File("old2.darshan");
  // H5F version 2 (DARSHAN_H5F_FILE_SIZE_2 = 56): OPENS and the four open/close timestamps.
  Bytes h5f;
  h5f.I64(kH5fId).I64(-1).I64(6).F64(1.0).F64(2.0).F64(3.0).F64(4.0);
  // PNETCDF_FILE version 2 (DARSHAN_PNETCDF_FILE_SIZE_2 = 64): INDEP_OPENS, COLL_OPENS, then
  // F_OPEN_START, F_CLOSE_START, F_OPEN_END, F_CLOSE_END.
  Bytes nc;
  nc.I64(kNcId).I64(2).I64(3).I64(4).F64(1.25).F64(2.25).F64(1.75).F64(3.0);
  WriteLog(path, kNames, {{3, 2, h5f.bytes()}, {5, 2, nc.bytes()}});

  const Rendered got = Dump(path, Tool::kParser, false);
  REQUIRE_MESSAGE(got.status.ok(), Why(got.status));
  auto log = DarshanLog::Open(path);
  REQUIRE(log.ok());
  std::string want = DarshanParserText::Header(**log) + kColumns;
  // darshan_log_get_hdf5_file, "upconvert version 2 to version 3".
  want += Section("H5F", std::string(kH5fCommon) + kH5fWarning2,
                  Lines("H5F", -1, kH5fId, "/scratch/run/f.h5\t/scratch\tlustre",
                        Zip(kH5fNames, {"6", "-1", "-1", F(1.0), F(2.0), F(3.0), F(4.0), F(-1)})));
  // darshan_log_get_pnetcdf_file, "upconvert version 2 to version 3".
  want += Section("PNETCDF_FILE", std::string(kPnetcdfCommon) + kPnetcdfWarning2,
                  Lines("PNETCDF_FILE", 2, kNcId, "/home/u/f.nc\t/\text4",
                        Zip(kPnetcdfNames, {"-1", "7", "-1", "-1", "-1", "-1", "-1", "-1", "-1", F(1.25), F(2.25),
                                            F(-1), F(1.75), F(3.0), F(-1), F(-1), F(-1)})));
  CHECK(got.out == want);
}

std::string Inflate(const std::string& z) {
  z_stream s{};
  REQUIRE(inflateInit(&s) == Z_OK);
  std::string out;
  char buf[65536];
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.data()));
  s.avail_in = static_cast<uInt>(z.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    s.next_out = reinterpret_cast<Bytef*>(buf);
    s.avail_out = sizeof buf;
    rc = inflate(&s, Z_NO_FLUSH);
    REQUIRE((rc == Z_OK || rc == Z_STREAM_END));
    out.append(buf, sizeof buf - s.avail_out);
  }
  inflateEnd(&s);
  return out;
}

std::string Deflate(const std::string& raw) {
  uLongf n = compressBound(static_cast<uLong>(raw.size()));
  std::string out(n, '\0');
  REQUIRE(compress(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(raw.data()),
                   static_cast<uLong>(raw.size())) == Z_OK);
  out.resize(n);
  return out;
}

void Swap8(std::string& b, size_t at) {
  std::reverse(b.begin() + static_cast<ptrdiff_t>(at), b.begin() + static_cast<ptrdiff_t>(at + 8));
}

// The log DarshanLogWriter wrote at `from` (format 3.41, one zlib stream per region, modules of
// fixed-size records, whose fields are all 8 bytes) as a big-endian runtime writes it: every
// integer and double of the header, the job, the name record ids and the records byte-swapped
// (../shared/docs/darshan-format.md, 2.3).
void ToBigEndian(const std::string& from, const std::string& to) {
  const std::string le = Slurp(from);
  auto u64 = [&](size_t at) { return LoadLe<uint64_t>(reinterpret_cast<const std::byte*>(le.data()) + at); };
  std::string header = le.substr(0, 1328), body;
  auto put = [&](size_t map_at, std::string raw, bool all_words) {
    if (all_words) {
      for (size_t i = 0; i + 8 <= raw.size(); i += 8) Swap8(raw, i);
    }
    const std::string z = Deflate(raw);
    StoreLe<uint64_t>(reinterpret_cast<std::byte*>(header.data()) + map_at, 1328 + body.size());
    StoreLe<uint64_t>(reinterpret_cast<std::byte*>(header.data()) + map_at + 8, z.size());
    Swap8(header, map_at);
    Swap8(header, map_at + 8);
    body += z;
  };
  // The job: seven int64 fields, then the metadata, exe and mounts; its region has no map entry.
  std::string job = Inflate(le.substr(1328, u64(32) - 1328));
  for (size_t i = 0; i < 7; ++i) Swap8(job, 8 * i);
  body = Deflate(job);
  std::string names = Inflate(le.substr(u64(32), u64(40)));
  for (size_t at = 0; at < names.size(); at = names.find('\0', at + 8) + 1) Swap8(names, at);
  put(32, names, false);
  for (size_t slot = 0; slot < 64; ++slot) {
    const size_t map_at = 48 + 16 * slot;
    if (u64(map_at + 8) > 0) put(map_at, Inflate(le.substr(u64(map_at), u64(map_at + 8))), true);
    std::reverse(header.begin() + static_cast<ptrdiff_t>(1072 + 4 * slot),
                 header.begin() + static_cast<ptrdiff_t>(1072 + 4 * slot + 4));
  }
  Swap8(header, 8);   // magic
  Swap8(header, 24);  // partial flags
  std::ofstream(to, std::ios::binary | std::ios::trunc) << header << body;
}

double Unswapped(double v) { return std::bit_cast<double>(__builtin_bswap64(std::bit_cast<uint64_t>(v))); }

TEST_CASE("darshan fidelity: old records of a big-endian log print with darshan-util's byte-swap slips") {
  UseUtc();
  test::TempDir dir;
  // H5D version 2 (darshan-hdf5-logutils.c): base, file record id, 94 ints, 17 floats.
  Bytes h5d;
  h5d.I64(kH5dId).I64(0).I64(kH5fId);
  for (int k = 0; k < 94; ++k) h5d.I64(k);
  for (int j = 0; j < 17; ++j) h5d.F64(j + 0.5);
  const std::string le = dir.File("le.darshan"), be = dir.File("be.darshan");
  WriteLog(le, kNames, {PosixV2(), H5fV1(), {4, 2, h5d.bytes()}, PnetcdfV1(), BgqV1()});
  ToBigEndian(le, be);
  auto log = DarshanLog::Open(be);
  REQUIRE_MESSAGE(log.ok(), Why(log));
  REQUIRE((*log)->big_endian());
  const Rendered a = Dump(le, Tool::kParser, false), b = Dump(be, Tool::kParser, false);
  REQUIRE_MESSAGE(a.status.ok(), Why(a.status));
  REQUIRE_MESSAGE(b.status.ok(), Why(b.status));
  // Everything after the header (whose region sizes differ) is the same but for the values
  // darshan-util's byte swap gets wrong:
  const auto body = [](const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text.substr(text.find("\n# description of columns:")));
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  };
  const std::vector<std::string> la = body(a.out), lb = body(b.out);
  REQUIRE(la.size() == lb.size());
  std::map<std::string, std::string> differ;  // counter -> big-endian value
  for (size_t i = 0; i < la.size(); ++i) {
    if (la[i] == lb[i]) continue;
    std::vector<std::string> fa, fb;
    std::istringstream ia(la[i]), ib(lb[i]);
    for (std::string f; std::getline(ia, f, '\t');) fa.push_back(f);
    for (std::string f; std::getline(ib, f, '\t');) fb.push_back(f);
    REQUIRE(fa.size() == 8);
    REQUIRE(fb.size() == 8);
    fa[4] = fb[4];
    CHECK(fa == fb);  // only the value differs
    differ[fb[3]] = fb[4];
  }
  const std::map<std::string, std::string> want = {
      // darshan_log_get_posix_file: for versions below 4 the float swap loop skips indexes 10-12
      // (it tests them against the int indexes POSIX_RENAME_SOURCES, _TARGETS, RENAMED_FROM), the
      // version 2 floats 8-10 after up-conversion.
      {"POSIX_F_META_TIME", F(Unswapped(8.25))},
      {"POSIX_F_MAX_READ_TIME", F(Unswapped(9.25))},
      {"POSIX_F_MAX_WRITE_TIME", F(Unswapped(10.25))},
      // darshan_log_get_hdf5_dataset: file_rec_id is swapped only if mod_ver[DARSHAN_H5F_MOD] >= 2.
      {"H5D_FILE_REC_ID", std::to_string(__builtin_bswap64(kH5fId))},
      // darshan_log_get_pnetcdf_file: COLL_OPENS += INDEP_OPENS on the unswapped values, then the
      // swap: (200 << 56) + (100 << 56) wraps to 44 << 56.
      {"PNETCDF_FILE_OPENS", "44"},
  };
  CHECK(differ == want);
}

TEST_CASE("darshan fidelity: POSIX 1 records of files opened with fopen are dropped by the unswapped count") {
  UseUtc();
  test::TempDir dir;
  // POSIX version 1 (DARSHAN_POSIX_FILE_SIZE_1 = 680): 68 ints, the four stdio counters at 6-9.
  // darshan_log_get_posix_file skips records whose int 6 (the fopen count) is positive, a test it
  // makes before the byte swap: in a big-endian log a count of 128 reads as (128 << 56) < 0.
  Bytes b;
  for (const int64_t fopens : {0, 128, 1}) {
    b.I64(kPosixId + static_cast<uint64_t>(fopens)).I64(0);
    for (int k = 0; k < 68; ++k) b.I64(k == 6 ? fopens : k);
    for (int j = 0; j < 15; ++j) b.F64(j);
  }
  REQUIRE(b.bytes().size() == 3 * 680);
  const std::string le = dir.File("le.darshan"), be = dir.File("be.darshan");
  WriteLog(le, kNames, {{1, 1, b.bytes()}});
  ToBigEndian(le, be);
  const auto ids = [](const Rendered& r) {
    REQUIRE_MESSAGE(r.status.ok(), Why(r.status));
    std::vector<std::string> ids;
    std::istringstream in(r.out);
    for (std::string l; std::getline(in, l);) {
      if (l.starts_with("POSIX\t") && l.find("\tPOSIX_OPENS\t") != std::string::npos)
        ids.push_back(l.substr(8, l.find('\t', 8) - 8));
    }
    return ids;
  };
  CHECK(ids(Dump(le, Tool::kParser, false)) == std::vector<std::string>{"11"});
  CHECK(ids(Dump(be, Tool::kParser, false)) == std::vector<std::string>{"11", "139"});
}

// ------------------------------------------------------------------------------------------------
// 2. darshan-dxt-parser on partial modules.

// A copy of corpus log `name` at `to` with the partial flag bit `bit` set; `bit` numbers the
// slots as the log's own format does (darshan_log_get_header: a 64-bit flag at byte 24 in 3.41,
// a 32-bit one at byte 20 before, whose slots sit below the H5D and PNETCDF_VAR insertions).
void CopyWithPartial(const fs::path& from, const std::string& to, int bit) {
  std::string b = Slurp(from);
  REQUIRE(b.size() > 1328);
  auto* p = reinterpret_cast<std::byte*>(b.data());
  if (b.compare(0, 4, "3.41") == 0) {
    StoreLe<uint64_t>(p + 24, LoadLe<uint64_t>(p + 24) | (uint64_t{1} << bit));
  } else {
    StoreLe<uint32_t>(p + 20, LoadLe<uint32_t>(p + 20) | (uint32_t{1} << bit));
  }
  std::ofstream(to, std::ios::binary | std::ios::trunc) << b;
}

// darshan-dxt-parser.c, main: what it prints (stdout) for a partial module with
// --show-incomplete, and (stderr) before it exits without.
std::string DxtWarning(const std::string& module) {
  return "\n# *WARNING*: The " + module +
         " module contains incomplete data!\n"
         "#            This happens when a module runs out of\n"
         "#            memory to store new record data.\n"
         "\n# To avoid this error, consult the darshan-runtime\n"
         "# documentation and consider setting the\n"
         "# DARSHAN_EXCLUDE_DIRS or DXT_TRIGGER_CONF_PATH\n"
         "# environment variable to prevent Darshan from\n"
         "# instrumenting unecessary files.\n";
}
std::string DxtError(const std::string& module) {
  return "\n# *ERROR*: The " + module +
         " module contains incomplete data!\n"
         "#            This happens when a module runs out of\n"
         "#            memory to store new record data.\n"
         "\n# To avoid this error, consult the darshan-runtime\n"
         "# documentation and consider setting the\n"
         "# DARSHAN_EXCLUDE_DIRS or DXT_TRIGGER_CONF_PATH\n"
         "# environment variable to prevent Darshan from\n"
         "# instrumenting unecessary files.\n"
         "\n# You can display the (incomplete) data that is\n"
         "# present in this log using the --show-incomplete\n"
         "# option to darshan-dxt-parser.\n";
}

const std::string kDxtPosixBanner =
    "\n# ***************************************************\n# DXT_POSIX module data\n"
    "# ***************************************************\n";

TEST_CASE("darshan fidelity: dump --dxt of a partial DXT module prints darshan-dxt-parser's warning after the banner") {
  const fs::path src = Corpus() / "generated" / "mpi_shared_4rank.darshan";
  if (test::SharedMissing(src)) return;
  UseUtc();
  test::TempDir dir;
  const std::string path = dir.File("p.darshan");
  CopyWithPartial(src, path, 10);  // DXT_POSIX
  const std::string ref = Slurp(fs::path(src).replace_extension(".dxt.txt"));
  const size_t banner = ref.find(kDxtPosixBanner);
  REQUIRE(banner != std::string::npos);
  // The module loop of darshan-dxt-parser.c: the banner, then the partial-flag check.
  const size_t after = banner + kDxtPosixBanner.size();
  const Rendered shown = Dump(path, Tool::kDxtParser, true);
  REQUIRE_MESSAGE(shown.status.ok(), Why(shown.status));
  CHECK(shown.out == ref.substr(0, after) + DxtWarning("DXT_POSIX") + ref.substr(after));
  // Without --show-incomplete it prints the error and returns -1 after the banner.
  const Rendered plain = Dump(path, Tool::kDxtParser, false);
  REQUIRE_FALSE(plain.status.ok());
  CHECK(plain.status.error().code() == ErrorCode::kFailed);
  CHECK(plain.out == ref.substr(0, after));
  CHECK(plain.err == DxtError("DXT_POSIX"));
}

TEST_CASE("darshan fidelity: dump --dxt prints nothing for an empty partial DXT module") {
  const fs::path src = Corpus() / "generated" / "python3_read.darshan";
  const fs::path nodxt = Corpus() / "generated" / "dd_small.darshan";
  if (test::SharedMissing(src) || test::SharedMissing(nodxt)) return;
  UseUtc();
  test::TempDir dir;
  // DXT_MPIIO has no data: darshan-dxt-parser skips every module of length 0 (region list and
  // module loop alike) before it looks at the partial flag.
  CopyWithPartial(src, dir.File("p.darshan"), 11);
  for (bool show : {true, false}) {
    const Rendered got = Dump(dir.File("p.darshan"), Tool::kDxtParser, show);
    REQUIRE_MESSAGE(got.status.ok(), Why(got.status));
    CHECK(got.out == Slurp(fs::path(src).replace_extension(".dxt.txt")));
    CHECK(got.err.empty());
  }
  // Neither DXT module has data: "no DXT module data", whatever the flags say.
  CopyWithPartial(nodxt, dir.File("q.darshan"), 10);
  const Rendered none = Dump(dir.File("q.darshan"), Tool::kDxtParser, false);
  REQUIRE_MESSAGE(none.status.ok(), Why(none.status));
  const std::string parser_ref = Slurp(nodxt.string() + ".txt");
  const std::string header = parser_ref.substr(0, parser_ref.find("\n# description of columns:"));
  CHECK(none.out == header + "\n# no DXT module data available for this Darshan log.\n");
}

TEST_CASE("darshan fidelity: dump --dxt of a log whose LUSTRE module is partial warns before the DXT data") {
  const fs::path src = Corpus() / "real" / "ior-hdf5-h5d1-dxt.darshan";  // format 3.21
  if (test::SharedMissing(src)) return;
  UseUtc();
  test::TempDir dir;
  const std::string path = dir.File("p.darshan");
  CopyWithPartial(src, path, 7);  // LUSTRE's slot in a 3.21 log (8 in 3.41)
  const std::string ref = Slurp(fs::path(src).replace_extension(".dxt.txt"));
  const size_t banner = ref.find(kDxtPosixBanner);
  REQUIRE(banner != std::string::npos);
  // LUSTRE (slot 8) comes before the DXT modules in the module loop and gets no banner.
  const Rendered shown = Dump(path, Tool::kDxtParser, true);
  REQUIRE_MESSAGE(shown.status.ok(), Why(shown.status));
  CHECK(shown.out == ref.substr(0, banner) + DxtWarning("LUSTRE") + ref.substr(banner));
  const Rendered plain = Dump(path, Tool::kDxtParser, false);
  REQUIRE_FALSE(plain.status.ok());
  CHECK(plain.out == ref.substr(0, banner));
  CHECK(plain.err == DxtError("LUSTRE"));
}

TEST_CASE(
    "darshan fidelity: darshan-parser prints only the banner and the warning of an empty partial module, DXT too") {
  const fs::path src = Corpus() / "generated" / "dd_small.darshan";  // POSIX, HEATMAP
  if (test::SharedMissing(src)) return;
  UseUtc();
  test::TempDir dir;
  const std::string path = dir.File("p.darshan");
  CopyWithPartial(src, path, 10);  // DXT_POSIX, which has no data
  std::string want = Slurp(src.string() + ".txt");
  // darshan-parser.c, main: the regions list a module with data or with its partial flag set...
  const std::string posix_region = "# POSIX module: 107 bytes (compressed), ver=4\n";
  const size_t region = want.find(posix_region);
  REQUIRE(region != std::string::npos);
  want.insert(region + posix_region.size(), "# DXT_POSIX module: 0 bytes (compressed), ver=0\n");
  // ... and the module loop gives such an empty module (before its DXT test, which only modules
  // with data reach) the banner, the warning, then "continue; // no data to parse".
  const size_t heatmap =
      want.find("\n# *******************************************************\n# HEATMAP module data");
  REQUIRE(heatmap != std::string::npos);
  const std::string stars(55, '*');
  const std::string warning =
      "\n# *WARNING*: The DXT_POSIX module contains incomplete data!\n"
      "#            This happens when a module runs out of\n"
      "#            memory to store new record data.\n"
      "\n# To avoid this error, consult the darshan-runtime\n"
      "# documentation and consider setting the NAME_EXCLUDE\n"
      "# variable in a run-time configuration file to prevent\n"
      "# Darshan from instrumenting unnecessary files.\n";
  const std::string section = "\n# " + stars + "\n# DXT_POSIX module data\n# " + stars + "\n" + warning;
  const Rendered shown = Dump(path, Tool::kParser, true);
  REQUIRE_MESSAGE(shown.status.ok(), Why(shown.status));
  CHECK(shown.out == want.substr(0, heatmap) + section + want.substr(heatmap));
  // Without --show-incomplete: darshan-parser's error, which ends by naming the option.
  const Rendered plain = Dump(path, Tool::kParser, false);
  REQUIRE_FALSE(plain.status.ok());
  CHECK(plain.err.starts_with("\n# *ERROR*: The DXT_POSIX module contains incomplete data!\n"));
  CHECK(
      plain.err.ends_with("\n# You can display the (incomplete) data that is\n"
                          "# present in this log using the --show-incomplete\n"
                          "# option to darshan-parser.\n"));
}

// ------------------------------------------------------------------------------------------------
// 3. The same signals from a binary log and from its darshan-parser text.

// Passes everything to a store, with the float counters of counter records rounded to the six
// decimals darshan-parser prints: what the text import sees.
class SixDecimals final : public RecordSink {
 public:
  explicit SixDecimals(StoreWriter& w) : w_(w) {}
  Result<ArrayId> CreateArray(std::string_view name, const Schema& schema) override {
    XTFQ_ASSIGN_OR_RETURN(ArrayId id, w_.CreateArray(name, schema));
    if (name.starts_with("darshan/") && name.find("DXT_") == std::string_view::npos) schemas_.emplace(id.value, schema);
    return id;
  }
  std::optional<ArrayId> FindArrayId(std::string_view name) const override { return w_.FindArrayId(name); }
  Result<StringRef> AddString(std::string_view s) override { return w_.AddString(s); }
  Status Append(ArrayId array, std::span<const std::byte> record) override {
    auto it = schemas_.find(array.value);
    if (it == schemas_.end()) return w_.Append(array, record);
    std::vector<std::byte> r(record.begin(), record.end());
    for (const Field& f : it->second.fields()) {
      if (f.type != FieldType::kF64) continue;
      StoreLe<double>(r.data() + f.offset, std::stod(fmt::format("{:.6f}", LoadLe<double>(r.data() + f.offset))));
    }
    return w_.Append(array, r);
  }

 private:
  StoreWriter& w_;
  std::map<uint32_t, Schema> schemas_;
};

// Every signal line of the store's only log: "module rank id name" -> value as printed.
class SignalLines final : public DarshanSignals::Sink {
 public:
  Status Begin(const DarshanSignals::Record&) override { return Ok(); }
  Status Emit(const DarshanSignals::Line& l) override {
    values[fmt::format("{} {} {} {} {}", static_cast<int>(l.kind), l.module, l.rank, l.id, l.name)] =
        DarshanSignals::Format(l.value);
    return Ok();
  }
  std::map<std::string, std::string> values;
};

std::map<std::string, std::string> Signals(const std::string& store) {
  auto reader = StoreReader::Open(store);
  REQUIRE_MESSAGE(reader.ok(), Why(reader));
  auto info = DarshanLogs::Find(**reader, std::nullopt, std::nullopt);
  REQUIRE_MESSAGE(info.ok(), Why(info));
  SignalLines sink;
  REQUIRE(DarshanSignals::Compute(**reader, *info, sink, std::nullopt).ok());
  return sink.values;
}

TEST_CASE("darshan fidelity: big-endian 3.00 and 3.10 logs give the same signals from the binary and from the text") {
  for (const char* name : {"rel-3.00-ppc64-bigendian", "rel-3.10-ppc64-bgq-dxt1"}) {
    const fs::path src = Corpus() / "real" / (std::string(name) + ".darshan");
    if (test::SharedMissing(src)) return;
    CAPTURE(name);
    test::TempDir dir;
    auto log = DarshanLog::Open(src.string());
    REQUIRE(log.ok());
    REQUIRE((*log)->big_endian());
    REQUIRE((*log)->module_version(1) < 4);
    {
      auto w = StoreWriter::CreatePath(dir.File("b.xtfq"));
      REQUIRE(w.ok());
      SixDecimals rounded(**w);
      REQUIRE(DarshanImporter::Import(**log, rounded, 0).ok());
      REQUIRE((*w)->Commit().ok());
      auto w2 = StoreWriter::CreatePath(dir.File("t.xtfq"));
      REQUIRE(w2.ok());
      auto f = PosixFile::Open(src.string() + ".txt", PosixFile::Mode::kRead);
      REQUIRE(f.ok());
      REQUIRE(DarshanTextImporter::Import(**f, **w2, 0).ok());
      REQUIRE((*w2)->Commit().ok());
    }
    const auto binary = Signals(dir.File("b.xtfq")), text = Signals(dir.File("t.xtfq"));
    REQUIRE(binary.size() == text.size());
    for (const auto& [key, value] : binary) {
      CAPTURE(key);
      auto it = text.find(key);
      REQUIRE(it != text.end());
      CHECK(value == it->second);
    }
    // darshan_log_get_posix_file's byte swap skips float indexes 10-12 for versions below 4 (its
    // skip test compares them with the int indexes of RENAME_SOURCES, RENAME_TARGETS and
    // RENAMED_FROM), so POSIX_F_META_TIME is the unswapped bytes read natively: ~0, not the ~0.3 s
    // the runtime measured. The shared record's value is darshan-parser's in both stores.
    size_t meta = 0;
    for (const auto& [key, value] : binary) {
      if (key.find(" POSIX -1 ") != std::string::npos && key.ends_with(" POSIX_F_META_TIME")) {
        CHECK((value == "0.0" || value == "-0.0"));
        ++meta;
      }
    }
    CHECK(meta == 1);
  }
}

}  // namespace
}  // namespace xtfq
