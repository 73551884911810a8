// JSON, SARIF 2.1.0 and GitHub annotation output of `tvms lint`.
#include "tools/tvms/report_formats.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "compiler/diagnostics/catalogue.h"

namespace tvms::cli {

using nlohmann::json;

namespace {

json position(const LintedFile& f, uint32_t offset) {
  auto lc = f.lines.toLineCol(offset, syntax::Encoding::Utf16);
  return {{"row", lc.line + 1}, {"column", lc.column + 1}};
}

json edit(const LintedFile& f, const diag::TextEdit& e) {
  return {{"content", e.newText}, {"location", position(f, e.range.begin)}, {"end_location", position(f, e.range.end)}};
}

std::string level(diag::Severity s) {
  switch (s) {
    case diag::Severity::Error: return "error";
    case diag::Severity::Warning: return "warning";
    case diag::Severity::Info: return "note";
  }
  return "error";
}

json sarifRegion(const LintedFile& f, syntax::ByteRange r) {
  auto a = f.lines.toLineCol(r.begin, syntax::Encoding::Utf16);
  auto b = f.lines.toLineCol(r.end, syntax::Encoding::Utf16);
  return {{"startLine", a.line + 1}, {"startColumn", a.column + 1}, {"endLine", b.line + 1}, {"endColumn", b.column + 1}};
}

// A relative path as a URI reference: '/' separators, reserved characters percent-encoded.
std::string uriOf(const std::string& path) {
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

// The source root: the nearest directory above the working directory that holds .git (else the working
// directory). Files below it get URIs relative to %SRCROOT%; others an absolute file URI.
std::filesystem::path sourceRoot() {
  std::error_code ec;
  auto cwd = std::filesystem::current_path(ec);
  for (auto d = cwd; !d.empty(); d = d.parent_path()) {
    if (std::filesystem::exists(d / ".git", ec)) return d;
    if (d == d.root_path()) break;
  }
  return cwd;
}

json artifactLocation(const LintedFile& f) {
  std::error_code ec;
  auto root = sourceRoot();
  auto abs = std::filesystem::absolute(f.path, ec);
  auto rel = std::filesystem::relative(abs, root, ec);
  if (!ec && !rel.empty() && rel.generic_string().rfind("..", 0) != 0)
    return {{"uri", uriOf(rel.generic_string())}, {"uriBaseId", "%SRCROOT%"}};
  return {{"uri", "file://" + uriOf(abs.generic_string())}};
}

json sarifLocation(const LintedFile& f, syntax::ByteRange r) {
  return {{"physicalLocation", {{"artifactLocation", artifactLocation(f)}, {"region", sarifRegion(f, r)}}}};
}

std::string escapeData(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
  }
  return out;
}
std::string escapeProperty(const std::string& s) {
  std::string out;
  for (char c : escapeData(s)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

}  // namespace

std::string renderJson(const std::vector<LintedFile>& files) {
  json out = json::array();
  for (auto& f : files)
    for (auto& d : f.diagnostics) {
      json related = json::array();
      for (auto& r : d.related)
        related.push_back({{"message", r.message}, {"location", position(f, r.range.begin)}, {"end_location", position(f, r.range.end)}});
      json fixes = json::array();
      for (auto& fx : d.fixes) {
        json edits = json::array();
        for (auto& e : fx.edits) edits.push_back(edit(f, e));
        fixes.push_back({{"message", fx.title}, {"applicability", fx.safe ? "safe" : "unsafe"}, {"edits", edits}});
      }
      out.push_back({{"code", diag::codeName(d.code)},
                     {"severity", std::string(diag::severityName(d.severity))},
                     {"message", d.message},
                     {"filename", f.path},
                     {"location", position(f, d.range.begin)},
                     {"end_location", position(f, d.range.end)},
                     {"related", related},
                     {"fixes", fixes}});
    }
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";  // invalid UTF-8 from the file as U+FFFD
}

std::string renderSarif(const std::vector<LintedFile>& files) {
  json rules = json::array();
  std::map<std::string, size_t> ruleIndex;
  for (auto& r : diag::allRules()) {
    ruleIndex[std::string(r.code)] = rules.size();
    rules.push_back({{"id", r.code},
                     {"name", r.title},
                     {"shortDescription", {{"text", r.title}}},
                     {"fullDescription", {{"text", r.explanation}}},
                     {"defaultConfiguration", {{"level", level(r.severity)}, {"enabled", r.enabledByDefault}}},
                     {"help", {{"text", std::string(r.explanation) + " (tvms explain " + std::string(r.code) + ")"}}}});
  }
  json results = json::array();
  json artifacts = json::array();
  for (auto& f : files) {
    artifacts.push_back({{"location", artifactLocation(f)}});
    for (auto& d : f.diagnostics) {
      json res = {{"ruleId", diag::codeName(d.code)},
                  {"level", level(d.severity)},
                  {"message", {{"text", d.message}}},
                  {"locations", json::array({sarifLocation(f, d.range)})}};
      if (auto it = ruleIndex.find(std::string(diag::codeName(d.code))); it != ruleIndex.end()) res["ruleIndex"] = it->second;
      if (!d.related.empty()) {
        json rel = json::array();
        for (size_t i = 0; i < d.related.size(); ++i) {
          json loc = sarifLocation(f, d.related[i].range);
          loc["id"] = i;
          loc["message"] = {{"text", d.related[i].message}};
          rel.push_back(loc);
        }
        res["relatedLocations"] = rel;
      }
      if (!d.fixes.empty()) {
        json fixes = json::array();
        for (auto& fx : d.fixes) {
          json replacements = json::array();
          for (auto& e : fx.edits)
            replacements.push_back({{"deletedRegion", sarifRegion(f, e.range)}, {"insertedContent", {{"text", e.newText}}}});
          fixes.push_back({{"description", {{"text", fx.title}}},
                           {"artifactChanges", json::array({{{"artifactLocation", artifactLocation(f)},
                                                             {"replacements", replacements}}})}});
        }
        res["fixes"] = fixes;
      }
      results.push_back(res);
    }
  }
  json log = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({{{"tool", {{"driver", {{"name", "tvms"}, {"version", TVMS_VERSION}, {"rules", rules}}}}},
                                     {"columnKind", "utf16CodeUnits"},
                                     {"originalUriBaseIds", {{"%SRCROOT%", {{"uri", "file://" + uriOf(sourceRoot().generic_string()) + "/"}}}}},
                                     {"artifacts", artifacts},
                                     {"results", results}}})}};
  return log.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string renderGithub(const std::vector<LintedFile>& files) {
  std::string out;
  for (auto& f : files)
    for (auto& d : f.diagnostics) {
      auto a = f.lines.toLineCol(d.range.begin, syntax::Encoding::Utf16);
      auto b = f.lines.toLineCol(d.range.end, syntax::Encoding::Utf16);
      std::string kind = d.severity == diag::Severity::Error ? "error" : d.severity == diag::Severity::Warning ? "warning" : "notice";
      out += "::" + kind + " file=" + escapeProperty(f.path) + ",line=" + std::to_string(a.line + 1) + ",col=" +
             std::to_string(a.column + 1) + ",endLine=" + std::to_string(b.line + 1) + ",endColumn=" +
             std::to_string(b.column + 1) + ",title=" + escapeProperty("tvms " + std::string(diag::codeName(d.code))) + "::" + escapeData(d.message) + "\n";
    }
  return out;
}

}  // namespace tvms::cli
