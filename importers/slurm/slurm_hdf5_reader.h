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

#include "importers/slurm/slurm_dataset.h"
#include "store/result.h"

namespace xtfq {

struct SlurmHdf5File {
  bool merged = false;
  std::optional<int64_t> steps;        // a merged file's "Number of Steps"
  std::vector<SlurmDataset> datasets;  // job unset: the importer knows it from the file's name
};

class SlurmHdf5Reader {
 public:
  // The HDF5 signature at offset 0 ("\x89HDF\r\n\x1a\n").
  static bool LooksLikeHdf5(std::span<const std::byte> head);
  static Result<SlurmHdf5File> Read(const std::string& path);
};

}  // namespace xtfq
