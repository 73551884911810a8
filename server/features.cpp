// Hover and quick fixes.
#include "server/features.h"

#include <cctype>

#include "compiler/diagnostics/catalogue.h"
#include "compiler/ir/printer.h"
#include "compiler/op/registry.h"

namespace tvms::server {

namespace {

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

std::string describeVDevice(const ir::IRModule& m, const ir::VDevice& v) {
  int index = m.indexOf(&v);
  std::string target = v.target.writtenAsDict() ? ir::printValue(v.target.config, m) : "\"" + v.target.kind + "\"";
  return "`I.vdevice(" + target + ", " + std::to_string(v.vdeviceId) + ", \"" + v.memoryScope + "\")`: list entry " +
         std::to_string(index) + " (\"" + analysis::spellingOf(m, &v) + "\", physical device " + v.target.kind + " " +
         std::to_string(v.vdeviceId) + ")";
}

}  // namespace

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
      auto* var = static_cast<const ir::Var*>(n.target);
      const auto& analyses = s.lint.analyses.at(ri);
      for (auto& fa : analyses.functions) {
        if (!fa) continue;
        auto it = fa->vars.find(var);
        if (it == fa->vars.end()) continue;
        std::string body = "```python\n" + n.name + ": " +
                           (it->second.sinfo ? ir::printStructInfo(it->second.sinfo, m) : std::string("(unknown struct info)")) + "\n```";
        if (auto* v = it->second.sinfo && it->second.sinfo->vdevice ? it->second.sinfo->vdevice->device.get() : nullptr)
          if (m.indexOf(v) >= 0) body += "\n\non " + describeVDevice(m, *v);
        return HoverText{body, n.range};
      }
    }
    if (n.kind == frontend::NameRef::Kind::VDevice && n.target)
      return HoverText{"\"" + n.name + "\" is " + describeVDevice(m, *static_cast<const ir::VDevice*>(n.target)), n.range};
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
    out.push_back({"Add `# noqa: " + d.code + "`", &d, {{{lineEnd, lineEnd}, "  # noqa: " + d.code}}, false});
  }
  return out;
}

}  // namespace tvms::server
