// The language server: lifecycle, dispatch, text synchronisation, settings, and requests that wait
// for their document's analysis (answered when it is ready, or cancelled with $/cancelRequest).
#include "server/server.h"

#include <unistd.h>

#include <csignal>
#include <filesystem>

#include "config/project_config.h"
#include "runtime/self_path.h"
#include "server/session.h"

namespace tvms::server {

namespace {

// The documentation of the rules shipped beside the binary (build/bin/tvms -> docs/rules.md).
std::string findRulesDoc() {
  std::error_code ec;
  auto exe = runtime::selfExecutable();
  if (exe.empty()) return "";
  for (auto rel : {"../../docs/rules.md", "../share/tvms/rules.md"}) {
    auto p = (exe.parent_path() / rel).lexically_normal();
    if (std::filesystem::exists(p, ec)) return "file://" + p.string();
  }
  return "";
}

std::optional<std::vector<std::string>> stringList(const json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_array()) return std::nullopt;
  std::vector<std::string> out;
  for (auto& v : j[key])
    if (v.is_string()) out.push_back(v);
  return out;
}

}  // namespace

Server::Server(int inFd, int outFd, std::string runExecutable)
    : transport_(io_, inFd, outFd),
      rulesDoc_(findRulesDoc()),
      runExecutable_(runExecutable),
      runs_(io_, std::move(runExecutable),
            RunCommands::Host{[this](const json& id, json result) { reply(id, std::move(result)); },
                              [this](const json& id, int code, const std::string& message) { error(id, code, message); },
                              [this](const std::string& method, json params) { notify(method, std::move(params)); },
                              [this](const std::string& method, json params, std::function<void(const json&, bool)> onAnswer) {
                                sendRequest(method, std::move(params), std::move(onAnswer));
                              },
                              [this](const std::string& uri) -> const std::string* {
                                const OpenDocument* d = docs_.find(uri);
                                return d ? &d->text : nullptr;
                              },
                              [this] { return clientProgress_; }}) {}

int Server::run() {
  worker_ = std::make_unique<AnalysisWorker>([this](const std::string& uri, int64_t v) { analysisFinished(uri, v); },
                                             [this](const std::string& uri, const std::string& what) {
                                               log("the analysis of " + uri + " failed (" + what + "); please report it with the file");
                                             });
  transport_.start([this](std::string body) { onMessage(body); },
                   [this](std::string why) { error(nullptr, InvalidRequest, why); }, [this] { io_.stop(); });
  io_.run();
  background_.join();  // formatting or a view in flight finishes; its answer is dropped with io_ stopped
  // The worker's last callback (analysisFinished) reads worker_: stop it while worker_ still points
  // at it, then free it. (reset() alone cleared the pointer first and joined after: a callback in
  // that window crashed the server at exit, one run in four in the LSP tests.)
  worker_->stop();
  worker_.reset();
  return shutdown_ ? 0 : 1;
}

void Server::reply(const json& id, json result) {
  transport_.send(wireText(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}));
}
void Server::error(const json& id, int code, const std::string& message) {
  transport_.send(wireText(json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}));
}
void Server::notify(const std::string& method, json params) {
  transport_.send(wireText(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}}));
}
void Server::log(const std::string& message) { notify("window/logMessage", {{"type", 2}, {"message", "tvms: " + message}}); }

