#pragma once
// workspace/executeCommand "tvms.run": compiles and runs a function of a document in a child process
// (`tvms run --format json --progress` on the document's current text), reports the child's stages as
// $/progress, stops it on $/cancelRequest, window/workDoneProgress/cancel or a timeout, and answers
// with the run's summary. A crash or hang in a kernel is the child's, never the server's. What it
// needs of the server (answers, notifications, requests to the client, open documents) comes through
// RunCommands::Host, so the module knows nothing else of it.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "server/child_process.h"
#include "server/lsp_json.h"

namespace tvms::server {

// A tvms.run request's arguments: one object {uri, function, inputs, device, params, outputDir,
// timeoutMs}, or positional (uri, function, inputs).
struct RunRequest {
  std::string uri, function = "main";
  json inputs = json::object(), device = json::object();  // name -> spec, vdevice -> device
  std::string weightsFile;                                // params: a .safetensors or .npz file
  std::string outputDir;
  int64_t timeoutMs = 300000;
};
// The request, or why it is not one (an InvalidParams message).
std::variant<RunRequest, std::string> readRunRequest(const json& params);
// The child's command line: `executable run SOURCE ...`; a relative weights file is taken from the
// document's folder (`documentPath`, "" for an unsaved document).
std::vector<std::string> runCommandLine(const std::string& executable, const RunRequest& r, const std::string& source,
                                        const std::string& documentPath);

class RunCommands {
 public:
  struct Host {
    std::function<void(const json& id, json result)> reply;
    std::function<void(const json& id, int code, const std::string& message)> error;
    std::function<void(const std::string& method, json params)> notify;
    std::function<void(const std::string& method, json params, std::function<void(const json& result, bool ok)>)> request;
    std::function<const std::string*(const std::string& uri)> openText;  // an open document's text, or null
    std::function<bool()> clientProgress;  // the client accepts window/workDoneProgress/create
  };
  RunCommands(boost::asio::io_context& io, std::string executable, Host host);
  void execute(const json& id, const json& params);
  bool cancel(const json& id);               // $/cancelRequest of a running command: false when none
  void cancelProgress(const json& params);   // window/workDoneProgress/cancel

 private:
  struct Running {
    json id, token;  // token: null until progress may be reported
    bool progressBegun = false;
    std::string source, function;  // source: the path the child read (ChildProcess::kStdinPath for an open document)
    std::shared_ptr<ChildProcess> child;
  };
  void report(const std::string& key, const std::string& kind, const std::string& message);
  void finished(const std::string& key, const ChildProcess::Result& r, const std::string& shownAs, int64_t timeoutMs);

  boost::asio::io_context& io_;
  std::string executable_;
  Host host_;
  std::map<std::string, Running> runs_;  // by the request id's JSON
  uint64_t tokens_ = 0;
};

}  // namespace tvms::server
