// Rename (variables, functions, vdevices) and symbol search.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "compiler/frontend/aliases.h"
#include "compiler/frontend/frontend.h"
#include "server/features.h"
#include "server/features_util.h"

namespace tvms::server {

namespace {

using frontend::NameRef;

bool isIdentifier(std::string_view s) {
  static const std::set<std::string_view> kKeywords = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
      "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
      "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"};
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])) || kKeywords.count(s)) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// The part of a name's range that spells the name (a vdevice use's range holds its quotes).
syntax::ByteRange spelled(const Snapshot& s, const NameRef& n) {
  std::string_view t = s.doc->slice(n.range);
  size_t at = t.find(n.name);
  if (at == std::string_view::npos) return n.range;
  return {static_cast<uint32_t>(n.range.begin + at), static_cast<uint32_t>(n.range.begin + at + n.name.size())};
}

const NameRef* nameUnder(const Snapshot& s, uint32_t offset, size_t* ri) {
  const frontend::Region* region = regionAt(s, offset, ri);
  if (!region) return nullptr;
  for (auto& n : region->map.names)
    if (n.range.begin <= offset && offset <= n.range.end) return &n;
  return nullptr;
}

// "kind:i" for every declared entry, with one entry's kind replaced.
std::vector<std::string> spellings(const ir::IRModule& m, const ir::VDevice* changed, const std::string& newKind) {
  std::vector<std::string> out;
  std::map<std::string, int> seen;
  for (auto& v : m.vdevices) {
    std::string kind = v.get() == changed ? newKind : v->target.kind;
    out.push_back(kind + ":" + std::to_string(seen[kind]++));
  }
  return out;
}

RenameResult renameVDevice(const Snapshot& s, const frontend::Region& region, const ir::VDevice* entry, std::string newKind) {
  RenameResult out;
  if (auto colon = newKind.find(':'); colon != std::string::npos) newKind = newKind.substr(0, colon);
  if (!isIdentifier(newKind)) return {{}, "'" + newKind + "' is not a target kind (e.g. cuda, llvm, rocm)"};
  const ir::IRModule& m = *region.module;
  if (entry->target.kind == newKind) return out;
  auto before = spellings(m, nullptr, ""), after = spellings(m, entry, newKind);
  for (auto& n : region.map.names) {
    if (n.kind != NameRef::Kind::VDevice || !n.target) continue;
    auto* v = static_cast<const ir::VDevice*>(n.target);
    int i = m.indexOf(v);
    if (i < 0) continue;
    if (n.isDefinition) {
      if (v != entry) continue;
      // The declaration: the kind's string in I.vdevice("cuda", ...) or {"kind": "cuda", ...}.
      std::string_view t = s.doc->slice(n.range);
      size_t at = t.find("\"" + v->target.kind + "\"");
      if (at == std::string_view::npos) return {{}, "the declaration of this vdevice does not spell its kind as a string"};
      uint32_t b = static_cast<uint32_t>(n.range.begin + at + 1);
      out.edits.push_back({{b, static_cast<uint32_t>(b + v->target.kind.size())}, newKind});
      continue;
    }
    const std::string& was = before[static_cast<size_t>(i)];
    const std::string& now = after[static_cast<size_t>(i)];
    if (was == now) continue;
    // A short use ("cuda" for "cuda:0") stays short when it still means index 0.
    bool shortForm = n.name.find(':') == std::string::npos;
    std::string text = shortForm && now.size() > 2 && now.substr(now.size() - 2) == ":0" ? now.substr(0, now.size() - 2) : now;
    out.edits.push_back({spelled(s, n), text});
  }
  return out;
}

}  // namespace

std::optional<syntax::ByteRange> renameRange(const Snapshot& s, uint32_t offset) {
  size_t ri = 0;
  const NameRef* n = nameUnder(s, offset, &ri);
  if (!n) return std::nullopt;
  if (n->kind == NameRef::Kind::VDevice && n->isDefinition) {
    // On the declaration: the kind string.
    auto* v = static_cast<const ir::VDevice*>(n->target);
    std::string_view t = s.doc->slice(n->range);
    size_t at = v ? t.find("\"" + v->target.kind + "\"") : std::string_view::npos;
    if (at == std::string_view::npos) return std::nullopt;
    uint32_t b = static_cast<uint32_t>(n->range.begin + at + 1);
    return syntax::ByteRange{b, static_cast<uint32_t>(b + v->target.kind.size())};
  }
  return spelled(s, *n);
}

RenameResult renameAt(const Snapshot& s, uint32_t offset, const std::string& newName) {
  size_t ri = 0;
  const NameRef* n = nameUnder(s, offset, &ri);
  if (!n) return {{}, "there is no variable, function or vdevice here to rename"};
  const frontend::Region& region = s.lint.file.regions[ri];
  if (!region.module) return {{}, "this module could not be read"};
  if (n->kind == NameRef::Kind::VDevice) {
    if (!n->target) return {{}, "\"" + n->name + "\" names no declared vdevice"};
    return renameVDevice(s, region, static_cast<const ir::VDevice*>(n->target), newName);
  }
  if (!isIdentifier(newName)) return {{}, "'" + newName + "' is not a Python identifier"};
  // A name TVMScript reads as a namespace (R, I, T, cls, or whatever the file's imports bind) would
  // be shadowed: every `R.add` after the rename would look up the variable.
  if (newName == "R" || newName == "I" || newName == "T" || newName == "cls" || frontend::fileAliases(*s.doc).binds(newName))
    return {{}, "'" + newName + "' would shadow a name TVMScript reads (the R, I and T namespaces, cls, and the file's imports)"};
  RenameResult out;
  if (n->kind == NameRef::Kind::Function) {
    for (auto& f : region.module->functions)
      if (f.name == newName) return {{}, "module '" + region.module->name + "' already has a function '" + newName + "'"};
    for (auto& m : region.map.names)
      if (m.kind == NameRef::Kind::Function && m.name == n->name) out.edits.push_back({spelled(s, m), newName});
    return out;
  }
  if (n->kind == NameRef::Kind::Var && n->target) {
    // A name already bound in the same function would be shadowed or would capture the uses.
    const ir::Function* owner = nullptr;
    for (auto& f : region.module->functions) {
      const syntax::ByteRange* r = f.relax ? region.map.find(f.relax.get()) : nullptr;
      if (r && r->begin <= n->range.begin && n->range.end <= r->end) owner = f.relax.get();
    }
    const syntax::ByteRange* scope = owner ? region.map.find(owner) : nullptr;
    for (auto& m : region.map.names)
      if (m.kind == NameRef::Kind::Var && m.isDefinition && m.name == newName && scope && scope->begin <= m.range.begin &&
          m.range.end <= scope->end)
        return {{}, "'" + newName + "' is already bound in this function"};
    for (auto& m : region.map.names)
      if (m.kind == NameRef::Kind::Var && m.target == n->target) out.edits.push_back({spelled(s, m), newName});
    return out;
  }
  if (n->kind == NameRef::Kind::TirBuffer || n->kind == NameRef::Kind::TirVar)
    return {{}, "renaming a prim_func's buffers and variables is not supported yet"};
  return {{}, "renaming a symbolic variable is not supported yet"};
}

bool fuzzyMatches(std::string_view query, std::string_view name) {
  size_t i = 0;
  for (char c : name)
    if (i < query.size() && std::tolower(static_cast<unsigned char>(c)) == std::tolower(static_cast<unsigned char>(query[i]))) ++i;
  return i == query.size();
}

}  // namespace tvms::server