void Server::onMessage(const std::string& body) {
  // LSP's own messages nest a few levels (a workspace edit ~8); 256 leaves room and keeps the
  // parser's recursion far from the stack's end.
  if (nestsDeeperThan(body, 256)) return error(nullptr, InvalidRequest, "the message nests arrays or objects deeper than 256 levels");
  json msg = json::parse(body, nullptr, false);
  if (msg.is_discarded()) return error(nullptr, ParseError, "the message is not valid JSON");
  if (msg.is_object() && !msg.contains("method") && msg.contains("id") && (msg.contains("result") || msg.contains("error")))
    return onResponse(msg);  // the client's answer to a request of the server
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
    if (method == "initialize") {
      // The LSP allows one: a second is an error, and the session stays as the first one made it.
      if (initialized_) return error(id, InvalidRequest, "the server is already initialized");
      return initialize(id, params);
    }
    auto m = methods().find(method);
    if (m == methods().end()) {
      // `$/` notifications the server does not know may be ignored (LSP); other unknown requests are errors.
      if (isRequest && method.rfind("$/", 0) != 0) error(id, MethodNotFound, "unknown method '" + method + "'");
      return;
    }
    if (m->second.kind == Method::Kind::Plain) return m->second.plain(*this, id, params);
    if (isRequest) return withSnapshot(id, params, m->second.uri(params).get<std::string>(), m->second.document);
  } catch (const json::exception& e) {
    if (isRequest) error(id, InvalidParams, std::string("invalid params: ") + e.what());
    else log("ignored " + method + ": invalid params (" + e.what() + ")");
  }
}

void Server::initialized() {
  // pyproject.toml's [tool.tvms] changes the rules: ask the client to tell us when it changes.
  if (watchFilesDynamically_)
    sendRequest("client/registerCapability",
                {{"registrations", json::array({{{"id", "tvms-pyproject"}, {"method", "workspace/didChangeWatchedFiles"},
                                                 {"registerOptions", {{"watchers", json::array({{{"globPattern", "**/pyproject.toml"}}})}}}}})}},
                [](const json&, bool) {});
}

