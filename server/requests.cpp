// The feature requests: the features' results (server/features*.cpp, no JSON there) as LSP JSON.
#include <algorithm>
#include <functional>
#include <map>
#include <cstdio>
#include <cstring>
#include <optional>

#include <boost/asio/post.hpp>

#include "compiler/format/formatter.h"
#include "compiler/ir/printer.h"
#include "compiler/driver/pass_list.h"
#include "compiler/driver/pipeline.h"
#include "server/session.h"

namespace tvms::server {

void Server::hover(const json& id, const json& params, const std::string&, const Snapshot& s) {
  auto h = hoverAt(s, byteOffset(params.at("position"), s.doc->lines(), enc()));
  if (!h) return reply(id, nullptr);
  reply(id, {{"contents", {{"kind", "markdown"}, {"value", h->markdown}}}, {"range", lspRange(h->range, s.doc->lines(), enc())}});
}

void Server::codeAction(const json& id, const json& params, const std::string& uri, const Snapshot& s) {
  syntax::ByteRange r = byteRange(params.at("range"), s.doc->lines(), enc());
  json actions = json::array();
  for (auto& f : quickFixes(s, r)) {
    json edits = json::array();
    for (auto& e : f.edits) edits.push_back({{"range", lspRange(e.range, s.doc->lines(), enc())}, {"newText", e.newText}});
    actions.push_back({{"title", f.title}, {"kind", "quickfix"}, {"isPreferred", f.preferred},
                       {"diagnostics", json::array({lspDiagnostic(*f.diagnostic, s.doc->lines(), enc(), uri, rulesDoc_)})},
                       {"edit", {{"changes", {{uri, edits}}}}}});
  }
  reply(id, actions);
}

void Server::definition(const json& id, const json& params, const std::string& uri, const Snapshot& s) {
  auto t = nameAt(s, byteOffset(params.at("position"), s.doc->lines(), enc()));
  if (!t) return reply(id, nullptr);
  json out = json::array();
  for (auto* n : t->all)
    if (n->isDefinition) out.push_back({{"uri", uri}, {"range", lspRange(n->range, s.doc->lines(), enc())}});
  reply(id, out);
}

void Server::typeDefinition(const json& id, const json& params, const std::string& uri, const Snapshot& s) {
  auto r = typeDefinitionAt(s, byteOffset(params.at("position"), s.doc->lines(), enc()));
  if (!r) return reply(id, nullptr);
  reply(id, json::array({{{"uri", uri}, {"range", lspRange(*r, s.doc->lines(), enc())}}}));
}

// `# noqa: TVS201` links to the rule's section of docs/rules.md.
void Server::documentLinks(const json& id, const json&, const std::string&, const Snapshot& s) {
  json out = json::array();
  if (!rulesDoc_.empty())
    for (auto& l : noqaRuleLinks(s))
      out.push_back({{"range", lspRange(l.range, s.doc->lines(), enc())}, {"target", rulesDoc_ + "#" + ruleAnchor(l.code)},
                     {"tooltip", "tvms explain " + l.code}});
  reply(id, out);
}

json Server::callHierarchyItem(const CallableAt& c, const std::string& uri, const Snapshot& s) const {
  return {{"name", c.name}, {"kind", 12}, {"detail", c.primFunc ? "T.prim_func" : "R.function"}, {"uri", uri},
          {"range", lspRange(c.range, s.doc->lines(), enc())}, {"selectionRange", lspRange(c.selection, s.doc->lines(), enc())},
          {"data", {{"region", c.region}}}};
}

void Server::prepareCallHierarchy(const json& id, const json& params, const std::string& uri, const Snapshot& s) {
  auto c = callableAt(s, byteOffset(params.at("position"), s.doc->lines(), enc()));
  if (!c) return reply(id, nullptr);
  reply(id, json::array({callHierarchyItem(*c, uri, s)}));
}

// The calls of the item's function (incoming: who calls it; outgoing: whom it calls), one entry per
// other function with the ranges of its calls.
static void callsOf(const json& item, const Snapshot& s, bool incoming, const std::function<void(const std::string&, std::vector<syntax::ByteRange>)>& each) {
  size_t region = item.contains("data") && item["data"].contains("region") ? item["data"]["region"].get<size_t>() : 0;
  std::string name = item.at("name");
  std::map<std::string, std::vector<syntax::ByteRange>> by;
  std::vector<std::string> order;
  for (auto& c : callSites(s, region)) {
    if ((incoming ? c.callee : c.caller) != name) continue;
    const std::string& other = incoming ? c.caller : c.callee;
    if (!by.count(other)) order.push_back(other);
    by[other].push_back(c.range);
  }
  for (auto& o : order) each(o, by[o]);
}

// incoming: the functions calling the item's ("from"); outgoing: the functions it calls ("to").
void Server::hierarchyCalls(const json& id, const json& params, const std::string& uri, const Snapshot& s, bool incoming) {
  json out = json::array();
  const json& item = params.at("item");
  size_t region = item.contains("data") && item["data"].contains("region") ? item["data"]["region"].get<size_t>() : 0;
  callsOf(item, s, incoming, [&](const std::string& other, std::vector<syntax::ByteRange> ranges) {
    auto c = callableIn(s, region, other);
    if (!c) return;
    json from = json::array();
    for (auto& r : ranges) from.push_back(lspRange(r, s.doc->lines(), enc()));
    out.push_back({{incoming ? "from" : "to", callHierarchyItem(*c, uri, s)}, {"fromRanges", from}});
  });
  reply(id, out);
}

void Server::incomingCalls(const json& id, const json& params, const std::string& uri, const Snapshot& s) {
  hierarchyCalls(id, params, uri, s, true);
}

void Server::outgoingCalls(const json& id, const json& params, const std::string& uri, const Snapshot& s) {
  hierarchyCalls(id, params, uri, s, false);
}

void Server::references(const json& id, const json& params, const std::string& uri, const Snapshot& s) {
  auto t = nameAt(s, byteOffset(params.at("position"), s.doc->lines(), enc()));
  if (!t) return reply(id, nullptr);
  bool withDecl = params.contains("context") ? params["context"].value("includeDeclaration", true) : true;
  json out = json::array();
  for (auto* n : t->all)
    if (withDecl || !n->isDefinition) out.push_back({{"uri", uri}, {"range", lspRange(n->range, s.doc->lines(), enc())}});
  reply(id, out);
}

void Server::highlight(const json& id, const json& params, const std::string&, const Snapshot& s) {
  auto t = nameAt(s, byteOffset(params.at("position"), s.doc->lines(), enc()));
  if (!t) return reply(id, nullptr);
  json out = json::array();
  for (auto* n : t->all) out.push_back({{"range", lspRange(n->range, s.doc->lines(), enc())}, {"kind", n->isDefinition ? 3 : 2}});
  reply(id, out);
}

void Server::prepareRename(const json& id, const json& params, const std::string&, const Snapshot& s) {
  uint32_t at = byteOffset(params.at("position"), s.doc->lines(), enc());
  auto r = renameRange(s, at);
  if (!r) return reply(id, nullptr);
  reply(id, {{"range", lspRange(*r, s.doc->lines(), enc())}, {"placeholder", std::string(s.doc->slice(*r))}});
}

void Server::rename(const json& id, const json& params, const std::string& uri, const Snapshot& s) {
  auto r = renameAt(s, byteOffset(params.at("position"), s.doc->lines(), enc()), params.at("newName").get<std::string>());
  if (!r.error.empty()) return error(id, RequestFailed, r.error);
  json edits = json::array();
  for (auto& e : r.edits) edits.push_back({{"range", lspRange(e.range, s.doc->lines(), enc())}, {"newText", e.newText}});
  reply(id, {{"changes", {{uri, edits}}}});
}

namespace {
json symbolJson(const Symbol& sym, const syntax::LineIndex& lines, syntax::Encoding enc) {
  int kind = sym.kind == Symbol::Kind::Module ? 2 : sym.kind == Symbol::Kind::Function ? 12 : 13;
  json children = json::array();
  for (auto& c : sym.children) children.push_back(symbolJson(c, lines, enc));
  return {{"name", sym.name}, {"detail", sym.detail}, {"kind", kind}, {"range", lspRange(sym.range, lines, enc)},
          {"selectionRange", lspRange(sym.selection, lines, enc)}, {"children", children}};
}
}  // namespace

void Server::symbols(const json& id, const json&, const std::string&, const Snapshot& s) {
  json out = json::array();
  for (auto& sym : documentSymbols(s)) out.push_back(symbolJson(sym, s.doc->lines(), enc()));
  reply(id, out);
}

// Over every open document whose analysis is current; the others are skipped rather than waited for.
void Server::workspaceSymbol(const json& id, const json& params) {
  std::string query = params.value("query", "");
  json out = json::array();
  for (auto& [uri, d] : docs_.all()) {
    auto a = worker_->analysed(uri);
    if (!a || a->version.load() != d->version) continue;
    std::lock_guard<std::mutex> lock(a->mutex);
    const Snapshot& s = a->snapshot;
    std::function<void(const Symbol&, const std::string&)> visit = [&](const Symbol& sym, const std::string& container) {
      int kind = sym.kind == Symbol::Kind::Module ? 2 : sym.kind == Symbol::Kind::Function ? 12 : 13;
      if (fuzzyMatches(query, sym.name))
        out.push_back({{"name", sym.name}, {"kind", kind}, {"containerName", container},
                       {"location", {{"uri", uri}, {"range", lspRange(sym.selection, s.doc->lines(), enc())}}}});
      for (auto& c : sym.children) visit(c, sym.name);
    };
    for (auto& sym : documentSymbols(s)) visit(sym, "");
  }
  reply(id, out);
}

void Server::hints(const json& id, const json& params, const std::string&, const Snapshot& s) {
  syntax::ByteRange r = byteRange(params.at("range"), s.doc->lines(), enc());
  json out = json::array();
  for (auto& h : inlayHints(s, r))
    out.push_back({{"position", lspPosition(h.offset, s.doc->lines(), enc())}, {"label", h.label}, {"kind", 1}});
  reply(id, out);
}

void Server::completion(const json& id, const json& params, const std::string&, const Snapshot& s) {
  json items = json::array();
  for (auto& c : completionsAt(s, byteOffset(params.at("position"), s.doc->lines(), enc()))) {
    int kind = c.kind == Completion::Kind::Function ? 3 : c.kind == Completion::Kind::Variable ? 6
               : c.kind == Completion::Kind::Value ? 12 : 14;
    json item = {{"label", c.label}, {"kind", kind}, {"detail", c.detail}};
    if (!c.documentation.empty()) item["documentation"] = {{"kind", "markdown"}, {"value", c.documentation}};
    items.push_back(item);
  }
  reply(id, {{"isIncomplete", false}, {"items", items}});
}

void Server::signatureHelp(const json& id, const json& params, const std::string&, const Snapshot& s) {
  auto h = signatureAt(s, byteOffset(params.at("position"), s.doc->lines(), enc()));
  if (!h) return reply(id, nullptr);
  json ps = json::array();
  for (auto& [b, e] : h->parameters) ps.push_back({{"label", json::array({b, e})}});
  reply(id, {{"signatures", json::array({{{"label", h->label}, {"documentation", {{"kind", "markdown"}, {"value", h->documentation}}},
                                           {"parameters", ps}}})},
             {"activeSignature", 0}, {"activeParameter", h->active}});
}

// LSP's relative encoding: per token, line delta, start delta (from the previous token on the same
// line), length, type, modifiers; positions in the negotiated encoding.
std::vector<uint32_t> Server::encodeTokens(const Snapshot& s, std::optional<syntax::ByteRange> within) const {
  std::vector<uint32_t> data;
  uint32_t line = 0, col = 0;
  for (auto& t : semanticTokens(s)) {
    if (within && (t.offset < within->begin || t.offset >= within->end)) continue;
    auto a = s.doc->lines().toLineCol(t.offset, enc()), b = s.doc->lines().toLineCol(t.offset + t.length, enc());
    data.insert(data.end(), {a.line - line, a.line == line ? a.column - col : a.column, b.column - a.column, t.type, t.modifiers});
    line = a.line;
    col = a.column;
  }
  return data;
}

// The tokens inside a range only (an editor's visible part of a long file).
void Server::semanticTokensRange(const json& id, const json& params, const std::string&, const Snapshot& s) {
  reply(id, {{"data", encodeTokens(s, byteRange(params.at("range"), s.doc->lines(), enc()))}});
}

void Server::semanticTokensFull(const json& id, const json&, const std::string& uri, const Snapshot& s) {
  auto data = encodeTokens(s);
  std::string resultId = std::to_string(++tokenResults_);
  tokens_[uri] = {resultId, data};
  reply(id, {{"resultId", resultId}, {"data", data}});
}

// One edit: the common prefix and suffix of the previous and the new data are kept.
void Server::semanticTokensDelta(const json& id, const json& params, const std::string& uri, const Snapshot& s) {
  auto data = encodeTokens(s);
  std::string resultId = std::to_string(++tokenResults_);
  auto prev = tokens_.find(uri);
  bool known = prev != tokens_.end() && params.value("previousResultId", "") == prev->second.first;
  if (!known) {
    tokens_[uri] = {resultId, data};
    return reply(id, {{"resultId", resultId}, {"data", data}});
  }
  const auto& old = prev->second.second;
  size_t p = 0;
  while (p < old.size() && p < data.size() && old[p] == data[p]) ++p;
  size_t q = 0;
  while (q < old.size() - p && q < data.size() - p && old[old.size() - 1 - q] == data[data.size() - 1 - q]) ++q;
  json edits = json::array();
  if (p != old.size() || p != data.size())
    edits.push_back({{"start", p}, {"deleteCount", old.size() - p - q},
                     {"data", std::vector<uint32_t>(data.begin() + static_cast<long>(p), data.end() - static_cast<long>(q))}});
  tokens_[uri] = {resultId, data};
  reply(id, {{"resultId", resultId}, {"edits", edits}});
}

void Server::folding(const json& id, const json&, const std::string&, const Snapshot& s) {
  json out = json::array();
  for (auto& r : foldingRanges(s)) {
    uint32_t a = s.doc->lines().lineOf(r.begin), b = s.doc->lines().lineOf(r.end ? r.end - 1 : 0);
    if (b > a) out.push_back({{"startLine", a}, {"endLine", b}});
  }
  reply(id, out);
}

void Server::selection(const json& id, const json& params, const std::string&, const Snapshot& s) {
  json out = json::array();
  for (auto& p : params.at("positions")) {
    auto chain = selectionChain(s, byteOffset(p, s.doc->lines(), enc()));
    json node = nullptr;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      json next = {{"range", lspRange(*it, s.doc->lines(), enc())}};
      if (!node.is_null()) next["parent"] = node;
      node = next;
    }
    out.push_back(node.is_null() ? json{{"range", {{"start", p}, {"end", p}}}} : node);
  }
  reply(id, out);
}

