#pragma once
// The language server's state on the reader thread: the open documents (document_store.h), requests
// waiting for their document's analysis, settings. The methods answered are a table (methods.cpp); the
// lifecycle is in server.cpp, the feature requests in requests.cpp, the run command in run_command.cpp.
#include <chrono>
#include <list>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <boost/asio/thread_pool.hpp>

#include "compiler/analysis/lint.h"
#include "config/project_config.h"
#include "server/child_process.h"
#include "server/document_store.h"
#include "server/run_command.h"
#include "server/lsp_json.h"
#include "server/transport.h"
#include "server/worker.h"

namespace tvms::server {

// What the client configured (initializationOptions, workspace/didChangeConfiguration). Rule lists
// given here replace the ones of [tool.tvms].
struct ClientSettings {
  std::optional<std::vector<std::string>> select, extendSelect, ignore;
  std::chrono::milliseconds debounce{30};
};

class Server {
 public:
  // Serves inFd/outFd; `runExecutable` is the tvms binary the run command starts (this one, except
  // in the fuzzer, which must not start itself).
  Server(int inFd, int outFd, std::string runExecutable);
  int run();

  // Requests answered from a document's analysis get it as a locked Snapshot of the latest version.
  using Handler = void (Server::*)(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  // A method the server answers (methods.cpp holds the table): a request on a document, answered from
  // its analysis (`document`, the URI read from the params by `uri`), or anything else (`plain`,
  // given the id, null for a notification, and the params).
  struct Method {
    enum class Kind { DocumentRequest, Plain } kind;
    std::function<void(Server&, const json& id, const json& params)> plain;
    Handler document;
    const json& (*uri)(const json& params);
  };

 private:
  friend struct Requests;
  void reply(const json& id, json result);
  void error(const json& id, int code, const std::string& message);
  void notify(const std::string& method, json params);
  void log(const std::string& message);

  static const std::unordered_map<std::string_view, Method>& methods();
  void onMessage(const std::string& body);
  void initialize(const json& id, const json& params);
  void initialized();  // the client's notification after initialize: ask to be told of pyproject.toml changes
  void didOpen(const json& params);
  void didChange(const json& params);
  void didClose(const json& params);
  void didChangeConfiguration(const json& params);
  void didChangeWatchedFiles(const json& params);
  void reanalyseAll();
  void cancel(const json& params);
  void watchClient(int pid);

  // Runs `h` now when the document's analysis is of its latest version, else when it is.
  void withSnapshot(const json& id, const json& params, const std::string& uri, Handler h);
  void analysisFinished(const std::string& uri, int64_t version);  // worker thread
  void answerWaiting(const std::string& uri);

  // The document's [tool.tvms] (nearest pyproject.toml), a problem in it shown once.
  config::Config projectConfigFor(const std::string& uri);
  analysis::RuleSelection rulesFor(const std::string& uri);
  void readSettings(const json& settings);
  syntax::Encoding enc() const { return encoding_; }

  // requests.cpp
  void hover(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void codeAction(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void definition(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void typeDefinition(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void documentLinks(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void semanticTokensRange(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void prepareCallHierarchy(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void incomingCalls(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void outgoingCalls(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void hierarchyCalls(const json& id, const json& params, const std::string& uri, const Snapshot& s, bool incoming);
  json callHierarchyItem(const CallableAt& c, const std::string& uri, const Snapshot& s) const;
  void references(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void highlight(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void prepareRename(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void rename(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void symbols(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void hints(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void completion(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void signatureHelp(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void semanticTokensFull(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void semanticTokensDelta(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void folding(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void selection(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void pullDiagnostics(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void viewIR(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  void workspaceSymbol(const json& id, const json& params);
  void formatting(const json& id, const json& params, bool rangeOnly);
  void status(const json& id);
  void documentText(const json& id, const json& params);
  json diagnosticsOf(const Snapshot& s, const std::string& uri) const;

  void codeLens(const json& id, const json& params, const std::string& uri, const Snapshot& s);
  // Requests from the server to the client, and their answers.
  void sendRequest(const std::string& method, json params, std::function<void(const json& result, bool ok)> onAnswer);
  void onResponse(const json& msg);
  // LSP's relative encoding of the semantic tokens, of those starting inside `within` when given.
  std::vector<uint32_t> encodeTokens(const Snapshot& s, std::optional<syntax::ByteRange> within = std::nullopt) const;

  boost::asio::io_context io_;
  // Formatting and tvms/viewIR run here, off the loop that reads messages (they took the server's
  // whole attention for as long as they ran); their answers come back through io_.
  boost::asio::thread_pool background_{1};
  Transport transport_;
  bool initialized_ = false, shutdown_ = false;
  bool pullDiagnostics_ = false;  // the client asks (textDocument/diagnostic); nothing is pushed
  syntax::Encoding encoding_ = syntax::Encoding::Utf16;
  ClientSettings settings_;
  std::string rulesDoc_;  // file URI of docs/rules.md, for codeDescription
  bool watchFilesDynamically_ = false;  // the client registers file watchers for us (pyproject.toml)
  std::set<std::string> reportedConfigErrors_;  // a bad [tool.tvms] is shown once, until it changes
  std::string runExecutable_;
  DocumentStore docs_;

  struct Waiting {
    json id, params;
    std::string uri;
    Handler handler;
  };
  std::list<Waiting> waiting_;
  // The last semantic tokens sent per document, for deltas: result id -> data.
  std::map<std::string, std::pair<std::string, std::vector<uint32_t>>> tokens_;
  uint64_t tokenResults_ = 0;

  RunCommands runs_;  // tvms.run in child processes
  std::map<std::string, std::function<void(const json&, bool)>> pendingRequests_;
  uint64_t serverRequests_ = 0;
  bool clientProgress_ = false;  // the client accepts window/workDoneProgress/create

  std::unique_ptr<AnalysisWorker> worker_;  // last: its thread calls back into the members above
};

}  // namespace tvms::server