void Server::initialize(const json& id, const json& params) {
  encoding_ = syntax::Encoding::Utf16;
  std::string chosen = "utf-16";
  const json caps = params.value("capabilities", json::object());
  if (caps.contains("general") && caps["general"].contains("positionEncodings") && caps["general"]["positionEncodings"].is_array())
    for (auto& e : caps["general"]["positionEncodings"])
      if (e == "utf-8") { encoding_ = syntax::Encoding::Utf8; chosen = "utf-8"; }
  clientProgress_ = caps.contains("window") && caps["window"].is_object() && caps["window"].value("workDoneProgress", false);
  pullDiagnostics_ = caps.contains("textDocument") && caps["textDocument"].is_object() && caps["textDocument"].contains("diagnostic");
  watchFilesDynamically_ = caps.contains("workspace") && caps["workspace"].is_object() &&
                           caps["workspace"].contains("didChangeWatchedFiles") && caps["workspace"]["didChangeWatchedFiles"].is_object() &&
                           caps["workspace"]["didChangeWatchedFiles"].value("dynamicRegistration", false);
  if (params.contains("initializationOptions") && params["initializationOptions"].is_object())
    readSettings(params["initializationOptions"]);
  initialized_ = true;
  if (params.contains("processId") && params["processId"].is_number_integer()) watchClient(params["processId"].get<int>());
  json capabilities = {
      {"positionEncoding", chosen},
      {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
      {"hoverProvider", true},
      {"codeActionProvider", {{"codeActionKinds", json::array({"quickfix"})}}},
      {"documentFormattingProvider", true},
      {"documentRangeFormattingProvider", true},
      {"definitionProvider", true},
      {"declarationProvider", true},
      {"callHierarchyProvider", true},
      {"typeDefinitionProvider", true},
      {"documentLinkProvider", {{"resolveProvider", false}}},
      {"referencesProvider", true},
      {"documentHighlightProvider", true},
      {"renameProvider", {{"prepareProvider", true}}},
      {"documentSymbolProvider", true},
      {"workspaceSymbolProvider", true},
      {"inlayHintProvider", {{"resolveProvider", true}}},
      {"codeLensProvider", {{"resolveProvider", true}}},
      {"executeCommandProvider", {{"commands", json::array({"tvms.run"})}}},
      {"foldingRangeProvider", true},
      {"selectionRangeProvider", true},
      {"completionProvider", {{"triggerCharacters", json::array({".", "\""})}}},
      {"signatureHelpProvider", {{"triggerCharacters", json::array({"(", ","})}}},
      {"semanticTokensProvider",
       {{"legend", {{"tokenTypes", semanticTokenTypes()}, {"tokenModifiers", semanticTokenModifiers()}}},
        {"full", {{"delta", true}}}, {"range", true}}},
  };
  if (pullDiagnostics_) capabilities["diagnosticProvider"] = {{"interFileDependencies", false}, {"workspaceDiagnostics", false}};
  reply(id, {{"capabilities", capabilities}, {"serverInfo", {{"name", "tvms"}, {"version", TVMS_VERSION}}}});
}

void Server::readSettings(const json& raw) {
  const json& s = raw.contains("tvms") && raw["tvms"].is_object() ? raw["tvms"] : raw;
  const json lint = s.contains("lint") && s["lint"].is_object() ? s["lint"] : s;
  settings_.select = stringList(lint, "select");
  settings_.extendSelect = stringList(lint, "extendSelect");
  settings_.ignore = stringList(lint, "ignore");
  if (s.contains("debounceMs") && s["debounceMs"].is_number_integer())
    settings_.debounce = std::chrono::milliseconds(std::max<int64_t>(0, s["debounceMs"].get<int64_t>()));
  if (worker_) worker_->setDebounce(settings_.debounce);
}

config::Config Server::projectConfigFor(const std::string& uri) {
  config::Config project;
  std::string path = pathOfUri(uri);
  if (!path.empty()) {
    std::vector<std::string> errors;
    if (!config::loadConfig(path, project, &errors)) {
      std::string message = "tvms: " + (errors.empty() ? std::string("invalid [tool.tvms]") : errors[0]);
      // Once per distinct problem, not on every open (a file watcher's change clears the memory).
      if (reportedConfigErrors_.insert(message).second) {
        for (auto& e : errors) log(e);
        notify("window/showMessage", {{"type", 2}, {"message", message}});
      }
    }
  }
  return project;
}

analysis::RuleSelection Server::rulesFor(const std::string& uri) {
  analysis::RuleSelection rules = projectConfigFor(uri).rules;
  if (settings_.select) rules.select = *settings_.select;
  if (settings_.extendSelect) rules.extendSelect = *settings_.extendSelect;
  if (settings_.ignore) rules.ignore = *settings_.ignore;
  return rules;
}

void Server::didChangeConfiguration(const json& params) {
  if (params.contains("settings") && params["settings"].is_object()) readSettings(params["settings"]);
  reanalyseAll();
}

void Server::reanalyseAll() {
  for (auto& [uri, d] : docs_.all()) worker_->reset(uri, d->text, d->version, rulesFor(uri));
}

// A pyproject.toml changed (created, edited, deleted): every document's rules are read again, and a
// configuration problem is reported again if it is still there.
void Server::didChangeWatchedFiles(const json& params) {
  bool config = false;
  if (params.contains("changes") && params["changes"].is_array())
    for (auto& c : params["changes"]) {
      std::string uri = c.value("uri", "");
      config |= uri.size() >= 14 && uri.compare(uri.size() - 14, 14, "pyproject.toml") == 0;
    }
  if (!config) return;
  reportedConfigErrors_.clear();
  reanalyseAll();
}

void Server::didOpen(const json& params) {
  const json& td = params.at("textDocument");
  std::string uri = td.at("uri");
  OpenDocument& d = docs_.open(uri, td.at("text").get<std::string>(), td.value("version", 0));
  worker_->setDebounce(settings_.debounce);
  worker_->reset(uri, d.text, d.version, rulesFor(uri));
}

void Server::didChange(const json& params) {
  std::string uri = params.at("textDocument").at("uri");
  std::optional<int64_t> version;
  if (params["textDocument"].contains("version")) version = params["textDocument"]["version"].get<int64_t>();
  auto changed = docs_.change(uri, params.at("contentChanges"), version, encoding_);
  if (!changed) return log("didChange for a document that is not open: " + uri);
  for (size_t i = 0; i < changed->ignored; ++i) log("ignored an edit of " + uri + " with a range outside the document");
  OpenDocument& d = *docs_.find(uri);
  if (changed->whole) worker_->reset(uri, d.text, d.version, rulesFor(uri));
  else worker_->change(uri, std::move(changed->edits), d.text, d.version);
}

void Server::didClose(const json& params) {
  std::string uri = params.at("textDocument").at("uri");
  docs_.close(uri);
  tokens_.erase(uri);
  worker_->close(uri);
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (it->uri != uri) { ++it; continue; }
    error(it->id, ContentModified, "the document was closed");
    it = waiting_.erase(it);
  }
  if (!pullDiagnostics_) notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
}

