// The language server: lifecycle, text synchronisation (incremental didChange applied to a Document),
// and diagnostics published from a worker thread for the latest version of each document only.
#include "server/server.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "compiler/analysis/lint.h"
#include "compiler/diagnostics/catalogue.h"
#include "compiler/format/formatter.h"
#include "compiler/ir/printer.h"
#include "server/features.h"
#include "server/transport.h"
#include <csignal>

namespace tvms::server {

using nlohmann::json;

namespace {

enum ErrorCode { ParseError = -32700, InvalidRequest = -32600, MethodNotFound = -32601, InvalidParams = -32602,
                 ServerNotInitialized = -32002, ContentModified = -32801 };

struct OpenDocument {
  std::unique_ptr<syntax::Document> doc;
  int64_t version = 0;
};

struct Job {
  std::string text;
  int64_t version;
};

class Server {
 public:
  Server() : transport_(io_, STDIN_FILENO, STDOUT_FILENO) {}

  int run() {
    worker_ = std::thread([this] { analyse(); });
    transport_.start([this](std::string body) { onMessage(body); },
                     [this](std::string why) { error(nullptr, InvalidRequest, why); }, [this] { io_.stop(); });
    io_.run();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    worker_.join();
    return shutdown_ ? 0 : 1;
  }

 private:
  void reply(const json& id, json result) { transport_.send(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}.dump()); }
  void error(const json& id, int code, const std::string& message) {
    transport_.send(json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}.dump());
  }
  void notify(const std::string& method, json params) {
    transport_.send(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}}.dump());
  }
  void log(const std::string& message) { notify("window/logMessage", {{"type", 2}, {"message", "tvms: " + message}}); }

  void onMessage(const std::string& body) {
    json msg = json::parse(body, nullptr, false);
    if (msg.is_discarded()) return error(nullptr, ParseError, "the message is not valid JSON");
    if (!msg.is_object() || !msg.contains("method") || !msg["method"].is_string())
      return error(msg.is_object() && msg.contains("id") ? msg["id"] : json(nullptr), InvalidRequest,
                   "a request needs a string \"method\"");
    const std::string method = msg["method"];
    const bool isRequest = msg.contains("id");
    const json id = isRequest ? msg["id"] : json(nullptr);
    const json params = msg.value("params", json::object());
    try {
      if (method == "exit") return io_.stop();
      if (!initialized_ && method != "initialize") {
        if (isRequest) error(id, ServerNotInitialized, "the server is not initialized yet");
        return;
      }
      if (method == "initialize") return initialize(id, params);
      if (method == "initialized" || method.rfind("$/", 0) == 0) return;
      if (method == "shutdown") { shutdown_ = true; return reply(id, nullptr); }
      if (method == "textDocument/didOpen") return didOpen(params);
      if (method == "textDocument/didChange") return didChange(params);
      if (method == "textDocument/didClose") return didClose(params);
      if (method == "textDocument/didSave") return;
      if (method == "tvms/documentText") return documentText(id, params);
      if (method == "textDocument/hover") return hover(id, params);
      if (method == "textDocument/codeAction") return codeAction(id, params);
      if (method == "textDocument/formatting") return formatting(id, params);
      if (method == "textDocument/definition" || method == "textDocument/references" ||
          method == "textDocument/documentHighlight")
        return names(id, method, params);
      if (method == "textDocument/documentSymbol") return symbols(id, params);
      if (method == "textDocument/inlayHint") return hints(id, params);
      if (method == "textDocument/completion") return completion(id, params);
      if (method == "tvms/status") return status(id);
      if (method == "textDocument/foldingRange") return folding(id, params);
      if (method == "textDocument/selectionRange") return selection(id, params);
      if (method == "tvms/viewIR") return viewIR(id, params);
      if (isRequest) error(id, MethodNotFound, "unknown method '" + method + "'");
    } catch (const json::exception& e) {
      if (isRequest) error(id, InvalidParams, std::string("invalid params: ") + e.what());
      else log("ignored " + method + ": invalid params (" + e.what() + ")");
    }
  }

  void initialize(const json& id, const json& params) {
    encoding_ = syntax::Encoding::Utf16;
    std::string chosen = "utf-16";
    if (params.contains("capabilities") && params["capabilities"].contains("general")) {
      const json& general = params["capabilities"]["general"];
      if (general.contains("positionEncodings") && general["positionEncodings"].is_array())
        for (auto& e : general["positionEncodings"])
          if (e == "utf-8") { encoding_ = syntax::Encoding::Utf8; chosen = "utf-8"; }
    }
    initialized_ = true;
    if (params.contains("processId") && params["processId"].is_number_integer()) watchClient(params["processId"].get<int>());
    reply(id, {{"capabilities",
                {{"positionEncoding", chosen},
                 {"hoverProvider", true},
                 {"codeActionProvider", {{"codeActionKinds", json::array({"quickfix"})}}},
                 {"documentFormattingProvider", true},
                 {"definitionProvider", true},
                 {"referencesProvider", true},
                 {"documentHighlightProvider", true},
                 {"documentSymbolProvider", true},
                 {"inlayHintProvider", true},
                 {"foldingRangeProvider", true},
                 {"selectionRangeProvider", true},
                 {"completionProvider", {{"triggerCharacters", json::array({".", "\""})}}},
                 {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}}}},
               {"serverInfo", {{"name", "tvms"}, {"version", "0.1.0"}}}});
  }

  void didOpen(const json& params) {
    const json& td = params.at("textDocument");
    std::string uri = td.at("uri");
    auto& d = docs_[uri];
    d.doc = std::make_unique<syntax::Document>(td.at("text").get<std::string>());
    d.version = td.value("version", 0);
    schedule(uri, d);
  }

  void didChange(const json& params) {
    std::string uri = params.at("textDocument").at("uri");
    auto it = docs_.find(uri);
    if (it == docs_.end()) return log("didChange for a document that is not open: " + uri);
    auto& d = it->second;
    for (auto& change : params.at("contentChanges")) {
      std::string text = change.at("text");
      if (!change.contains("range")) {
        d.doc = std::make_unique<syntax::Document>(text);
        continue;
      }
      auto pos = [&](const json& p) {
        return syntax::LineCol{p.at("line").get<uint32_t>(), p.at("character").get<uint32_t>()};
      };
      syntax::LineCol a = pos(change["range"].at("start")), b = pos(change["range"].at("end"));
      uint32_t lines = d.doc->lines().lineCount();
      if (a.line >= lines || b.line >= lines || std::tie(a.line, a.column) > std::tie(b.line, b.column)) {
        log("ignored an edit of " + uri + " with a range outside the document");
        continue;
      }
      d.doc->applyEdit(a, b, text, encoding_);
    }
    d.version = params["textDocument"].value("version", d.version + 1);
    schedule(uri, d);
  }

  void didClose(const json& params) {
    std::string uri = params.at("textDocument").at("uri");
    docs_.erase(uri);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.erase(uri);
      latest_.erase(uri);
      snapshots_.erase(uri);
    }
    notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
  }

  void documentText(const json& id, const json& params) {
    std::string uri = params.at("uri");
    auto it = docs_.find(uri);
    if (it == docs_.end()) return error(id, InvalidParams, "not open: " + uri);
    reply(id, {{"text", it->second.doc->text()}, {"version", it->second.version}});
  }

  // The client's process: when it dies without saying exit, so does the server.
  void watchClient(int pid) {
    auto timer = std::make_shared<boost::asio::steady_timer>(io_);
    auto tick = std::make_shared<std::function<void()>>();
    *tick = [this, pid, timer, tick]() {
      timer->expires_after(std::chrono::milliseconds(300));
      timer->async_wait([this, pid, timer, tick](boost::system::error_code ec) {
        if (ec) return;
        if (::kill(pid, 0) != 0 && errno == ESRCH) { io_.stop(); return; }
        (*tick)();
      });
    };
    (*tick)();
  }

  // The analysed snapshot of the current version, or null (not analysed yet, or superseded).
  std::shared_ptr<const Snapshot> current(const std::string& uri) {
    auto it = docs_.find(uri);
    if (it == docs_.end()) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    auto s = snapshots_.find(uri);
    if (s == snapshots_.end() || s->second->version != it->second.version) return nullptr;
    return s->second;
  }
  uint32_t offsetOf(const Snapshot& s, const json& p) const {
    return s.doc->lines().toOffset({p.at("line").get<uint32_t>(), p.at("character").get<uint32_t>()}, encoding_);
  }

  void hover(const json& id, const json& params) {
    auto s = current(params.at("textDocument").at("uri"));
    if (!s) return error(id, ContentModified, "the document is being analysed; ask again");
    auto h = hoverAt(*s, offsetOf(*s, params.at("position")));
    if (!h) return reply(id, nullptr);
    reply(id, {{"contents", {{"kind", "markdown"}, {"value", h->markdown}}}, {"range", range(h->range, s->doc->lines())}});
  }

  void codeAction(const json& id, const json& params) {
    std::string uri = params.at("textDocument").at("uri");
    auto s = current(uri);
    if (!s) return error(id, ContentModified, "the document is being analysed; ask again");
    syntax::ByteRange r{offsetOf(*s, params.at("range").at("start")), offsetOf(*s, params.at("range").at("end"))};
    json actions = json::array();
    for (auto& f : quickFixes(*s, r)) {
      json edits = json::array();
      for (auto& e : f.edits) edits.push_back({{"range", range(e.range, s->doc->lines())}, {"newText", e.newText}});
      actions.push_back({{"title", f.title}, {"kind", "quickfix"}, {"isPreferred", f.preferred},
                         {"diagnostics", json::array({toLsp(*f.diagnostic, s->doc->lines(), uri)})},
                         {"edit", {{"changes", {{uri, edits}}}}}});
    }
    reply(id, actions);
  }

  void names(const json& id, const std::string& method, const json& params) {
    std::string uri = params.at("textDocument").at("uri");
    auto s = current(uri);
    if (!s) return error(id, ContentModified, "the document is being analysed; ask again");
    auto t = nameAt(*s, offsetOf(*s, params.at("position")));
    if (!t) return reply(id, nullptr);
    const auto& lines = s->doc->lines();
    json out = json::array();
    if (method == "textDocument/definition") {
      for (auto* n : t->all)
        if (n->isDefinition) out.push_back({{"uri", uri}, {"range", range(n->range, lines)}});
    } else if (method == "textDocument/references") {
      bool withDecl = params.contains("context") ? params["context"].value("includeDeclaration", true) : true;
      for (auto* n : t->all)
        if (withDecl || !n->isDefinition) out.push_back({{"uri", uri}, {"range", range(n->range, lines)}});
    } else {
      for (auto* n : t->all) out.push_back({{"range", range(n->range, lines)}, {"kind", n->isDefinition ? 3 : 2}});
    }
    reply(id, out);
  }

  json symbolJson(const Symbol& sym, const syntax::LineIndex& lines) const {
    int kind = sym.kind == Symbol::Kind::Module ? 2 : sym.kind == Symbol::Kind::Function ? 12 : 13;
    json children = json::array();
    for (auto& c : sym.children) children.push_back(symbolJson(c, lines));
    return {{"name", sym.name}, {"detail", sym.detail}, {"kind", kind}, {"range", range(sym.range, lines)},
            {"selectionRange", range(sym.selection, lines)}, {"children", children}};
  }

  void symbols(const json& id, const json& params) {
    auto s = current(params.at("textDocument").at("uri"));
    if (!s) return error(id, ContentModified, "the document is being analysed; ask again");
    json out = json::array();
    for (auto& sym : documentSymbols(*s)) out.push_back(symbolJson(sym, s->doc->lines()));
    reply(id, out);
  }

  void hints(const json& id, const json& params) {
    auto s = current(params.at("textDocument").at("uri"));
    if (!s) return error(id, ContentModified, "the document is being analysed; ask again");
    syntax::ByteRange r{offsetOf(*s, params.at("range").at("start")), offsetOf(*s, params.at("range").at("end"))};
    json out = json::array();
    for (auto& h : inlayHints(*s, r)) {
      auto lc = s->doc->lines().toLineCol(h.offset, encoding_);
      out.push_back({{"position", {{"line", lc.line}, {"character", lc.column}}}, {"label", h.label}, {"kind", 1}});
    }
    reply(id, out);
  }

  // Documents, resident memory and the last analysis time, for users and benchmarks.
  void status(const json& id) {
    json docs = json::array();
    for (auto& [uri, d] : docs_) docs.push_back({{"uri", uri}, {"version", d.version}, {"bytes", d.doc->text().size()}});
    long rssKb = 0;
    if (FILE* f = std::fopen("/proc/self/status", "r")) {
      char line[256];
      while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "VmRSS: %ld kB", &rssKb) == 1) break;
      std::fclose(f);
    }
    double lastMs;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      lastMs = lastAnalysisMs_;
    }
    reply(id, {{"documents", docs}, {"rssBytes", rssKb * 1024}, {"lastAnalysisMs", lastMs}});
  }

  // The module as tvms sees it after a pass. The passes come with the compiler; until then the only
  // stage is "parsed" (the parsed and deduced IR, printed canonically).
  void viewIR(const json& id, const json& params) {
    std::string uri = params.at("uri");
    std::string pass = params.value("pass", "parsed");
    if (pass != "parsed") return error(id, InvalidParams, "unknown pass '" + pass + "' (available: parsed)");
    auto s = current(uri);
    if (!s) return error(id, ContentModified, "the document is being analysed; ask again");
    std::string out;
    for (auto& region : s->lint.file.regions)
      if (region.module) out += ir::printModule(*region.module, ir::PrintOptions{}) + "\n";
    reply(id, {{"text", out}, {"pass", pass}});
  }

  void folding(const json& id, const json& params) {
    auto s = current(params.at("textDocument").at("uri"));
    if (!s) return error(id, ContentModified, "the document is being analysed; ask again");
    json out = json::array();
    for (auto& r : foldingRanges(*s)) {
      uint32_t a = s->doc->lines().lineOf(r.begin), b = s->doc->lines().lineOf(r.end ? r.end - 1 : 0);
      if (b > a) out.push_back({{"startLine", a}, {"endLine", b}});
    }
    reply(id, out);
  }

  void selection(const json& id, const json& params) {
    auto s = current(params.at("textDocument").at("uri"));
    if (!s) return error(id, ContentModified, "the document is being analysed; ask again");
    json out = json::array();
    for (auto& p : params.at("positions")) {
      auto chain = selectionChain(*s, offsetOf(*s, p));
      json node = nullptr;
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        json next = {{"range", range(*it, s->doc->lines())}};
        if (!node.is_null()) next["parent"] = node;
        node = next;
      }
      out.push_back(node.is_null() ? json{{"range", {{"start", p}, {"end", p}}}} : node);
    }
    reply(id, out);
  }

  void completion(const json& id, const json& params) {
    auto s = current(params.at("textDocument").at("uri"));
    if (!s) return error(id, ContentModified, "the document is being analysed; ask again");
    json items = json::array();
    for (auto& c : completionsAt(*s, offsetOf(*s, params.at("position")))) {
      int kind = c.kind == Completion::Kind::Function ? 3 : c.kind == Completion::Kind::Variable ? 6
                 : c.kind == Completion::Kind::Value ? 12 : 14;
      json item = {{"label", c.label}, {"kind", kind}, {"detail", c.detail}};
      if (!c.documentation.empty()) item["documentation"] = {{"kind", "markdown"}, {"value", c.documentation}};
      items.push_back(item);
    }
    reply(id, {{"isIncomplete", false}, {"items", items}});
  }

  void formatting(const json& id, const json& params) {
    std::string uri = params.at("textDocument").at("uri");
    auto it = docs_.find(uri);
    if (it == docs_.end()) return error(id, InvalidParams, "not open: " + uri);
    const std::string& text = it->second.doc->text();
    auto r = format::formatSource(text);
    if (!r.changed) return reply(id, json::array());
    syntax::ByteRange all{0, static_cast<uint32_t>(text.size())};
    reply(id, json::array({{{"range", range(all, it->second.doc->lines())}, {"newText", r.text}}}));
  }

  // The worker analyses a copy of the text; only the newest version of a document is published.
  void schedule(const std::string& uri, const OpenDocument& d) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_[uri] = Job{d.doc->text(), d.version};
      latest_[uri] = d.version;
    }
    wake_.notify_one();
  }

  void analyse() {
    for (;;) {
      std::string uri;
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
        if (stopping_) return;
        auto it = pending_.begin();
        uri = it->first;
        job = std::move(it->second);
        pending_.erase(it);
      }
      auto started = std::chrono::steady_clock::now();
      auto snap = std::make_shared<Snapshot>();
      snap->doc = std::make_unique<syntax::Document>(job.text);
      snap->lint = analysis::lintDocument(*snap->doc);
      snap->version = job.version;
      json diags = json::array();
      for (auto& d : snap->lint.diagnostics) diags.push_back(toLsp(d, snap->doc->lines(), uri));
      {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = latest_.find(uri);
        if (it == latest_.end() || it->second != job.version) continue;  // superseded or closed
        snapshots_[uri] = snap;
        lastAnalysisMs_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
      }
      notify("textDocument/publishDiagnostics", {{"uri", uri}, {"version", job.version}, {"diagnostics", diags}});
    }
  }

  json range(syntax::ByteRange r, const syntax::LineIndex& lines) const {
    auto a = lines.toLineCol(r.begin, encoding_), b = lines.toLineCol(r.end, encoding_);
    return {{"start", {{"line", a.line}, {"character", a.column}}}, {"end", {{"line", b.line}, {"character", b.column}}}};
  }

  json toLsp(const diag::Diagnostic& d, const syntax::LineIndex& lines, const std::string& uri) const {
    int severity = d.severity == diag::Severity::Error ? 1 : d.severity == diag::Severity::Warning ? 2 : 3;
    json out = {{"range", range(d.range, lines)}, {"severity", severity}, {"code", d.code}, {"source", "tvms"},
                {"message", d.message}};
    if (!d.related.empty()) {
      json rel = json::array();
      for (auto& r : d.related) rel.push_back({{"location", {{"uri", uri}, {"range", range(r.range, lines)}}}, {"message", r.message}});
      out["relatedInformation"] = rel;
    }
    if (d.code == "TVS900") out["tags"] = json::array({1});  // unnecessary
    return out;
  }

  boost::asio::io_context io_;
  Transport transport_;
  bool initialized_ = false, shutdown_ = false;
  syntax::Encoding encoding_ = syntax::Encoding::Utf16;
  std::map<std::string, OpenDocument> docs_;  // owned by the reader thread

  std::thread worker_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::map<std::string, Job> pending_;
  std::map<std::string, int64_t> latest_;
  std::map<std::string, std::shared_ptr<const Snapshot>> snapshots_;
  double lastAnalysisMs_ = 0;
};

}  // namespace

int runLanguageServer() {
  Server s;
  return s.run();
}

}  // namespace tvms::server
