// Hover and quick fixes.
#include "server/features.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "compiler/diagnostics/catalogue.h"
#include "compiler/ir/printer.h"
#include "compiler/op/registry.h"
#include "runtime/target_kind.h"
#include "server/features_util.h"

namespace tvms::server {


std::optional<HoverText> hoverAt(const Snapshot& s, uint32_t offset) {
  size_t ri = 0;
  const frontend::Region* region = regionAt(s, offset, &ri);
  if (!region || !region->module) return std::nullopt;
  const ir::IRModule& m = *region->module;
  const std::string& text = s.doc->text();
  // `# noqa: TVSxxx`: the rule's explanation.
  size_t lineStart = text.rfind('\n', offset ? offset - 1 : 0);
  lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
  size_t hash = text.find("noqa", lineStart);
  size_t lineEnd = text.find('\n', offset);
  if (hash != std::string::npos && hash < offset && (lineEnd == std::string::npos || hash < lineEnd)) {
    size_t b = offset;
    while (b > 0 && std::isalnum(static_cast<unsigned char>(text[b - 1]))) --b;
    size_t e = offset;
    while (e < text.size() && std::isalnum(static_cast<unsigned char>(text[e]))) ++e;
    if (const diag::Rule* rule = diag::findRule(text.substr(b, e - b)))
      return HoverText{"**" + std::string(rule->code) + "** " + std::string(rule->title) + "\n\n" + std::string(rule->explanation),
                       {static_cast<uint32_t>(b), static_cast<uint32_t>(e)}};
  }
  for (auto& n : region->map.names) {
    if (!(n.range.begin <= offset && offset < n.range.end)) continue;
    if (n.kind == frontend::NameRef::Kind::Var) {
      if (const analysis::VarFact* fact = factOf(s, ri, static_cast<const ir::Var*>(n.target))) {
        std::string body = "```python\n" + n.name + ": " +
                           (fact->sinfo ? ir::printStructInfo(fact->sinfo, m) : std::string("(unknown struct info)")) + "\n```";
        if (auto* v = fact->sinfo && fact->sinfo->vdevice ? fact->sinfo->vdevice->device.get() : nullptr)
          if (m.indexOf(v) >= 0) body += "\n\non " + describeVDevice(m, *v);
        return HoverText{body, n.range};
      }
    }
    if (n.kind == frontend::NameRef::Kind::VDevice && n.target)
      return HoverText{"\"" + n.name + "\" is " + describeVDevice(m, *static_cast<const ir::VDevice*>(n.target)), n.range};
    if ((n.kind == frontend::NameRef::Kind::TirBuffer || n.kind == frontend::NameRef::Kind::TirVar) && n.target)
      return HoverText{"```python\n" + static_cast<const ir::TirSymbol*>(n.target)->detail + "\n```", n.range};
  }
  // An op: R.<dotted name> under the cursor.
  size_t b = offset, e = offset;
  auto word = [&](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  while (b > 0 && word(text[b - 1])) --b;
  while (e < text.size() && word(text[e])) ++e;
  std::string dotted = text.substr(b, e - b);
  if (dotted.rfind("R.", 0) == 0)
    if (const op::OpDef* def = op::findOp("relax." + dotted.substr(2)))
      return HoverText{"```python\n" + def->signature() + "\n```\n\n" + def->doc, {static_cast<uint32_t>(b), static_cast<uint32_t>(e)}};
  return std::nullopt;
}

std::vector<QuickFix> quickFixes(const Snapshot& s, syntax::ByteRange range) {
  std::vector<QuickFix> out;
  const std::string& text = s.doc->text();
  for (auto& d : s.lint.diagnostics) {
    if (d.range.end < range.begin || d.range.begin > range.end) continue;
    for (size_t i = 0; i < d.fixes.size(); ++i) out.push_back({d.fixes[i].title, &d, d.fixes[i].edits, i == 0 && d.fixes[i].safe});
    uint32_t lineEnd = static_cast<uint32_t>(std::min(text.find('\n', d.range.begin), text.size()));
    std::string code(diag::codeName(d.code));
    out.push_back({"Add `# noqa: " + code + "`", &d, {{{lineEnd, lineEnd}, "  # noqa: " + code}}, false});
  }
  return out;
}

}  // namespace tvms::server

namespace tvms::server {

std::optional<NameTarget> nameAt(const Snapshot& s, uint32_t offset) {
  for (auto& region : s.lint.file.regions)
    for (auto& n : region.map.names) {
      if (!(n.range.begin <= offset && offset <= n.range.end) || !n.target) continue;
      NameTarget t;
      t.at = &n;
      for (auto& m : region.map.names)
        if (m.target == n.target && m.kind == n.kind && m.isDefinition) t.all.push_back(&m);
      for (auto& m : region.map.names)
        if (m.target == n.target && m.kind == n.kind && !m.isDefinition) t.all.push_back(&m);
      return t;
    }
  return std::nullopt;
}

std::vector<Symbol> documentSymbols(const Snapshot& s) {
  std::vector<Symbol> out;
  for (size_t ri = 0; ri < s.lint.file.regions.size(); ++ri) {
    auto& region = s.lint.file.regions[ri];
    if (!region.module) continue;
    Symbol mod{region.module->name, region.module->standalone ? "standalone" : "@I.ir_module", Symbol::Kind::Module,
               region.range, region.range, {}};
    for (auto& f : region.module->functions) {
      const void* key = f.relax ? static_cast<const void*>(f.relax.get()) : static_cast<const void*>(f.tir.get());
      const syntax::ByteRange* r = region.map.find(key);
      if (!r) continue;
      Symbol fn{f.name, f.relax ? "@R.function" : "@T.prim_func", Symbol::Kind::Function, *r, *r, {}};
      for (auto& n : region.map.names)
        if (n.kind == frontend::NameRef::Kind::Function && n.isDefinition && n.name == f.name && r->begin <= n.range.begin &&
            n.range.end <= r->end)
          fn.selection = n.range;
      for (auto& n : region.map.names)
        if (n.kind == frontend::NameRef::Kind::Var && n.isDefinition && r->begin <= n.range.begin && n.range.end <= r->end)
          fn.children.push_back({n.name, "", Symbol::Kind::Variable, n.range, n.range, {}});
      mod.children.push_back(std::move(fn));
    }
    out.push_back(std::move(mod));
  }
  return out;
}

std::vector<RunLens> runLenses(const Snapshot& s) {
  std::vector<RunLens> out;
  for (auto& region : s.lint.file.regions) {
    if (!region.module) continue;
    for (auto& f : region.module->functions) {
      if (!f.relax) continue;
      if (const syntax::ByteRange* r = region.map.find(f.relax.get())) out.push_back({f.name, {r->begin, r->begin}});
    }
  }
  return out;
}

std::vector<InlayHint> inlayHints(const Snapshot& s, syntax::ByteRange range) {
  std::vector<InlayHint> out;
  for (size_t ri = 0; ri < s.lint.file.regions.size(); ++ri) {
    auto& region = s.lint.file.regions[ri];
    if (!region.module || ri >= s.lint.analyses.size()) continue;
    for (auto& fa : s.lint.analyses[ri].functions) {
      if (!fa) continue;
      for (auto& n : region.map.names) {
        if (n.kind != frontend::NameRef::Kind::Var || !n.isDefinition || n.range.end < range.begin || n.range.begin > range.end) continue;
        auto* var = static_cast<const ir::Var*>(n.target);
        if (!var || var->annotation) continue;  // written annotations need no hint
        auto it = fa->vars.find(var);
        if (it == fa->vars.end() || !it->second.sinfo) continue;
        out.push_back({n.range.end, ": " + ir::printStructInfo(it->second.sinfo, *region.module)});
      }
    }
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.offset < b.offset; });
  return out;
}

}  // namespace tvms::server

