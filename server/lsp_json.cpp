#include "server/lsp_json.h"

#include <cctype>

#include "compiler/diagnostics/catalogue.h"

namespace tvms::server {

json lspPosition(uint32_t offset, const syntax::LineIndex& lines, syntax::Encoding enc) {
  auto lc = lines.toLineCol(offset, enc);
  return {{"line", lc.line}, {"character", lc.column}};
}

json lspRange(syntax::ByteRange r, const syntax::LineIndex& lines, syntax::Encoding enc) {
  return {{"start", lspPosition(r.begin, lines, enc)}, {"end", lspPosition(r.end, lines, enc)}};
}

uint32_t byteOffset(const json& p, const syntax::LineIndex& lines, syntax::Encoding enc) {
  return lines.toOffset({p.at("line").get<uint32_t>(), p.at("character").get<uint32_t>()}, enc);
}

syntax::ByteRange byteRange(const json& r, const syntax::LineIndex& lines, syntax::Encoding enc) {
  uint32_t a = byteOffset(r.at("start"), lines, enc), b = byteOffset(r.at("end"), lines, enc);
  return {std::min(a, b), std::max(a, b)};
}

std::string ruleAnchor(std::string_view code) {
  std::string out;
  const diag::Rule* rule = diag::findRule(code);
  std::string heading = std::string(code) + (rule ? " " + std::string(rule->title) : "");
  for (char c : heading) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (c == ' ') out += '-';
  }
  return out;
}

json lspDiagnostic(const diag::Diagnostic& d, const syntax::LineIndex& lines, syntax::Encoding enc,
                   const std::string& uri, const std::string& rulesDoc) {
  int severity = d.severity == diag::Severity::Error ? 1 : d.severity == diag::Severity::Warning ? 2 : 3;
  std::string code(diag::codeName(d.code));
  json out = {{"range", lspRange(d.range, lines, enc)}, {"severity", severity}, {"code", code}, {"source", "tvms"},
              {"message", d.message}};
  if (!rulesDoc.empty()) out["codeDescription"] = {{"href", rulesDoc + "#" + ruleAnchor(code)}};
  if (!d.related.empty()) {
    json rel = json::array();
    for (auto& r : d.related) rel.push_back({{"location", {{"uri", uri}, {"range", lspRange(r.range, lines, enc)}}}, {"message", r.message}});
    out["relatedInformation"] = rel;
  }
  if (d.code == diag::Code::TVS900) out["tags"] = json::array({1});  // unnecessary
  return out;
}

// file:///a%20b/c.py -> /a b/c.py; other schemes give "".
std::string pathOfUri(const std::string& uri) {
  if (uri.rfind("file://", 0) != 0) return "";
  std::string out;
  for (size_t i = 7; i < uri.size(); ++i) {
    auto hex = [&](char c) { return std::isxdigit(static_cast<unsigned char>(c)) ? (std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10) : -1; };
    if (uri[i] == '%' && i + 2 < uri.size() && hex(uri[i + 1]) >= 0 && hex(uri[i + 2]) >= 0) {
      out += static_cast<char>(hex(uri[i + 1]) * 16 + hex(uri[i + 2]));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

bool nestsDeeperThan(std::string_view body, int limit) {
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace tvms::server
