#include "importers/slurm/slurm_hdf5_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "importers/slurm/hdf5_handle.h"

namespace xtfq {

namespace {

using Handle = Hdf5Handle;

Error Bad(const std::string& file, std::string_view object, std::string_view what) {
  return Hdf5Handle::Failed(ErrorCode::kCorrupt, file, object, what);
}

std::vector<std::string> Split(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    const size_t j = std::min(path.find('/', i), path.size());
    if (j > i) out.emplace_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// An integer attribute `name` of object `obj`, or nullopt when it has none.
Result<std::optional<int64_t>> IntAttribute(hid_t obj, const char* name, const std::string& file,
                                            std::string_view where) {
  const htri_t has = H5Aexists(obj, name);
  if (has < 0) return Bad(file, where, fmt::format("cannot look up attribute '{}'", name));
  if (has == 0) return std::optional<int64_t>{};
  Handle a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  Handle space(a.ok() ? H5Aget_space(a.get()) : -1, H5Sclose);
  Handle type(a.ok() ? H5Aget_type(a.get()) : -1, H5Tclose);
  if (!space.ok() || !type.ok()) return Bad(file, where, fmt::format("cannot open attribute '{}'", name));
  if (H5Tget_class(type.get()) != H5T_INTEGER || H5Sget_simple_extent_npoints(space.get()) != 1) {
    return Bad(file, where, fmt::format("attribute '{}' is not one integer", name));
  }
  int64_t v = 0;
  if (H5Aread(a.get(), H5T_NATIVE_INT64, &v) < 0)
    return Bad(file, where, fmt::format("cannot read attribute '{}'", name));
  return std::optional<int64_t>(v);
}

// A fixed-length string attribute `name`, NULs dropped; "" when absent.
Result<std::string> StringAttribute(hid_t obj, const char* name, const std::string& file, std::string_view where) {
  const htri_t has = H5Aexists(obj, name);
  if (has < 0) return Bad(file, where, fmt::format("cannot look up attribute '{}'", name));
  if (has == 0) return std::string();
  Handle a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  Handle type(a.ok() ? H5Aget_type(a.get()) : -1, H5Tclose);
  Handle space(a.ok() ? H5Aget_space(a.get()) : -1, H5Sclose);
  if (!type.ok() || !space.ok()) return Bad(file, where, fmt::format("cannot open attribute '{}'", name));
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) > 0 ||
      H5Sget_simple_extent_npoints(space.get()) != 1) {
    return Bad(file, where, fmt::format("attribute '{}' is not one fixed-length string", name));
  }
  const size_t n = H5Tget_size(type.get());
  if (n == 0 || n > 65536) return Bad(file, where, fmt::format("attribute '{}' of {} bytes", name, n));
  std::string s(n, '\0');
  if (H5Aread(a.get(), type.get(), s.data()) < 0)
    return Bad(file, where, fmt::format("cannot read attribute '{}'", name));
  s.resize(std::strlen(s.c_str()));
  return s;
}

// Reads dataset `path` into `d`: its compound fields by name, each as u64, i64 or f64.
Status ReadDataset(hid_t file_id, const std::string& file, const std::string& path, SlurmDataset& d) {
  Handle ds(H5Dopen2(file_id, path.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) return Bad(file, path, "cannot open the dataset");
  Handle space(H5Dget_space(ds.get()), H5Sclose);
  Handle type(H5Dget_type(ds.get()), H5Tclose);
  if (!space.ok() || !type.ok()) return Bad(file, path, "cannot read the dataset's type or shape");
  if (H5Sget_simple_extent_ndims(space.get()) != 1) {
    return Bad(file, path, fmt::format("{} dimensions, not one", H5Sget_simple_extent_ndims(space.get())));
  }
  hsize_t dims[1] = {0};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  if (dims[0] > (uint64_t{1} << 32)) return Bad(file, path, fmt::format("{} rows", dims[0]));
  if (H5Tget_class(type.get()) != H5T_COMPOUND) return Bad(file, path, "not a compound dataset");
  const int n = H5Tget_nmembers(type.get());
  if (n <= 0 || n > 1024) return Bad(file, path, fmt::format("{} fields", n));
  Handle mem(H5Tcreate(H5T_COMPOUND, size_t{8} * static_cast<size_t>(n)), H5Tclose);
  if (!mem.ok()) return Bad(file, path, "cannot make the memory type");
  std::set<std::string> names;
  for (int i = 0; i < n; ++i) {
    char* raw = H5Tget_member_name(type.get(), static_cast<unsigned>(i));
    if (raw == nullptr) return Bad(file, path, fmt::format("field {} has no name", i));
    std::string name(raw);
    H5free_memory(raw);
    Handle mt(H5Tget_member_type(type.get(), static_cast<unsigned>(i)), H5Tclose);
    if (!mt.ok()) return Bad(file, path, fmt::format("field '{}': no type", name));
    const H5T_class_t cls = H5Tget_class(mt.get());
    const size_t size = H5Tget_size(mt.get());
    char t = 0;
    hid_t native = -1;
    if (cls == H5T_INTEGER && size <= 8) {
      const bool is_signed = H5Tget_sign(mt.get()) == H5T_SGN_2;
      t = is_signed ? 'i' : 'u';
      native = is_signed ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64;
    } else if (cls == H5T_FLOAT && size <= 8) {
      t = 'f';
      native = H5T_NATIVE_DOUBLE;
    } else {
      return Bad(file, path,
                 fmt::format("field '{}' is of class {} and {} bytes, not an integer or float of at most 8", name,
                             static_cast<int>(cls), size));
    }
    if (!names.insert(name).second) return Bad(file, path, fmt::format("field '{}' appears twice", name));
    if (H5Tinsert(mem.get(), name.c_str(), size_t{8} * static_cast<size_t>(i), native) < 0)
      return Bad(file, path, fmt::format("field '{}': cannot map it", name));
    d.fields.push_back({std::move(name), t});
  }
  d.rows = dims[0];
  d.values.assign(d.rows * d.fields.size(), 0);
  if (d.rows > 0 && H5Dread(ds.get(), mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, d.values.data()) < 0)
    return Bad(file, path, "cannot read its rows");
  return Ok();
}

}  // namespace

bool SlurmHdf5Reader::LooksLikeHdf5(std::span<const std::byte> head) {
  static constexpr unsigned char kSig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  return head.size() >= 8 && std::memcmp(head.data(), kSig, 8) == 0;
}

Result<SlurmHdf5File> SlurmHdf5Reader::Read(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become values, not prints
  Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) return Bad(path, "/", "not a readable HDF5 file");
  // Every link below the root, then the datasets among them.
  std::vector<std::string> links;
  auto visit = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->push_back(std::string("/") + name);
    return 0;
  };
  if (H5Lvisit(f.get(), H5_INDEX_NAME, H5_ITER_INC, visit, &links) < 0) return Bad(path, "/", "cannot list objects");
  SlurmHdf5File out;
  const htri_t steps = H5Lexists(f.get(), "/Steps", H5P_DEFAULT);
  out.merged = steps > 0;
  if (out.merged) {
    XTFQ_ASSIGN_OR_RETURN(out.steps, IntAttribute(f.get(), "Number of Steps", path, "/"));
  }
  for (const std::string& link : links) {
    Handle obj(H5Oopen(f.get(), link.c_str(), H5P_DEFAULT), H5Oclose);
    if (!obj.ok()) return Bad(path, link, "cannot open");
    if (H5Iget_type(obj.get()) != H5I_DATASET) continue;
    SlurmDataset d;
    d.path = link;
    const std::vector<std::string> parts = Split(link);
    // Node-step: /<node>/<kind>[/<task>]; merged: /Steps/<step>/Nodes/<node>/<kind>[/<task>].
    size_t at = 0;
    std::string node_group, step_group;
    if (out.merged) {
      if (parts.size() < 5 || parts[0] != "Steps" || parts[2] != "Nodes")
        return Bad(path, link, "a dataset outside /Steps/<step>/Nodes/<node> in a merged file");
      d.step = parts[1];
      step_group = "/Steps/" + parts[1];
      at = 3;
    } else if (parts.size() < 2) {
      return Bad(path, link, "a dataset outside a node group");
    }
    d.node = parts[at];
    node_group = (out.merged ? step_group + "/Nodes/" : std::string("/")) + d.node;
    d.kind = parts[at + 1];
    if (parts.size() == at + 3) {
      d.task = parts[at + 2];
    } else if (parts.size() != at + 2) {
      return Bad(path, link, "a dataset nested deeper than <node>/<kind>/<task>");
    }
    Handle group(H5Gopen2(f.get(), node_group.c_str(), H5P_DEFAULT), H5Gclose);
    if (!group.ok()) return Bad(path, node_group, "cannot open the node group");
    XTFQ_ASSIGN_OR_RETURN(d.node_index, IntAttribute(group.get(), "Node Index", path, node_group));
    XTFQ_ASSIGN_OR_RETURN(d.ntasks, IntAttribute(group.get(), "Number of Tasks", path, node_group));
    XTFQ_ASSIGN_OR_RETURN(d.cpus_per_task, IntAttribute(group.get(), "CPUs per Task", path, node_group));
    XTFQ_ASSIGN_OR_RETURN(d.node_name, StringAttribute(group.get(), "Node Name", path, node_group));
    XTFQ_ASSIGN_OR_RETURN(d.start_time, StringAttribute(group.get(), "Start Time", path, node_group));
    if (out.merged) {
      Handle sg(H5Gopen2(f.get(), step_group.c_str(), H5P_DEFAULT), H5Gclose);
      if (!sg.ok()) return Bad(path, step_group, "cannot open the step group");
      XTFQ_ASSIGN_OR_RETURN(d.step_nodes, IntAttribute(sg.get(), "Number of Nodes", path, step_group));
    }
    XTFQ_TRY(ReadDataset(f.get(), path, link, d));
    out.datasets.push_back(std::move(d));
  }
  return out;
}

}  // namespace xtfq