// Pull diagnostics: the result id is the document version, so an unchanged document answers "unchanged".
void Server::pullDiagnostics(const json& id, const json& params, const std::string& uri, const Snapshot& s) {
  std::string resultId = std::to_string(s.version);
  if (params.value("previousResultId", "") == resultId) return reply(id, {{"kind", "unchanged"}, {"resultId", resultId}});
  reply(id, {{"kind", "full"}, {"resultId", resultId}, {"items", diagnosticsOf(s, uri)}});
}

// The module as tvms sees it after a pass. The passes come with the compiler; until then the only
// stage is "parsed" (the parsed and deduced IR, printed canonically).
void Server::viewIR(const json& id, const json& params, const std::string&, const Snapshot& s) {
  std::string pass = params.value("pass", "parsed");
  bool known = pass == "parsed";
  for (auto& p : driver::passNames()) known |= p == pass;
  if (!known) return error(id, InvalidParams, "unknown pass '" + pass + "' (available: parsed, " + driver::passNamesText() + ")");
  if (pass != "parsed")
    for (auto& d : s.lint.diagnostics)
      if (d.severity == diag::Severity::Error) return error(id, RequestFailed, "the module has errors; fix them to see it after " + pass);
  if (pass == "parsed") {
    // Printing only: the modules are immutable and shared, printed in the background.
    std::vector<std::shared_ptr<ir::IRModule>> modules;
    for (auto& region : s.lint.file.regions)
      if (region.module) modules.push_back(region.module);
    boost::asio::post(background_, [this, id, pass, modules = std::move(modules)] {
      std::string out;
      for (auto& m : modules) out += ir::printModule(*m, ir::PrintOptions{}) + "\n";
      boost::asio::post(io_, [this, id, pass, out = std::move(out)] { reply(id, {{"text", out}, {"pass", pass}}); });
    });
    return;
  }
  // The passes run in a child `tvms parse --dump-ir --after PASS` on the snapshot's text, as runs do:
  // whatever a module does to the compiler (a crash, a hang, memory) ends the child, never the server.
  std::vector<std::string> argv{runExecutable_, "parse", "--dump-ir", "--after", pass, ChildProcess::kStdinPath};
  const std::string text(s.doc->text());
  constexpr int64_t kViewIRTimeoutMs = 120000;
  std::string why;
  auto child = ChildProcess::start(
      io_, argv, std::chrono::milliseconds(kViewIRTimeoutMs), nullptr,
      [this, id, pass](const ChildProcess::Result& r) {
        std::string err = r.err;
        while (!err.empty() && err.back() == '\n') err.pop_back();
        if (r.timedOut)
          return error(id, RequestFailed, "the passes up to " + pass + " did not finish within " + std::to_string(kViewIRTimeoutMs / 1000) + " s");
        if (r.signal)
          return error(id, RequestFailed, "the compiler crashed (" + std::string(::strsignal(r.signal)) + ") running the passes up to " + pass +
                                              " on this module; the language server is unaffected" + (err.empty() ? "" : "\n" + err));
        if (r.exitCode != 0) return error(id, RequestFailed, err.empty() ? "the passes up to " + pass + " failed" : err);
        reply(id, {{"text", r.out}, {"pass", pass}});
      },
      &why, &text);
  if (!child) error(id, RequestFailed, "cannot run the passes: " + why);
}

