// Navigation beyond definition: the type definition of a name (the struct info that defines a
// variable, the declared entry of a vdevice string) and the `# noqa` rule codes as links.
#include <cctype>

#include "server/features.h"

namespace tvms::server {

namespace {

// The binding that defines `v` in any function of the region's module.
const ir::Binding* bindingOf(const ir::IRModule& m, const ir::Var* v) {
  std::vector<const ir::SeqExpr*> stack;
  for (auto& f : m.functions)
    if (f.relax && f.relax->body) stack.push_back(f.relax->body.get());
  while (!stack.empty()) {
    const ir::SeqExpr* s = stack.back();
    stack.pop_back();
    for (auto& block : s->blocks)
      for (auto& b : block->bindings) {
        for (auto& var : b->vars)
          if (var.get() == v) return b.get();
        if (auto* i = ir::as<ir::If>(b->value)) {
          if (i->thenBranch) stack.push_back(i->thenBranch.get());
          if (i->elseBranch) stack.push_back(i->elseBranch.get());
        }
      }
  }
  return nullptr;
}

}  // namespace

std::optional<syntax::ByteRange> typeDefinitionAt(const Snapshot& s, uint32_t offset) {
  auto t = nameAt(s, offset);
  if (!t || !t->at) return std::nullopt;
  for (auto& region : s.lint.file.regions) {
    const auto& map = region.map;
    bool here = false;
    for (auto& n : map.names) here |= &n == t->at;
    if (!here) continue;
    if (t->at->kind == frontend::NameRef::Kind::VDevice) {
      // A vdevice string's type is the declared entry it names.
      if (const syntax::ByteRange* r = map.find(t->at->target)) return *r;
      return std::nullopt;
    }
    if (t->at->kind != frontend::NameRef::Kind::Var || !t->at->target) return std::nullopt;
    auto* v = static_cast<const ir::Var*>(t->at->target);
    // The annotation that defines its struct info, else the value it was deduced from.
    if (v->annotation)
      if (const syntax::ByteRange* r = map.find(v->annotation.get())) return *r;
    if (const ir::Binding* b = bindingOf(*region.module, v)) {
      if (b->castSInfo)
        if (const syntax::ByteRange* r = map.find(b->castSInfo.get())) return *r;
      syntax::ByteRange annotation = map.operand(b, 1);
      if (annotation.end > annotation.begin) return annotation;
      syntax::ByteRange value = map.operand(b, 0);
      if (value.end > value.begin) return value;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::vector<RuleLink> noqaRuleLinks(const Snapshot& s) {
  std::vector<RuleLink> out;
  const std::string& text = s.doc->text();
  for (auto& c : frontend::commentNodesIn(*s.doc, {0, static_cast<uint32_t>(text.size())})) {
    size_t at = c.text.find("noqa");
    if (at == std::string::npos) continue;
    for (size_t p = c.text.find("TVS", at); p != std::string::npos; p = c.text.find("TVS", p + 3)) {
      size_t end = p + 3;
      while (end < c.text.size() && std::isdigit(static_cast<unsigned char>(c.text[end]))) ++end;
      if (end == p + 3) continue;
      out.push_back({c.text.substr(p, end - p), {c.range.begin + static_cast<uint32_t>(p), c.range.begin + static_cast<uint32_t>(end)}});
    }
  }
  return out;
}

}  // namespace tvms::server
