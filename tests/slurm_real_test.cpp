// Real Slurm (issue 18): a one-node cluster on 127.0.0.1 (Debian's slurmctld, slurmd and munge,
// and slurm-wlm-hdf5-plugin: `scripts/setup.sh --slurm`), a profiled two-task job that writes
// and reads files, its node-step file merged with sh5util; both forms imported, and every value
// of the store equal to h5dump's of the same files. Skips, saying why, where Slurm is not
// installed, this is not root, or the daemons do not come up; it stops what it started.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/shared_data.h"
#include "tests/slurm_stored.h"
#include "tests/temp_dir.h"
#include "tests/xtfq_cli.h"

namespace xtfq::test {
namespace {

namespace fs = std::filesystem;

// Runs a shell command; its exit status and stdout.
std::pair<int, std::string> Sh(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return {-1, ""};
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = ::pclose(p);
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

// The daemons this test started, stopped when it ends however it ends.
struct Daemons {
  std::vector<std::string> pid_files;
  pid_t munged = 0;
  ~Daemons() {
    for (const std::string& f : pid_files) {
      std::ifstream in(f);
      pid_t pid = 0;
      if (in >> pid && pid > 0) ::kill(pid, SIGTERM);
    }
    if (munged > 0) ::kill(munged, SIGTERM);
  }
};

TEST_CASE("slurm: a real one-node Slurm profiles a two-task job, and both forms import with h5dump's values" *
          doctest::test_suite("long")) {
  for (const char* bin : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/bin/srun",
                          "/usr/bin/sh5util", "/usr/bin/sinfo"}) {
    if (!fs::exists(bin)) {
      Skip(fmt::format("{} is not installed (scripts/setup.sh --slurm installs Debian's Slurm)", bin));
      return;
    }
  }
  if (::geteuid() != 0) {
    Skip("not root: the test runs slurmctld and slurmd as root");
    return;
  }
  if (Sh("h5dump --version > /dev/null 2>&1").first != 0) {
    Skip("h5dump is not installed (hdf5-tools, scripts/setup.sh)");
    return;
  }
  TempDir dir;
  const std::string root = dir.path().string();
  const std::string host = Sh("hostname -s").second.substr(0, Sh("hostname -s").second.find('\n'));
  const int port = 20000 + static_cast<int>(::getpid() % 10000) * 2;
  Daemons daemons;
  // munge: the system's when it runs, else one started here as the munge user.
  if (Sh("pgrep -x munged > /dev/null").first != 0) {
    Sh("mkdir -p /run/munge && chown munge:munge /run/munge");
    if (Sh("runuser -u munge -- /usr/sbin/munged > /dev/null 2>&1").first != 0 ||
        Sh("munge -n | unmunge > /dev/null 2>&1").first != 0) {
      Skip("munged does not start here (no /etc/munge/munge.key or no munge user)");
      return;
    }
    daemons.munged = static_cast<pid_t>(std::stol("0" + Sh("pgrep -x -n munged").second));
  }
  for (const char* d : {"state", "spool", "profile", "work"}) fs::create_directories(dir.File(d));
  const std::string conf = dir.File("slurm.conf");
  {
    std::ofstream out(conf);
    out << fmt::format(
        "ClusterName=xtfqtest\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort={1}\nSlurmdPort={2}\n"
        "SlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\nStateSaveLocation={0}/state\n"
        "SlurmdSpoolDir={0}/spool\nSlurmctldPidFile={0}/slurmctld.pid\nSlurmdPidFile={0}/slurmd.pid\n"
        "SlurmctldLogFile={0}/slurmctld.log\nSlurmdLogFile={0}/slurmd.log\nProctrackType=proctrack/linuxproc\n"
        "TaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/linux\nJobAcctGatherFrequency=task=1\n"
        "AcctGatherProfileType=acct_gather_profile/hdf5\nAccountingStorageType=accounting_storage/none\n"
        "SchedulerType=sched/builtin\nSelectType=select/cons_tres\nMpiDefault=none\nReturnToService=2\n"
        "NodeName={3} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN\n"
        "PartitionName=debug Nodes={3} Default=YES MaxTime=INFINITE State=UP\n",
        root, port, port + 1, host);
    std::ofstream acct(dir.File("acct_gather.conf"));
    acct << fmt::format("ProfileHDF5Dir={}/profile\nProfileHDF5Default=None\n", root);
  }
  const std::string env = "SLURM_CONF='" + conf + "' ";
  daemons.pid_files = {dir.File("slurmctld.pid"), dir.File("slurmd.pid")};
  Sh(env + "slurmctld -f '" + conf + "' > /dev/null 2>&1");
  Sh(env + "slurmd -f '" + conf + "' > /dev/null 2>&1");
  bool idle = false;
  for (int i = 0; i < 60 && !idle; ++i) {
    idle = Sh(env + "sinfo -h -o %T 2>/dev/null").second.starts_with("idle");
    if (!idle) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (!idle) {
    Skip(fmt::format("the one-node cluster did not come up in 60 s (logs in {}: slurmctld.log, slurmd.log)", root));
    return;
  }
  // A profiled job of two tasks, each writing 40 MiB with fsync and reading it back.
  const auto [rc, out] = Sh(env + fmt::format("timeout 120 srun --profile=task --acctg-freq=task=1 -n 2 bash -c "
                                              "'dd if=/dev/zero of={0}/work/x.$SLURM_PROCID bs=1M count=40 "
                                              "conv=fsync 2>/dev/null; cat {0}/work/x.$SLURM_PROCID > /dev/null; "
                                              "sleep 3' 2>&1",
                                              root));
  if (rc != 0) {
    Skip(fmt::format("the cluster came up, but srun cannot run a job here (exit {}): {}", rc, out));
    return;
  }
  std::string node_step;
  for (const auto& e : fs::recursive_directory_iterator(dir.File("profile"))) {
    if (e.path().extension() == ".h5") node_step = e.path().string();
  }
  REQUIRE_MESSAGE(!node_step.empty(), "srun ran, yet no profile file was written");
  const std::string name = fs::path(node_step).filename().string();
  const std::string job = name.substr(0, name.find('_'));
  CHECK(name == fmt::format("{}_0_{}.h5", job, host));
  const std::string merged = dir.File(fmt::format("job_{}.h5", job));
  const auto [mrc, mout] = Sh(env + fmt::format("sh5util -S -j {} -o '{}' 2>&1", job, merged));
  REQUIRE_MESSAGE((mrc == 0 && fs::exists(merged)), mout);  // sh5util exits 0 without output when it finds nothing
  // Both forms into two stores, each value against h5dump.
  REQUIRE(Xtfq(dir, fmt::format("import -q '{}' -o n.xtfq", node_step)).status == 0);
  REQUIRE(Xtfq(dir, fmt::format("import -q '{}' -o m.xtfq", merged)).status == 0);
  const Stored n = Stored::Read(dir.File("n.xtfq")), m = Stored::Read(dir.File("m.xtfq"));
  const auto [nd, nr] = CompareWithH5Dump(n, node_step);
  const auto [md, mr] = CompareWithH5Dump(m, merged);
  CHECK(nd == 2);  // Tasks/0 and Tasks/1
  CHECK(md == 2);
  CHECK(nr == mr);
  CHECK(nr >= 4);
  for (const Series& s : m.series) {
    CHECK(s.job == std::stoll(job));
    CHECK((s.flags & SL::kSerNoStepNodes) != 0);  // sh5util leaves "Number of Nodes" off the last step
  }
  // What the tasks wrote is at most the 2 x 40 MiB dd wrote (Slurm zeroes the first sample's deltas,
  // and the delta of an exited process falls back to its new processes' totals: a lower bound).
  uint64_t written = 0;
  for (const auto& [id, rows] : n.rows) {
    for (const auto& r : rows) written += LoadLe<uint64_t>(r.data() + SL::kTaWriteBytes);
  }
  CHECK(written <= 2 * (40ull << 20) + (1ull << 20));
}

}  // namespace
}  // namespace xtfq::test
