// The methods the server answers, one entry each: its kind and its handler. Server::onMessage looks a
// message's method up here; the lifecycle (initialize, exit, messages before initialize) stays
// there. Adding a method is one entry.
#include "server/session.h"

namespace tvms::server {

namespace {
// Where a document request names its document.
const json& textDocumentUri(const json& params) { return params.at("textDocument").at("uri"); }
const json& itemUri(const json& params) { return params.at("item").at("uri"); }  // call hierarchy's items
const json& topUri(const json& params) { return params.at("uri"); }              // tvms/viewIR
}  // namespace

const std::unordered_map<std::string_view, Server::Method>& Server::methods() {
  using K = Method::Kind;
  // Requests answered from a document's analysis: the handler gets a locked snapshot of its latest
  // version (withSnapshot), found by the URI the entry says where to read.
  auto document = [](Handler h, const json& (*uri)(const json&) = textDocumentUri) { return Method{K::DocumentRequest, nullptr, h, uri}; };
  // Everything else: called with the message's id (null for a notification) and its params.
  auto plain = [](std::function<void(Server&, const json&, const json&)> f) { return Method{K::Plain, std::move(f), nullptr, nullptr}; };
  static const std::unordered_map<std::string_view, Method> table = {
      {"textDocument/hover", document(&Server::hover)},
      {"textDocument/codeAction", document(&Server::codeAction)},
      {"textDocument/definition", document(&Server::definition)},
      {"textDocument/declaration", document(&Server::definition)},  // Relax names are declared where defined
      {"textDocument/typeDefinition", document(&Server::typeDefinition)},
      {"textDocument/documentLink", document(&Server::documentLinks)},
      {"textDocument/semanticTokens/range", document(&Server::semanticTokensRange)},
      {"textDocument/prepareCallHierarchy", document(&Server::prepareCallHierarchy)},
      {"callHierarchy/incomingCalls", document(&Server::incomingCalls, itemUri)},
      {"callHierarchy/outgoingCalls", document(&Server::outgoingCalls, itemUri)},
      {"textDocument/references", document(&Server::references)},
      {"textDocument/documentHighlight", document(&Server::highlight)},
      {"textDocument/prepareRename", document(&Server::prepareRename)},
      {"textDocument/rename", document(&Server::rename)},
      {"textDocument/documentSymbol", document(&Server::symbols)},
      {"textDocument/inlayHint", document(&Server::hints)},
      {"textDocument/completion", document(&Server::completion)},
      {"textDocument/signatureHelp", document(&Server::signatureHelp)},
      {"textDocument/semanticTokens/full", document(&Server::semanticTokensFull)},
      {"textDocument/semanticTokens/full/delta", document(&Server::semanticTokensDelta)},
      {"textDocument/foldingRange", document(&Server::folding)},
      {"textDocument/selectionRange", document(&Server::selection)},
      {"textDocument/diagnostic", document(&Server::pullDiagnostics)},
      {"textDocument/codeLens", document(&Server::codeLens)},
      {"tvms/viewIR", document(&Server::viewIR, topUri)},

      {"$/cancelRequest", plain([](Server& s, const json&, const json& p) { s.cancel(p); })},
      {"initialized", plain([](Server& s, const json&, const json&) { s.initialized(); })},
      {"shutdown", plain([](Server& s, const json& id, const json&) {
         s.shutdown_ = true;
         s.reply(id, nullptr);
       })},
      {"textDocument/didOpen", plain([](Server& s, const json&, const json& p) { s.didOpen(p); })},
      {"textDocument/didChange", plain([](Server& s, const json&, const json& p) { s.didChange(p); })},
      {"textDocument/didClose", plain([](Server& s, const json&, const json& p) { s.didClose(p); })},
      {"textDocument/didSave", plain([](Server&, const json&, const json&) {})},  // the analysis follows the edits
      {"workspace/didChangeConfiguration", plain([](Server& s, const json&, const json& p) { s.didChangeConfiguration(p); })},
      {"workspace/didChangeWatchedFiles", plain([](Server& s, const json&, const json& p) { s.didChangeWatchedFiles(p); })},
      // The lenses and hints are complete when sent: resolving one gives it back as it is.
      {"codeLens/resolve", plain([](Server& s, const json& id, const json& p) { s.reply(id, p); })},
      {"inlayHint/resolve", plain([](Server& s, const json& id, const json& p) { s.reply(id, p); })},
      {"workspace/executeCommand", plain([](Server& s, const json& id, const json& p) { s.runs_.execute(id, p); })},
      {"window/workDoneProgress/cancel", plain([](Server& s, const json&, const json& p) { s.runs_.cancelProgress(p); })},
      {"workspace/symbol", plain([](Server& s, const json& id, const json& p) { s.workspaceSymbol(id, p); })},
      {"textDocument/formatting", plain([](Server& s, const json& id, const json& p) { s.formatting(id, p, false); })},
      {"textDocument/rangeFormatting", plain([](Server& s, const json& id, const json& p) { s.formatting(id, p, true); })},
      {"tvms/status", plain([](Server& s, const json& id, const json&) { s.status(id); })},
      {"tvms/documentText", plain([](Server& s, const json& id, const json& p) { s.documentText(id, p); })},
  };
  return table;
}

}  // namespace tvms::server
