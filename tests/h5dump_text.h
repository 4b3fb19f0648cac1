// H5DumpText: the tests' reference for HDF5 files: the text `h5dump -m %.17g FILE` prints
// (hdf5-tools, installed by scripts/setup.sh), parsed without the HDF5 library. Groups, datasets
// and attributes by path; a compound dataset's field names and rows as the text printed them
// (integers in decimal, doubles with 17 significant digits, so strtod gives back the exact value).
//
// Thread-safety: value types; Dump runs a process.
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace xtfq::test {

struct H5DumpDataset {
  std::string path;                            // "/vm/Tasks/0"
  std::vector<std::string> fields;             // the compound's member names, in order
  std::vector<std::vector<std::string>> rows;  // each row's values, as printed
};

struct H5DumpText {
  std::vector<H5DumpDataset> datasets;
  // Attribute values by object path and attribute name ("/vm" -> "Node Name" -> "vm"; strings
  // without their quotes).
  std::map<std::string, std::map<std::string, std::string>> attributes;
  bool ok = false;  // the text ended with its file block closed

  static H5DumpText Parse(std::string_view text) {
    H5DumpText out;
    struct Block {
      std::string kind, name;  // kind: GROUP, DATASET, ATTRIBUTE, DATATYPE, DATA, ROW, FILE, OTHER
    };
    std::vector<Block> stack;
    auto path_of = [&](size_t upto) {
      std::string p;
      for (size_t i = 0; i < upto; ++i) {
        const Block& b = stack[i];
        if (b.kind != "GROUP" && b.kind != "DATASET") continue;
        if (b.name == "/") continue;
        p += "/" + b.name;
      }
      return p.empty() ? std::string("/") : p;
    };
    auto quoted = [](std::string_view s) {
      const size_t a = s.find('"'), b = s.rfind('"');
      return a == std::string_view::npos || b <= a ? std::string() : std::string(s.substr(a + 1, b - a - 1));
    };
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(pos, end - pos);
      pos = end + 1;
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
      if (line.empty()) continue;
      if (line == "}" || line == "},") {
        if (!stack.empty()) stack.pop_back();
        if (stack.empty()) out.ok = true;
        continue;
      }
      const bool opens = line.back() == '{';
      const Block* top = stack.empty() ? nullptr : &stack.back();
      if (opens) {
        Block b;
        if (line.starts_with("HDF5 ")) {
          b.kind = "FILE";
        } else if (line.starts_with("GROUP ")) {
          b.kind = "GROUP", b.name = quoted(line);
        } else if (line.starts_with("DATASET ")) {
          b.kind = "DATASET", b.name = quoted(line);
          out.datasets.push_back(H5DumpDataset{
              path_of(stack.size()) == "/" ? "/" + b.name : path_of(stack.size()) + "/" + b.name, {}, {}});
        } else if (line.starts_with("ATTRIBUTE ")) {
          b.kind = "ATTRIBUTE", b.name = quoted(line);
        } else if (line.starts_with("DATATYPE")) {
          b.kind = "DATATYPE";
        } else if (line.starts_with("DATA ")) {
          b.kind = "DATA";
        } else if (line.front() == '(' && top != nullptr && top->kind == "DATA") {
          b.kind = "ROW";
          if (!out.datasets.empty()) out.datasets.back().rows.emplace_back();
        } else {
          b.kind = "OTHER";
        }
        stack.push_back(std::move(b));
        continue;
      }
      if (top == nullptr) continue;
      if (top->kind == "DATATYPE" && stack.size() >= 2 && stack[stack.size() - 2].kind == "DATASET" &&
          line.back() == ';') {
        out.datasets.back().fields.push_back(quoted(line));
      } else if (top->kind == "ROW") {
        std::string v(line);
        if (!v.empty() && v.back() == ',') v.pop_back();
        out.datasets.back().rows.back().push_back(v);
      } else if (top->kind == "DATA" && stack.size() >= 2 && stack[stack.size() - 2].kind == "ATTRIBUTE" &&
                 line.front() == '(') {
        const std::string_view value = line.substr(line.find(':') + 1);
        std::string v(value);
        while (!v.empty() && v.front() == ' ') v.erase(v.begin());
        if (!v.empty() && v.front() == '"') v = quoted(v);
        out.attributes[path_of(stack.size() - 2)][stack[stack.size() - 2].name] = v;
      }
    }
    return out;
  }

  // Runs `h5dump -m %.17g PATH` and parses its output; ok is false when h5dump failed.
  static H5DumpText Dump(const std::string& path) {
    std::string text;
    const std::string cmd = "h5dump -m %.17g '" + path + "' 2>/dev/null";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (p == nullptr) return {};
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
    if (::pclose(p) != 0) return {};
    return Parse(text);
  }
};

}  // namespace xtfq::test