// Formatting works on the reader's text (tvms fmt's code): it needs no analysis. A range formats the
// regions it touches: the edit spans from the first to the last line that changed, if inside the range.
// It runs in the background on a copy of the text; if the document changed meanwhile, the edit is
// not sent (ContentModified): it would apply to a text that no longer exists. [tool.tvms] applies as
// it does to `tvms fmt`: its line-length, and no edits for a file its exclude matches.
void Server::formatting(const json& id, const json& params, bool rangeOnly) {
  std::string uri = params.at("textDocument").at("uri");
  const OpenDocument* open = docs_.find(uri);
  if (!open) return error(id, InvalidParams, "not open: " + uri);
  const OpenDocument& d = *open;
  std::optional<syntax::ByteRange> want;
  if (rangeOnly) want = byteRange(params.at("range"), d.lines, enc());
  config::Config project = projectConfigFor(uri);
  if (std::string path = pathOfUri(uri); !path.empty() && config::excluded(project, path)) return reply(id, json::array());
  format::FormatOptions opts;
  if (project.lineLength) opts.lineWidth = *project.lineLength;
  boost::asio::post(background_, [this, id, uri, want, opts, version = d.version, text = d.text] {
    auto r = format::formatSource(text, opts);
    boost::asio::post(io_, [this, id, uri, want, version, text = std::move(text), r = std::move(r)] {
      const OpenDocument* now = docs_.find(uri);
      if (!now || now->version != version) return error(id, ContentModified, "the document changed while it was formatted");
      if (!r.changed) return reply(id, json::array());
      const syntax::LineIndex& lines = now->lines;  // of the same text: its version is unchanged
      // The changed span: common prefix and suffix of the two texts, widened to whole lines.
      size_t p = 0;
      while (p < text.size() && p < r.text.size() && text[p] == r.text[p]) ++p;
      size_t q = 0;
      while (q < text.size() - p && q < r.text.size() - p && text[text.size() - 1 - q] == r.text[r.text.size() - 1 - q]) ++q;
      uint32_t begin = lines.lineStart(lines.lineOf(static_cast<uint32_t>(p)));
      p = begin;
      syntax::ByteRange changed{begin, static_cast<uint32_t>(text.size() - q)};
      if (want && (changed.end < want->begin || changed.begin > want->end)) return reply(id, json::array());
      std::string newText = r.text.substr(p, r.text.size() - q - p);
      reply(id, json::array({{{"range", lspRange(changed, lines, enc())}, {"newText", newText}}}));
    });
  });
}

