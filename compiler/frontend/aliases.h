#pragma once
// What the names a file imports mean: `from tvm.script import relax as R` makes `R.add` the relax op
// add; `import tvm` makes `tvm.script.ir_module` the module decorator. Names resolve to a canonical
// spelling: "I.ir_module", "R.nn.conv2d", "T.prim_func", "tvm.cpu".
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/frontend/cst.h"

namespace tvms::frontend {

class Aliases {
 public:
  // Reads an import statement node (import_statement / import_from_statement / future_import_statement).
  void addImport(const syntax::Document& doc, TSNode stmt);
  // Canonical spelling of a dotted name, or "" when it is not a TVMScript / tvm name. A bare R./I./T.
  // without an import resolves conventionally and is remembered in implicitUses().
  std::string canonical(const std::string& dotted) const;
  bool hasFutureAnnotations() const { return futureAnnotations_; }
  ByteRange futureAnnotationsRange() const { return futureRange_; }
  bool importsTvm() const {
    for (auto& [k, v] : map_) if (!v.empty()) return true;
    return false;
  }
  bool binds(const std::string& name) const { return map_.count(name) != 0; }
  // Changes whenever an import changes what canonical() answers (for callers that keep its answers).
  uint64_t version() const { return version_; }
  // Namespaces used without an import, with the first use's range (reported once, TVS010).
  const std::map<std::string, ByteRange>& implicitUses() const { return implicit_; }
  void noteUse(const std::string& head, ByteRange where) const;
  // Names the file's Python binds outside TVMScript (assignments, parameters and loop targets of the
  // enclosing functions, imports): TVMScript may use them, and TVM evaluates them (issue 16's
  // evaluator will follow their values; until then a use of one is "not checked", never an error).
  void addPythonName(std::string name) { pythonNames_.insert(std::move(name)); }
  bool isPythonName(const std::string& name) const { return pythonNames_.count(name) != 0; }
  void addPythonNames(const Aliases& other) { pythonNames_.insert(other.pythonNames_.begin(), other.pythonNames_.end()); }

 private:
  std::map<std::string, std::string> map_;  // local name -> canonical prefix
  uint64_t version_ = 0;
  bool futureAnnotations_ = false;
  ByteRange futureRange_;
  mutable std::map<std::string, ByteRange> implicit_;
  std::set<std::string> pythonNames_;
};

// Rewrites tvm.script.* long spellings to the short namespaces.
std::string normalizeTvmPath(std::string path);

}  // namespace tvms::frontend
