// signatureHelp: the registry's signature of the op call around the cursor.
#include <cstring>

#include "compiler/op/registry.h"
#include "server/features.h"
#include "server/features_util.h"

namespace tvms::server {

std::optional<SignatureHelp> signatureAt(const Snapshot& s, uint32_t offset) {
  size_t ri = 0;
  if (!regionAt(s, offset, &ri)) return std::nullopt;
  for (TSNode n = namedNodeAt(s, offset); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (std::strcmp(ts_node_type(n), "call") != 0) continue;
    TSNode args = ts_node_child_by_field_name(n, "arguments", 9);
    if (ts_node_is_null(args) || offset <= ts_node_start_byte(args)) continue;  // on the callee, not inside ( )
    if (offset >= ts_node_end_byte(args) && ts_node_end_byte(args) > ts_node_start_byte(args) &&
        s.doc->text()[ts_node_end_byte(args) - 1] == ')')
      continue;  // after the closing parenthesis
    std::string callee(s.doc->nodeText(ts_node_child_by_field_name(n, "function", 8)));
    const op::OpDef* def = op::findOp(callee);
    if (!def) return std::nullopt;
    SignatureHelp h;
    if (!def->modelled) return std::nullopt;  // its parameters are not declared
    h.label = def->scriptName() + "(";
    for (size_t i = 0; i < def->params.size(); ++i) {
      const op::Param& p = def->params[i];
      if (i) h.label += ", ";
      std::string text = p.text();
      h.parameters.push_back({static_cast<uint32_t>(h.label.size()), static_cast<uint32_t>(h.label.size() + text.size())});
      h.label += text;
    }
    h.label += ")";
    h.documentation = def->doc;
    // Commas before the cursor at the argument list's own level count positional arguments; a keyword
    // argument under the cursor names its parameter.
    int commas = 0;
    for (uint32_t i = 0; i < ts_node_child_count(args); ++i) {
      TSNode c = ts_node_child(args, i);
      if (ts_node_start_byte(c) >= offset) break;
      if (std::strcmp(ts_node_type(c), ",") == 0) ++commas;
      if (std::strcmp(ts_node_type(c), "keyword_argument") == 0 && ts_node_end_byte(c) >= offset) {
        std::string key(s.doc->nodeText(ts_node_child_by_field_name(c, "name", 4)));
        for (size_t k = 0; k < def->params.size(); ++k)
          if (def->params[k].name == key) return (h.active = static_cast<int>(k), h);
      }
    }
    h.active = def->params.empty() ? 0 : std::min(commas, static_cast<int>(def->params.size()) - 1);
    return h;
  }
  return std::nullopt;
}

}  // namespace tvms::server