void Server::cancel(const json& params) {
  if (!params.contains("id")) return;
  if (runs_.cancel(params["id"])) return;
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it)
    if (it->id == params["id"]) {
      error(it->id, RequestCancelled, "cancelled");
      waiting_.erase(it);
      return;
    }
  // Not waiting: answered already (requests that need no analysis are answered at once).
}

void Server::withSnapshot(const json& id, const json& params, const std::string& uri, Handler h) {
  OpenDocument* d = docs_.find(uri);
  if (!d) return error(id, InvalidParams, "not open: " + uri);
  auto a = worker_->analysed(uri);
  if (!a || a->version.load() != d->version) {
    waiting_.push_back({id, params, uri, h});
    return;
  }
  // The worker touches this analysis only once a newer version exists, and only this thread makes one.
  std::lock_guard<std::mutex> lock(a->mutex);
  try {
    (this->*h)(id, params, uri, a->snapshot);
  } catch (const json::exception& e) {
    error(id, InvalidParams, std::string("invalid params: ") + e.what());
  }
}

void Server::analysisFinished(const std::string& uri, int64_t version) {
  if (!pullDiagnostics_) {
    auto a = worker_->analysed(uri);
    if (!a) return;
    json diags;
    {
      std::lock_guard<std::mutex> lock(a->mutex);
      if (a->version.load() != version) return;
      diags = diagnosticsOf(a->snapshot, uri);
    }
    notify("textDocument/publishDiagnostics", {{"uri", uri}, {"version", version}, {"diagnostics", diags}});
  }
  boost::asio::post(io_, [this, uri] { answerWaiting(uri); });
}

void Server::answerWaiting(const std::string& uri) {
  std::list<Waiting> ready;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    auto next = std::next(it);
    if (it->uri == uri) ready.splice(ready.end(), waiting_, it);
    it = next;
  }
  for (auto& w : ready) withSnapshot(w.id, w.params, w.uri, w.handler);  // waits again if superseded
}

json Server::diagnosticsOf(const Snapshot& s, const std::string& uri) const {
  json out = json::array();
  for (auto& d : s.lint.diagnostics) out.push_back(lspDiagnostic(d, s.doc->lines(), encoding_, uri, rulesDoc_));
  return out;
}

// The client's process: when it dies without saying exit, so does the server.
void Server::watchClient(int pid) {
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

int runLanguageServer() { return runLanguageServer(STDIN_FILENO, STDOUT_FILENO, runtime::selfExecutable().string()); }

int runLanguageServer(int inFd, int outFd, const std::string& runExecutable) {
  Server s(inFd, outFd, runExecutable);
  return s.run();
}

// Requests from the server to the client, and their answers.
void Server::sendRequest(const std::string& method, json params, std::function<void(const json&, bool)> onAnswer) {
  std::string id = "tvms-" + std::to_string(++serverRequests_);
  pendingRequests_[id] = std::move(onAnswer);
  transport_.send(wireText(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}));
}

void Server::onResponse(const json& msg) {
  if (!msg["id"].is_string()) return;
  auto it = pendingRequests_.find(msg["id"].get<std::string>());
  if (it == pendingRequests_.end()) return;
  auto answer = std::move(it->second);
  pendingRequests_.erase(it);
  answer(msg.value("result", json()), !msg.contains("error"));
}

}  // namespace tvms::server
