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

namespace tvms::server {

namespace {

void collectCalls(const ir::ExprPtr& e, const std::string& caller, const frontend::SourceMap& map, std::vector<CallSite>& out, int depth);

void collectSeq(const ir::SeqExpr* s, const std::string& caller, const frontend::SourceMap& map, std::vector<CallSite>& out, int depth) {
  if (!s || depth > 64) return;
  for (auto& block : s->blocks)
    for (auto& b : block->bindings) collectCalls(b->value, caller, map, out, depth + 1);
  collectCalls(s->body, caller, map, out, depth + 1);
}

void collectCalls(const ir::ExprPtr& e, const std::string& caller, const frontend::SourceMap& map, std::vector<CallSite>& out, int depth) {
  if (!e || depth > 64) return;
  if (auto* c = ir::as<ir::Call>(e)) {
    const syntax::ByteRange* r = map.find(c);
    auto site = [&](const ir::ExprPtr& callee) {
      if (auto* g = ir::as<ir::GlobalVar>(callee)) out.push_back({caller, g->name, r ? *r : syntax::ByteRange{}});
    };
    site(c->callee);                              // cls.f(x)
    if (!c->args.empty()) site(c->args.front());  // R.call_tir(cls.kernel, ...)
    for (auto& a : c->args) collectCalls(a, caller, map, out, depth + 1);
  } else if (auto* t = ir::as<ir::Tuple>(e)) {
    for (auto& f : t->fields) collectCalls(f, caller, map, out, depth + 1);
  } else if (auto* i = ir::as<ir::If>(e)) {
    collectSeq(i->thenBranch.get(), caller, map, out, depth + 1);
    collectSeq(i->elseBranch.get(), caller, map, out, depth + 1);
  } else if (auto* s = ir::as<ir::SeqExpr>(e)) {
    collectSeq(s, caller, map, out, depth + 1);
  }
}

}  // namespace

std::vector<CallSite> callSites(const Snapshot& s, size_t region) {
  std::vector<CallSite> out;
  if (region >= s.lint.file.regions.size()) return out;
  auto& r = s.lint.file.regions[region];
  for (auto& f : r.module->functions)
    if (f.relax) collectSeq(f.relax->body.get(), f.name, r.map, out, 0);
  return out;
}

std::optional<CallableAt> callableAt(const Snapshot& s, uint32_t offset) {
  // A function's name where it is defined, or a use of it (`cls.f`: a name without a target object).
  for (size_t ri = 0; ri < s.lint.file.regions.size(); ++ri)
    for (auto& n : s.lint.file.regions[ri].map.names)
      if (n.kind == frontend::NameRef::Kind::Function && n.range.begin <= offset && offset <= n.range.end)
        return callableIn(s, ri, n.name);
  return std::nullopt;
}

std::optional<CallableAt> callableIn(const Snapshot& s, size_t region, const std::string& name) {
  if (region >= s.lint.file.regions.size()) return std::nullopt;
  auto& r = s.lint.file.regions[region];
  const ir::ModuleFunction* f = r.module->function(name);
  if (!f) return std::nullopt;
  const void* key = f->relax ? static_cast<const void*>(f->relax.get()) : static_cast<const void*>(f->tir.get());
  CallableAt c{name, region, {}, {}, f->tir != nullptr};
  if (const syntax::ByteRange* whole = r.map.find(key)) c.range = *whole;
  for (auto& n : r.map.names)
    if (n.isDefinition && n.kind == frontend::NameRef::Kind::Function && n.target == key) c.selection = n.range;
  for (auto& span : r.functions)
    if (span.name == name && c.range.end <= c.range.begin) c.range = span.range;
  if (c.selection.end <= c.selection.begin) c.selection = c.range;
  return c;
}

}  // namespace tvms::server