namespace tvms::server {

std::vector<Completion> completionsAt(const Snapshot& s, uint32_t offset) {
  std::vector<Completion> out;
  size_t ri = 0;
  const frontend::Region* region = regionAt(s, offset, &ri);
  if (!region || !region->module) return out;
  const std::string& text = s.doc->text();
  size_t b = offset;
  auto word = [&](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  while (b > 0 && word(text[b - 1])) --b;
  std::string typed = text.substr(b, offset - b);
  // Inside a string: vdevice spellings and dtypes.
  size_t lineStart = text.rfind('\n', offset ? offset - 1 : 0);
  lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
  size_t quotes = std::count(text.begin() + lineStart, text.begin() + offset, '"');
  if (quotes % 2 == 1) {
    const ir::IRModule& m = *region->module;
    for (auto& v : m.vdevices)
      out.push_back({analysis::spellingOf(m, v.get()), describeVDevice(m, *v), "", Completion::Kind::Value});
    for (const char* dt : {"float32", "float16", "bfloat16", "float64", "int32", "int64", "int8", "uint8", "bool"})
      out.push_back({dt, "dtype", "", Completion::Kind::Value});
    return out;
  }
  auto dot = typed.rfind('.');
  if (dot != std::string::npos) {
    std::string ns = typed.substr(0, dot);
    if (ns == "R" || ns.rfind("R.", 0) == 0) {
      std::string prefix = "relax." + (ns == "R" ? std::string() : ns.substr(2) + ".");
      for (const op::OpDef* d : op::allOps()) {
        if (d->name.rfind(prefix, 0) != 0) continue;
        std::string rest = d->name.substr(prefix.size());
        if (rest.find('.') != std::string::npos) continue;
        out.push_back({rest, d->signature(), d->doc, Completion::Kind::Function});
      }
      if (ns == "R")
        for (const char* k : {"function", "Tensor", "Tuple", "Shape", "Prim", "Object", "Callable", "dataflow", "output",
                              "const", "shape", "prim_value", "str", "dtype", "match_cast", "func_attr", "device"})
          out.push_back({k, "R." + std::string(k), "", Completion::Kind::Keyword});
      // R.cpu(0), R.cuda(1): the device constructors of the kinds tvms runs.
      if (ns == "R")
        for (const runtime::TargetKind* kind : runtime::targetKinds())
          if (kind->openDevice && !kind->deviceFunction.empty())
            out.push_back({kind->deviceFunction, "R." + kind->deviceFunction, "", Completion::Kind::Keyword});
    } else if (ns == "I") {
      for (const char* k : {"ir_module", "module_global_infos", "module_attrs", "vdevice"})
        out.push_back({k, "I." + std::string(k), "", Completion::Kind::Keyword});
    } else if (ns == "T") {
      for (const char* k : {"prim_func", "Buffer", "handle", "int64", "int32", "float32", "match_buffer", "func_attr", "grid",
                            "serial", "parallel", "vectorized", "block", "sblock", "axis", "reads", "writes", "init"})
        out.push_back({k, "T." + std::string(k), "", Completion::Kind::Keyword});
    }
    return out;
  }
  // Variables defined before the cursor in the same function.
  const ir::IRModule& m = *region->module;
  for (auto& f : m.functions) {
    if (!f.relax) continue;
    const syntax::ByteRange* r = region->map.find(f.relax.get());
    if (!r || !(r->begin <= offset && offset <= r->end)) continue;
    std::set<std::string> seen;
    for (auto& n : region->map.names)
      if (n.kind == frontend::NameRef::Kind::Var && n.isDefinition && n.range.end <= offset && r->begin <= n.range.begin &&
          seen.insert(n.name).second && n.name.rfind(typed, 0) == 0)
        out.push_back({n.name, "", "", Completion::Kind::Variable});
  }
  return out;
}

}  // namespace tvms::server

namespace tvms::server {

std::vector<syntax::ByteRange> foldingRanges(const Snapshot& s) {
  std::vector<syntax::ByteRange> out;
  for (auto& region : s.lint.file.regions) {
    out.push_back(region.range);
    if (!region.module) continue;
    for (auto& f : region.module->functions) {
      const void* key = f.relax ? static_cast<const void*>(f.relax.get()) : static_cast<const void*>(f.tir.get());
      if (const syntax::ByteRange* r = region.map.find(key)) out.push_back(*r);
      if (!f.relax || !f.relax->body) continue;
      // A dataflow block spans its first to its last binding.
      for (auto& block : f.relax->body->blocks) {
        if (!block->dataflow || block->bindings.empty()) continue;
        const syntax::ByteRange* a = region.map.find(block->bindings.front().get());
        const syntax::ByteRange* b = region.map.find(block->bindings.back().get());
        if (a && b) out.push_back({a->begin, b->end});
      }
    }
  }
  return out;
}

}  // namespace tvms::server

namespace tvms::server {

std::vector<syntax::ByteRange> selectionChain(const Snapshot& s, uint32_t offset) {
  std::vector<syntax::ByteRange> out;
  size_t ri = 0;
  if (!regionAt(s, offset, &ri)) return out;
  // Up the tree that is current at the offset (an edited function's own tree ends at its definition),
  // then on up the whole-file tree from the nodes that enclose what was found.
  for (TSNode n = namedNodeAt(s, offset); !ts_node_is_null(n); n = ts_node_parent(n)) {
    syntax::ByteRange r{ts_node_start_byte(n), ts_node_end_byte(n)};
    if (out.empty() || (r.begin <= out.back().begin && out.back().end <= r.end && !(out.back() == r))) out.push_back(r);
  }
  syntax::ByteRange inner = out.empty() ? syntax::ByteRange{offset, offset} : out.back();
  for (TSNode n = ts_node_named_descendant_for_byte_range(s.doc->root(), offset, offset); !ts_node_is_null(n); n = ts_node_parent(n)) {
    syntax::ByteRange r{ts_node_start_byte(n), ts_node_end_byte(n)};
    if (r.begin <= inner.begin && inner.end <= r.end && !(r == inner)) {
      out.push_back(r);
      inner = r;
    }
  }
  return out;
}

}  // namespace tvms::server
