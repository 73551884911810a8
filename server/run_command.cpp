// The tvms.run command (run_command.h).
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "server/run_command.h"

#include <sstream>

namespace tvms::server {

namespace {

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

std::variant<RunRequest, std::string> readRunRequest(const json& params) {
  const std::string command = params.at("command");
  if (command != "tvms.run") return "unknown command '" + command + "' (commands: tvms.run)";
  const json args = params.value("arguments", json::array());
  if (!args.is_array() || args.empty()) return std::string("tvms.run needs arguments: {uri, function, inputs}");
  json a = args[0].is_object() ? args[0] : json{{"uri", args[0]}};
  if (!args[0].is_object()) {
    if (args.size() > 1) a["function"] = args[1];
    if (args.size() > 2) a["inputs"] = args[2];
  }
  RunRequest r;
  r.uri = a.at("uri");
  r.function = a.value("function", r.function);
  r.inputs = a.value("inputs", json::object());
  r.device = a.value("device", json::object());
  r.timeoutMs = a.value("timeoutMs", r.timeoutMs);
  r.outputDir = a.value("outputDir", "");
  if (a.contains("params") && a["params"].is_string()) r.weightsFile = a["params"].get<std::string>();
  else if (a.contains("params") && !a["params"].is_null()) return std::string("tvms.run: params is the path of a .safetensors or .npz file");
  if (!r.inputs.is_object() || !r.device.is_object()) return std::string("tvms.run: inputs and device are objects of strings");
  if (r.timeoutMs <= 0) return std::string("tvms.run: timeoutMs must be positive");
  return r;
}

std::vector<std::string> runCommandLine(const std::string& executable, const RunRequest& r, const std::string& source,
                                        const std::string& documentPath) {
  std::vector<std::string> argv{executable, "run", source, "--entry", r.function, "--format", "json", "--progress", "--random-missing"};
  for (auto& [name, spec] : r.inputs.items()) argv.push_back("--input"), argv.push_back(name + "=" + spec.get<std::string>());
  for (auto& [from, to] : r.device.items()) argv.push_back("--device"), argv.push_back(from + "=" + to.get<std::string>());
  if (!r.outputDir.empty()) argv.push_back("--output"), argv.push_back(r.outputDir);
  // A weights file (tvms.run.params): relative to the document's folder, as a user writes it there.
  if (!r.weightsFile.empty()) {
    std::filesystem::path weights(r.weightsFile);
    if (weights.is_relative() && !documentPath.empty()) weights = std::filesystem::path(documentPath).parent_path() / weights;
    argv.push_back("--params"), argv.push_back(weights.string());
  }
  return argv;
}

RunCommands::RunCommands(boost::asio::io_context& io, std::string executable, Host host)
    : io_(io), executable_(std::move(executable)), host_(std::move(host)) {}

void RunCommands::execute(const json& id, const json& params) {
  auto read = readRunRequest(params);
  if (auto* why = std::get_if<std::string>(&read)) return host_.error(id, InvalidParams, *why);
  const RunRequest& r = std::get<RunRequest>(read);
  // The document as the user sees it (unsaved edits included) on the child's stdin, read as the file
  // /dev/stdin (nothing is written to disk), or the file when it is not open.
  const std::string documentPath = pathOfUri(r.uri);
  std::string source = documentPath;
  const std::string* text = host_.openText(r.uri);
  if (text) source = ChildProcess::kStdinPath;
  else if (source.empty() || !std::filesystem::exists(source)) return host_.error(id, InvalidParams, "tvms.run: not open and not a file: " + r.uri);
  std::vector<std::string> argv = runCommandLine(executable_, r, source, documentPath);

  const std::string key = id.dump();
  if (runs_.count(key)) return host_.error(id, InvalidRequest, "a request with this id is already running");
  Running& run = runs_[key];
  run.id = id;
  run.source = source;
  run.function = r.function;
  const std::string shownAs = documentPath.empty() ? r.uri : documentPath;
  const int64_t timeoutMs = r.timeoutMs;
  std::string why;
  run.child = ChildProcess::start(
      io_, argv, std::chrono::milliseconds(timeoutMs),
      [this, key](const std::string& line) {
        if (line.rfind(kProgressPrefix, 0) == 0) report(key, "report", line.substr(kProgressPrefix.size()));
      },
      [this, key, shownAs, timeoutMs](const ChildProcess::Result& result) { finished(key, result, shownAs, timeoutMs); }, &why, text);
  if (!run.child) {
    runs_.erase(key);
    return host_.error(id, RequestFailed, "tvms.run: " + why);
  }
  // Progress: the client's token, else one the server creates when the client allows it.
  if (params.contains("workDoneToken")) {
    run.token = params["workDoneToken"];
    report(key, "begin", "compiling");
  } else if (host_.clientProgress()) {
    json token = "tvms-run-" + std::to_string(++tokens_);
    host_.request("window/workDoneProgress/create", {{"token", token}}, [this, key, token](const json&, bool ok) {
      auto it = runs_.find(key);
      if (!ok || it == runs_.end()) return;
      it->second.token = token;
      report(key, "begin", "compiling");
    });
  }
}

void RunCommands::report(const std::string& key, const std::string& kind, const std::string& message) {
  auto it = runs_.find(key);
  if (it == runs_.end() || it->second.token.is_null()) return;
  Running& run = it->second;
  if (kind != "begin" && !run.progressBegun) return;
  json value = {{"kind", kind}, {"message", message}};
  if (kind == "begin") {
    value["title"] = "tvms: run " + run.function;
    value["cancellable"] = true;
    run.progressBegun = true;
  }
  host_.notify("$/progress", {{"token", run.token}, {"value", value}});
}

void RunCommands::finished(const std::string& key, const ChildProcess::Result& r, const std::string& shownAs, int64_t timeoutMs) {
  auto it = runs_.find(key);
  if (it == runs_.end()) return;
  const json id = it->second.id;
  const std::string function = it->second.function, source = it->second.source;
  bool ok = !r.cancelled && !r.timedOut && r.signal == 0 && r.exitCode == 0;
  report(key, "end", ok ? "done" : "failed");
  runs_.erase(it);  // the child object stays alive until this callback returns
  std::string errors = childErrors(r.err, source, shownAs);
  if (r.cancelled) return host_.error(id, RequestCancelled, "tvms.run: cancelled; the run of " + function + " was stopped");
  if (r.timedOut)
    return host_.error(id, RequestFailed, "tvms.run: " + function + " did not finish within " + std::to_string(timeoutMs) +
                                              " ms; the run was stopped (raise timeoutMs to allow longer runs)");
  if (r.signal)
    return host_.error(id, RequestFailed, "tvms.run: the run of " + function + " crashed (" + signalName(r.signal) +
                                              "); the language server is unaffected" + (errors.empty() ? "" : "\n" + errors));
  if (r.exitCode != 0)
    return host_.error(id, RequestFailed, errors.empty() ? "tvms.run: the run failed (exit code " + std::to_string(r.exitCode) + ")" : errors);
  json result = json::parse(r.out, nullptr, false);
  if (result.is_discarded() || !result.is_object()) return host_.error(id, RequestFailed, "tvms.run: the run printed no summary");
  result["uri"] = shownAs;
  host_.reply(id, result);
}

bool RunCommands::cancel(const json& id) {
  auto it = runs_.find(id.dump());
  if (it == runs_.end()) return false;
  it->second.child->cancel();  // finished() answers RequestCancelled
  return true;
}

void RunCommands::cancelProgress(const json& params) {
  if (!params.contains("token")) return;
  for (auto& [key, run] : runs_)
    if (run.token == params["token"]) run.child->cancel();
}

}  // namespace tvms::server
