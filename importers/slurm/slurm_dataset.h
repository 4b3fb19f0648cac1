// SlurmDataset: one series of a Slurm job profile as read, before any interpretation: a
// dataset of an acct_gather_profile/hdf5 file (SlurmHdf5Reader), or the rows an influxdb capture
// holds for one (job, step, task, host) (SlurmInfluxParser). Its fields in the source's order, each
// a u64, i64 or f64, and its rows; the node group's attributes where the source has them.
//
// Thread-safety: value type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xtfq {

struct SlurmDataset {
  int64_t job = 0;   // the job id (from a file's name, or an influx line's job tag)
  std::string path;  // "/vm/Tasks/0", "/Steps/0/Nodes/n1/Network"; influx: "<step>/<host>/<task>"
  std::string step;  // the step ("0", "batch"): a merged file's step group, a node-step file's name, a tag
  std::string node;  // the node group's name
  std::string kind;  // "Tasks", "Network", "Filesystem", "Energy", or the dataset's own name
  std::string task;  // for Tasks/<task>: the task's name; "" otherwise
  struct Field {
    std::string name;
    char type;  // 'u' (unsigned integer), 'i' (signed integer), 'f' (float)
  };
  std::vector<Field> fields;
  uint64_t rows = 0;
  std::vector<uint64_t> values;  // rows x fields, by row; an i64 or f64 as its bits
  // The node group's attributes ("Node Index", "Number of Tasks", "CPUs per Task", "Node Name",
  // "Start Time"), and a merged step's "Number of Nodes"; nullopt (or "") when absent.
  std::optional<int64_t> node_index, ntasks, cpus_per_task, step_nodes;
  std::string node_name, start_time;

  // The column of field `name`, or -1.
  int Column(std::string_view name) const {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }
  uint64_t Bits(uint64_t row, int column) const { return values[row * fields.size() + static_cast<size_t>(column)]; }
};

}  // namespace xtfq
