// SlurmHdf5Reader: reads one HDF5 file written by Slurm's acct_gather_profile/hdf5 plugin (a
// node-step file, "/<node>/Tasks/<task>", "/<node>/Network", ...) or merged by sh5util
// ("/Steps/<step>/Nodes/<node>/..."), with the HDF5 C library. Every dataset's compound fields are
// read by name, each converted to a u64, i64 or f64 by its class and sign (so a field added by a
// later Slurm, or one that moved, is read as what it is); the node group's attributes are read by
// name and may be missing. Nothing is interpreted here: SlurmImporter decides what rows mean.
//
// Errors name the file and the object: an unreadable file, a dataset that is not a
// one-dimensional compound of integers and floats of at most 8 bytes, a path outside both
// layouts, duplicate field names.
//
// Thread-safety: the serial HDF5 library is not thread-safe; one reader at a time per process.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "store/result.h"

namespace xtfq {

struct SlurmHdf5Dataset {
  std::string path;  // "/vm/Tasks/0", "/Steps/0/Nodes/n1/Network"
  std::string step;  // a merged file's step group ("0", "batch"); "" in a node-step file
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
  int Column(std::string_view name) const;
  uint64_t Bits(uint64_t row, int column) const { return values[row * fields.size() + static_cast<size_t>(column)]; }
};

struct SlurmHdf5File {
  bool merged = false;
  std::optional<int64_t> steps;  // a merged file's "Number of Steps"
  std::vector<SlurmHdf5Dataset> datasets;
};

class SlurmHdf5Reader {
 public:
  // The HDF5 signature at offset 0 ("\x89HDF\r\n\x1a\n").
  static bool LooksLikeHdf5(std::span<const std::byte> head);
  static Result<SlurmHdf5File> Read(const std::string& path);
};

}  // namespace xtfq
