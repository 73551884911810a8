// Semantic tokens: what each name in a TVMScript region is, and where its value lives.
#include <algorithm>
#include <cctype>
#include <cstring>

#include "compiler/op/registry.h"
#include "runtime/target_kind.h"
#include "server/features.h"
#include "server/features_util.h"

namespace tvms::server {

namespace {

enum Type : uint32_t { Namespace, Function, Variable, Parameter, TypeParameter, TypeName, VDeviceString };
enum Modifier : uint32_t { Declaration, DefaultLibrary, Dataflow, FirstDevice };
// Every kind of the target-kind table has a modifier of its own ("device_" + its name, in table
// order, fixed when the legend is first asked for); any other kind gets "device_other".
const std::vector<std::string>& deviceKinds() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const runtime::TargetKind* k : runtime::targetKinds()) out.push_back(k->name);
    return out;
  }();
  return names;
}

uint32_t deviceBit(const std::string& kind) {
  uint32_t i = 0;
  for (const std::string& k : deviceKinds()) {
    if (kind == k) return 1u << (FirstDevice + i);
    ++i;
  }
  return 1u << (FirstDevice + i);  // device_other
}

uint32_t deviceBitOf(const ir::StructInfoPtr& si) {
  if (!si || !si->vdevice || !si->vdevice->device) return 0;
  return deviceBit(si->vdevice->device->target.kind);
}

// R., I., T. and their members, from the syntax tree (they are not names of the module).
void libraryTokens(const Snapshot& s, const frontend::Region& region, std::vector<SemanticToken>& out) {
  for (auto& part : s.doc->treesIn(region.range)) {
    TSTreeCursor cursor = ts_tree_cursor_new(part.root);
    bool done = false;
    while (!done) {
      TSNode n = ts_tree_cursor_current_node(&cursor);
      bool overlaps = ts_node_start_byte(n) < part.part.end && ts_node_end_byte(n) > part.part.begin;
      if (overlaps && std::strcmp(ts_node_type(n), "attribute") == 0) {
        // The chain's head: R / I / T.
        TSNode head = n;
        while (std::strcmp(ts_node_type(head), "attribute") == 0) head = ts_node_child_by_field_name(head, "object", 6);
        std::string_view h = s.doc->nodeText(head);
        bool ours = std::strcmp(ts_node_type(head), "identifier") == 0 && (h == "R" || h == "I" || h == "T");
        TSNode parent = ts_node_parent(n);
        bool outermost = ts_node_is_null(parent) || std::strcmp(ts_node_type(parent), "attribute") != 0;
        if (ours && outermost) {
          out.push_back({ts_node_start_byte(head), static_cast<uint32_t>(h.size()), Namespace, 1u << DefaultLibrary});
          // Middle parts (R.nn) are namespaces, the last is the member.
          std::vector<TSNode> parts;
          for (TSNode a = n; std::strcmp(ts_node_type(a), "attribute") == 0; a = ts_node_child_by_field_name(a, "object", 6))
            parts.push_back(ts_node_child_by_field_name(a, "attribute", 9));
          for (size_t i = 0; i < parts.size(); ++i) {
            TSNode p = parts[i];
            std::string_view t = s.doc->nodeText(p);
            uint32_t type = i ? Namespace : (std::isupper(static_cast<unsigned char>(t.empty() ? 'a' : t[0])) ? TypeName : Function);
            out.push_back({ts_node_start_byte(p), static_cast<uint32_t>(t.size()), type, 1u << DefaultLibrary});
          }
        }
        if (outermost) {
          // Nothing inside an attribute chain is another token.
          while (!ts_tree_cursor_goto_next_sibling(&cursor))
            if (!ts_tree_cursor_goto_parent(&cursor)) { done = true; break; }
          continue;
        }
      }
      if (overlaps && ts_tree_cursor_goto_first_child(&cursor)) continue;
      while (!ts_tree_cursor_goto_next_sibling(&cursor))
        if (!ts_tree_cursor_goto_parent(&cursor)) { done = true; break; }
    }
    ts_tree_cursor_delete(&cursor);
  }
}

}  // namespace

const std::vector<std::string>& semanticTokenTypes() {
  static const std::vector<std::string> k = {"namespace", "function", "variable", "parameter", "typeParameter", "type", "vdevice"};
  return k;
}

const std::vector<std::string>& semanticTokenModifiers() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> m = {"declaration", "defaultLibrary", "dataflow"};
    for (const std::string& d : deviceKinds()) m.push_back("device_" + d);
    m.push_back("device_other");
    return m;
  }();
  return k;
}

std::vector<SemanticToken> semanticTokens(const Snapshot& s) {
  std::vector<SemanticToken> out;
  for (size_t ri = 0; ri < s.lint.file.regions.size(); ++ri) {
    const frontend::Region& region = s.lint.file.regions[ri];
    if (!region.module) continue;
    std::vector<const ir::Var*> params;
    for (auto& f : region.module->functions)
      if (f.relax)
        for (auto& p : f.relax->params) params.push_back(p.get());
    for (auto& n : region.map.names) {
      uint32_t mods = n.isDefinition ? 1u << Declaration : 0;
      std::string_view t = s.doc->slice(n.range);
      size_t at = t.find(n.name);
      uint32_t begin = n.range.begin + static_cast<uint32_t>(at == std::string_view::npos ? 0 : at);
      uint32_t length = static_cast<uint32_t>(at == std::string_view::npos ? t.size() : n.name.size());
      switch (n.kind) {
        case frontend::NameRef::Kind::Var: {
          auto* var = static_cast<const ir::Var*>(n.target);
          if (!var) continue;
          if (var->isDataflow) mods |= 1u << Dataflow;
          if (const analysis::VarFact* fact = factOf(s, ri, var)) mods |= deviceBitOf(fact->sinfo);
          bool param = std::find(params.begin(), params.end(), var) != params.end();
          out.push_back({begin, length, param ? Parameter : Variable, mods});
          break;
        }
        case frontend::NameRef::Kind::Function: out.push_back({begin, length, Function, mods}); break;
        case frontend::NameRef::Kind::SymbolicVar: out.push_back({begin, length, TypeParameter, mods}); break;
        case frontend::NameRef::Kind::TirBuffer:
        case frontend::NameRef::Kind::TirVar: out.push_back({begin, length, Variable, mods}); break;
        case frontend::NameRef::Kind::VDevice: {
          auto* v = static_cast<const ir::VDevice*>(n.target);
          if (!v) continue;
          mods |= deviceBit(v->target.kind);
          if (n.isDefinition) {
            // The declaration's kind string.
            size_t k = t.find("\"" + v->target.kind + "\"");
            if (k == std::string_view::npos) continue;
            out.push_back({n.range.begin + static_cast<uint32_t>(k), static_cast<uint32_t>(v->target.kind.size() + 2), VDeviceString, mods});
          } else {
            out.push_back({n.range.begin, static_cast<uint32_t>(t.size()), VDeviceString, mods});
          }
          break;
        }
      }
    }
    libraryTokens(s, region, out);
  }
  // Sorted, and never overlapping (LSP requires it): the first of two overlapping tokens wins.
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.offset < b.offset; });
  std::vector<SemanticToken> clean;
  for (auto& t : out) {
    if (t.length == 0 || s.doc->slice({t.offset, t.offset + t.length}).find('\n') != std::string_view::npos) continue;
    if (!clean.empty() && clean.back().offset + clean.back().length > t.offset) continue;
    clean.push_back(t);
  }
  return clean;
}

}  // namespace tvms::server
