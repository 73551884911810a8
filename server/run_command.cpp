// workspace/executeCommand "tvms.run": compiles and runs a function of the document in a child
// process (`tvms run --format json --progress` on the document's current text), reports the child's
// stages as $/progress, stops it on $/cancelRequest, window/workDoneProgress/cancel or a timeout, and
// answers with the run's summary. A crash or hang in a kernel is the child's, never the server's.
// Also the "Run main" code lenses that invoke it.
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "server/session.h"

namespace tvms::server {

namespace {

constexpr int64_t kDefaultTimeoutMs = 300000;
const std::string kProgressPrefix = "tvms-progress: ";

// The child's stderr as the user should see it: no progress lines, /dev/stdin named as the document.
std::string childErrors(const std::string& err, const std::string& tempFile, const std::string& shownAs) {
  std::string out, line;
  std::istringstream in(err);
  while (std::getline(in, line)) {
    if (line.rfind(kProgressPrefix, 0) == 0) continue;
    for (size_t at; !tempFile.empty() && (at = line.find(tempFile)) != std::string::npos;) line.replace(at, tempFile.size(), shownAs);
    out += line + "\n";
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  constexpr size_t kTail = 4000;
  return out.size() > kTail ? "..." + out.substr(out.size() - kTail) : out;
}

std::string signalName(int sig) {
  const char* d = ::strsignal(sig);
  return d ? d : "signal " + std::to_string(sig);
}

}  // namespace

void Server::executeCommand(const json& id, const json& params) {
  const std::string command = params.at("command");
  if (command != "tvms.run") return error(id, InvalidParams, "unknown command '" + command + "' (commands: tvms.run)");
  const json args = params.value("arguments", json::array());
  if (!args.is_array() || args.empty()) return error(id, InvalidParams, "tvms.run needs arguments: {uri, function, inputs}");
  // Either one object {uri, function, inputs, device, params, outputDir, timeoutMs} or positional (uri, function, inputs).
  json a = args[0].is_object() ? args[0] : json{{"uri", args[0]}};
  if (!args[0].is_object()) {
    if (args.size() > 1) a["function"] = args[1];
    if (args.size() > 2) a["inputs"] = args[2];
  }
  const std::string uri = a.at("uri");
  const std::string function = a.value("function", "main");
  const json inputs = a.value("inputs", json::object()), device = a.value("device", json::object());
  const int64_t timeoutMs = a.value("timeoutMs", kDefaultTimeoutMs);
  const std::string outputDir = a.value("outputDir", "");
  const std::string weightsFile = a.contains("params") && a["params"].is_string() ? a["params"].get<std::string>() : "";
  if (a.contains("params") && !a["params"].is_string() && !a["params"].is_null())
    return error(id, InvalidParams, "tvms.run: params is the path of a .safetensors or .npz file");
  if (!inputs.is_object() || !device.is_object()) return error(id, InvalidParams, "tvms.run: inputs and device are objects of strings");
  if (timeoutMs <= 0) return error(id, InvalidParams, "tvms.run: timeoutMs must be positive");

  // The document as the user sees it (unsaved edits included) on the child's stdin, read as the file
  // /dev/stdin (nothing is written to disk), or the file when it is not open.
  std::string source = pathOfUri(uri);
  const std::string* text = nullptr;
  if (const OpenDocument* d = docs_.find(uri)) {
    text = &d->text;
    source = ChildProcess::kStdinPath;
  } else if (source.empty() || !std::filesystem::exists(source)) {
    return error(id, InvalidParams, "tvms.run: not open and not a file: " + uri);
  }

  std::vector<std::string> argv{runExecutable_, "run", source, "--entry", function, "--format", "json", "--progress", "--random-missing"};
  for (auto& [name, spec] : inputs.items()) argv.push_back("--input"), argv.push_back(name + "=" + spec.get<std::string>());
  for (auto& [from, to] : device.items()) argv.push_back("--device"), argv.push_back(from + "=" + to.get<std::string>());
  if (!outputDir.empty()) argv.push_back("--output"), argv.push_back(outputDir);
  // A weights file (tvms.run.params): relative to the document's folder, as a user writes it there.
  if (!weightsFile.empty()) {
    std::filesystem::path weights(weightsFile);
    if (weights.is_relative() && !pathOfUri(uri).empty()) weights = std::filesystem::path(pathOfUri(uri)).parent_path() / weights;
    argv.push_back("--params"), argv.push_back(weights.string());
  }

  const std::string key = id.dump();
  if (runs_.count(key)) return error(id, InvalidRequest, "a request with this id is already running");
  RunningCommand& run = runs_[key];
  run.id = id;
  run.source = source;
  run.function = function;
  const std::string shownAs = pathOfUri(uri).empty() ? uri : pathOfUri(uri);
  std::string why;
  run.child = ChildProcess::start(
      io_, argv, std::chrono::milliseconds(timeoutMs),
      [this, key](const std::string& line) {
        if (line.rfind(kProgressPrefix, 0) == 0) reportProgress(key, "report", line.substr(kProgressPrefix.size()));
      },
      [this, key, shownAs, timeoutMs](const ChildProcess::Result& r) { runFinished(key, r, shownAs, timeoutMs); }, &why, text);
  if (!run.child) {
    runs_.erase(key);
    return error(id, RequestFailed, "tvms.run: " + why);
  }
  // Progress: the client's token, else one the server creates when the client allows it.
  if (params.contains("workDoneToken")) {
    run.token = params["workDoneToken"];
    reportProgress(key, "begin", "compiling");
  } else if (clientProgress_) {
    json token = "tvms-run-" + std::to_string(++serverRequests_);
    sendRequest("window/workDoneProgress/create", {{"token", token}}, [this, key, token](const json&, bool ok) {
      auto it = runs_.find(key);
      if (!ok || it == runs_.end()) return;
      it->second.token = token;
      reportProgress(key, "begin", "compiling");
    });
  }
}

void Server::reportProgress(const std::string& key, const std::string& kind, const std::string& message) {
  auto it = runs_.find(key);
  if (it == runs_.end() || it->second.token.is_null()) return;
  RunningCommand& run = it->second;
  if (kind != "begin" && !run.progressBegun) return;
  json value = {{"kind", kind}, {"message", message}};
  if (kind == "begin") {
    value["title"] = "tvms: run " + run.function;
    value["cancellable"] = true;
    run.progressBegun = true;
  }
  notify("$/progress", {{"token", run.token}, {"value", value}});
}

void Server::runFinished(const std::string& key, const ChildProcess::Result& r, const std::string& shownAs, int64_t timeoutMs) {
  auto it = runs_.find(key);
  if (it == runs_.end()) return;
  const json id = it->second.id;
  const std::string function = it->second.function, source = it->second.source;
  bool ok = !r.cancelled && !r.timedOut && r.signal == 0 && r.exitCode == 0;
  reportProgress(key, "end", ok ? "done" : "failed");
  runs_.erase(it);  // the child object stays alive until this callback returns
  std::string errors = childErrors(r.err, source, shownAs);
  if (r.cancelled) return error(id, RequestCancelled, "tvms.run: cancelled; the run of " + function + " was stopped");
  if (r.timedOut)
    return error(id, RequestFailed, "tvms.run: " + function + " did not finish within " + std::to_string(timeoutMs) +
                                        " ms; the run was stopped (raise timeoutMs to allow longer runs)");
  if (r.signal)
    return error(id, RequestFailed, "tvms.run: the run of " + function + " crashed (" + signalName(r.signal) +
                                        "); the language server is unaffected" + (errors.empty() ? "" : "\n" + errors));
  if (r.exitCode != 0) return error(id, RequestFailed, errors.empty() ? "tvms.run: the run failed (exit code " + std::to_string(r.exitCode) + ")" : errors);
  json result = json::parse(r.out, nullptr, false);
  if (result.is_discarded() || !result.is_object()) return error(id, RequestFailed, "tvms.run: the run printed no summary");
  result["uri"] = shownAs;
  reply(id, result);
}

bool Server::cancelRun(const json& id) {
  auto it = runs_.find(id.dump());
  if (it == runs_.end()) return false;
  it->second.child->cancel();  // runFinished answers RequestCancelled
  return true;
}

void Server::cancelProgress(const json& params) {
  if (!params.contains("token")) return;
  for (auto& [key, run] : runs_)
    if (run.token == params["token"]) run.child->cancel();
}

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

void Server::codeLens(const json& id, const json&, const std::string& uri, const Snapshot& s) {
  json out = json::array();
  for (auto& lens : runLenses(s))
    out.push_back({{"range", lspRange(lens.range, s.doc->lines(), enc())},
                   {"command", {{"title", "\u25B6 Run " + lens.function}, {"command", "tvms.run"},
                                {"arguments", json::array({{{"uri", uri}, {"function", lens.function}}})}}}});
  reply(id, out);
}

}  // namespace tvms::server