// Documents, resident memory and the last analysis time, for users and benchmarks.
void Server::status(const json& id) {
  json docs = json::array();
  for (auto& [uri, d] : docs_.all()) docs.push_back({{"uri", uri}, {"version", d->version}, {"bytes", d->text.size()}});
  long rssKb = 0;
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "VmRSS: %ld kB", &rssKb) == 1) break;
    std::fclose(f);
  }
  reply(id, {{"documents", docs}, {"rssBytes", rssKb * 1024}, {"lastAnalysisMs", worker_->lastAnalysisMs()},
             {"incrementalAnalyses", worker_->incrementalRuns()}, {"wholeAnalyses", worker_->wholeRuns()}});
}

void Server::documentText(const json& id, const json& params) {
  std::string uri = params.at("uri");
  const OpenDocument* d = docs_.find(uri);
  if (!d) return error(id, InvalidParams, "not open: " + uri);
  reply(id, {{"text", d->text}, {"version", d->version}});
}

// The "Run main" lenses: each invokes tvms.run on its function.
void Server::codeLens(const json& id, const json&, const std::string& uri, const Snapshot& s) {
  json out = json::array();
  for (auto& lens : runLenses(s))
    out.push_back({{"range", lspRange(lens.range, s.doc->lines(), enc())},
                   {"command", {{"title", "\u25B6 Run " + lens.function}, {"command", "tvms.run"},
                                {"arguments", json::array({{{"uri", uri}, {"function", lens.function}}})}}}});
  reply(id, out);
}

}  // namespace tvms::server
