#include "server/features_util.h"

#include "compiler/ir/printer.h"

namespace tvms::server {

const frontend::Region* regionAt(const Snapshot& s, uint32_t offset, size_t* index) {
  for (size_t i = 0; i < s.lint.file.regions.size(); ++i) {
    auto& r = s.lint.file.regions[i];
    if (r.range.begin <= offset && offset <= r.range.end) {
      *index = i;
      return &r;
    }
  }
  return nullptr;
}

TSNode namedNodeAt(const Snapshot& s, uint32_t offset) {
  for (auto& part : s.doc->treesIn({offset, offset + 1}))
    if (part.part.begin <= offset && offset < std::max(part.part.end, part.part.begin + 1))
      return ts_node_named_descendant_for_byte_range(part.root, offset, offset);
  return ts_node_named_descendant_for_byte_range(s.doc->root(), offset, offset);
}

const analysis::VarFact* factOf(const Snapshot& s, size_t ri, const ir::Var* var) {
  if (ri >= s.lint.analyses.size()) return nullptr;
  for (auto& fa : s.lint.analyses[ri].functions) {
    if (!fa) continue;
    auto it = fa->vars.find(var);
    if (it != fa->vars.end()) return &it->second;
  }
  return nullptr;
}

std::string describeVDevice(const ir::IRModule& m, const ir::VDevice& v) {
  int index = m.indexOf(&v);
  std::string target = v.target.writtenAsDict() ? ir::printValue(v.target.config, m) : "\"" + v.target.kind + "\"";
  return "`I.vdevice(" + target + ", " + std::to_string(v.vdeviceId) + ", \"" + v.memoryScope + "\")`: list entry " +
         std::to_string(index) + " (\"" + analysis::spellingOf(m, &v) + "\", physical device " + v.target.kind + " " +
         std::to_string(v.vdeviceId) + ")";
}

}  // namespace tvms::server
