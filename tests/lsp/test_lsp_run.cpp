// tvms.run from the editor: code lenses, workspace/executeCommand running `tvms run` in a child
// process with $/progress, the summary it answers; and the failures a server must survive: a bad
// input, a crash in the run, a run past its timeout, a cancelled run.
#include <doctest/doctest.h>
#include <unistd.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/lsp/lsp_client.h"
#include "tests/support/corpus.h"

namespace {

using nlohmann::json;
using tvms::test::Client;

const std::string kUri = "file:///tmp/tvms_run_test.py";

void open(Client& c, const std::string& text, const std::string& uri = kUri) {
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  REQUIRE(!c.diagnosticsFor(1).is_null());
}

json runArgs(json extra = json::object()) {
  json a = {{"uri", kUri}, {"function", "main"}};
  a.update(extra);
  return {{"command", "tvms.run"}, {"arguments", json::array({a})}};
}

// Collects $/progress values for `token` until the response to `id`.
json responseWithProgress(Client& c, int id, const json& token, std::vector<json>& progress) {
  for (json m = c.next(60); !m.is_null(); m = c.next(60)) {
    if (m.value("method", "") == "$/progress" && m["params"]["token"] == token) progress.push_back(m["params"]["value"]);
    if (m.contains("id") && m["id"] == id && !m.contains("method")) return m;
  }
  return nullptr;
}

// A module whose one kernel runs for many seconds (a 6144^3 matmul, ~0.5 TFLOP).
const char* kLongRun = R"(from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((8192, 8192), "float32"), b: R.Tensor((8192, 8192), "float32")) -> R.Tensor((8192, 8192), "float32"):
        c = R.matmul(a, b)
        d = R.matmul(c, b)
        e = R.matmul(d, b)
        f = R.matmul(e, b)
        return f
)";

// Builds `text` once into the tests' kernel cache (the server's children inherit TVMS_CACHE_DIR), so a
// run reaches its kernels quickly: a deadline then falls while a kernel runs, not while LLVM compiles
// it (which alone took longer than that in the AddressSanitizer build).
void primeKernelCache(const std::string& text, const std::string& name) {
  std::string path = (std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()) + ".py")).string();
  std::ofstream(path) << text;
  REQUIRE(std::system(("'" + std::string(TVMS_BINARY) + "' build '" + path + "' -o '" + path + ".tvmx' > /dev/null 2>&1").c_str()) == 0);
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".tvmx");
}

// The pids whose parent is `parent` (from /proc/<pid>/stat's fourth field).
std::vector<pid_t> childrenOf(pid_t parent) {
  std::vector<pid_t> out;
  for (auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = tvms::test::readFile(e.path().string() + "/stat");
    size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == parent) out.push_back(std::stoi(name));
  }
  return out;
}

// Gone, or a zombie nobody has reaped yet: either way it runs no more.
bool ended(pid_t pid) {
  std::string stat = tvms::test::readFile("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return true;
  size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && (stat[close + 2] == 'Z' || stat[close + 2] == 'X');
}

}  // namespace

TEST_CASE("lsp: tvms.run from the code lens runs a two-vdevice module in a child process, with progress and a summary") {
  Client c;
  c.initialize();
  std::string text = tvms::test::readFile(std::string(TVMS_SOURCE_DIR) + "/examples/multi_cpu.py");
  open(c, text);
  c.request(2, "textDocument/codeLens", {{"textDocument", {{"uri", kUri}}}});
  json lenses = c.response(2)["result"];
  REQUIRE(lenses.size() == 1);
  CHECK(lenses[0]["command"]["title"] == "\u25B6 Run main");
  // The lens sits on the decorator's line.
  size_t decorator = text.find("    @R.function");
  CHECK(lenses[0]["range"]["start"]["line"] == std::count(text.begin(), text.begin() + static_cast<long>(decorator), '\n'));
  json cmd = lenses[0]["command"];
  REQUIRE(cmd["command"] == "tvms.run");

  json params = {{"command", cmd["command"]}, {"arguments", cmd["arguments"]}, {"workDoneToken", "run-1"}};
  params["arguments"][0]["inputs"] = {{"x", "random:7"}};
  c.request(3, "workspace/executeCommand", params);
  std::vector<json> progress;
  json r = responseWithProgress(c, 3, "run-1", progress);
  INFO(r.dump());
  REQUIRE(r.contains("result"));
  json s = r["result"];
  INFO(s.dump());
  REQUIRE(s["outputs"].size() == 1);
  CHECK(s["outputs"][0]["name"] == "gv");
  CHECK(s["outputs"][0]["vdevice"] == "llvm:1");
  CHECK(s["outputs"][0]["shape"] == json::array({64, 16}));
  CHECK(s["outputs"][0]["histogram"].size() == 20);
  CHECK(s["outputs"][0]["preview"]["values"].size() == 32 * 16);
  REQUIRE(s["devices"].size() == 2);
  CHECK(s["devices"][0]["kernels"] == 1);
  CHECK(s["devices"][1]["kernels"] == 1);
  CHECK(s["copies"] == 1);
  CHECK(s["bytesCopied"] == 64 * 32 * 4);
  CHECK(s["text"].get<std::string>().find("copied between devices: 8192 bytes in 1 copies") != std::string::npos);
  // begin, the child's stages, end.
  REQUIRE(progress.size() >= 3);
  CHECK(progress.front()["kind"] == "begin");
  CHECK(progress.front()["cancellable"] == true);
  CHECK(progress.back()["kind"] == "end");
  bool sawRunning = false;
  for (auto& p : progress) sawRunning |= p["kind"] == "report" && p["message"] == "running main";
  CHECK(sawRunning);

  // Unsaved edits are what runs: rename the entry point in the buffer and run the new name.
  tvms::syntax::LineIndex lines(text);
  size_t at = text.find("def main(") + 4;
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", 2}}},
                                      {"contentChanges", json::array({tvms::test::changeAt(lines, static_cast<uint32_t>(at), static_cast<uint32_t>(at + 4), "entry")})}});
  c.request(4, "workspace/executeCommand", runArgs({{"function", "entry"}}));
  json renamed = c.response(4);
  REQUIRE(renamed.contains("result"));
  CHECK(renamed["result"]["entry"] == "entry");
}

TEST_CASE("lsp: tvms.run with a server-created progress token, and a bad input as a clear error") {
  Client c;
  c.initialize(nullptr, {{"window", {{"workDoneProgress", true}}}});
  open(c, tvms::test::readFile(std::string(TVMS_SOURCE_DIR) + "/examples/multi_cpu.py"));
  c.request(2, "workspace/executeCommand", runArgs());
  // The server asks for a token first; the client answers, then progress flows on it.
  json create;
  for (json m = c.next(); !m.is_null(); m = c.next())
    if (m.value("method", "") == "window/workDoneProgress/create") { create = m; break; }
  REQUIRE(!create.is_null());
  json token = create["params"]["token"];
  c.send({{"jsonrpc", "2.0"}, {"id", create["id"]}, {"result", nullptr}});
  std::vector<json> progress;
  json r = responseWithProgress(c, 2, token, progress);
  REQUIRE(r.contains("result"));
  REQUIRE(!progress.empty());
  CHECK(progress.front()["kind"] == "begin");
  CHECK(progress.back()["kind"] == "end");

  c.request(3, "workspace/executeCommand", runArgs({{"inputs", {{"nope", "random"}}}}));
  json bad = c.response(3);
  REQUIRE(bad.contains("error"));
  CHECK(bad["error"]["message"].get<std::string>().find("main has no parameter 'nope'") != std::string::npos);
  c.request(4, "workspace/executeCommand", runArgs({{"function", "missing"}}));
  json missing = c.response(4);
  REQUIRE(missing.contains("error"));
  CHECK(missing["error"]["message"].get<std::string>().find("no function 'missing'") != std::string::npos);
  c.request(5, "workspace/executeCommand", {{"command", "tvms.other"}, {"arguments", json::array()}});
  CHECK(c.response(5)["error"]["code"] == -32602);
}

TEST_CASE("lsp: a crash in the run is an error answer: the server stays up") {
  setenv("TVMS_FAULT_INJECT", "segv-in-run", 1);  // inherited by the server, and by its child runs
  Client c;
  unsetenv("TVMS_FAULT_INJECT");
  c.initialize();
  open(c, tvms::test::readFile(std::string(TVMS_SOURCE_DIR) + "/examples/multi_cpu.py"));
  c.request(2, "workspace/executeCommand", runArgs());
  json r = c.response(2);
  REQUIRE(r.contains("error"));
  std::string message = r["error"]["message"];
  INFO(message);
  CHECK(message.find("crashed (Segmentation fault)") != std::string::npos);
  CHECK(message.find("the language server is unaffected") != std::string::npos);
  c.request(3, "tvms/status");
  CHECK(c.response(3).contains("result"));
  c.request(4, "textDocument/codeLens", {{"textDocument", {{"uri", kUri}}}});
  CHECK(c.response(4)["result"].size() == 1);
  // The server itself never compiled a kernel, so it never mapped the code generator (nor libLLVM).
  std::string maps = tvms::test::readFile("/proc/" + std::to_string(c.pid()) + "/maps");
  REQUIRE(!maps.empty());
  CHECK(maps.find("libLLVM") == std::string::npos);
  CHECK(maps.find("libtvms_llvm_backend") == std::string::npos);
}

TEST_CASE("lsp: a run past its timeout is stopped, a cancelled run is stopped: the server stays up") {
  primeKernelCache(kLongRun, "tvms_long_run_");
  Client c;
  c.initialize();
  open(c, kLongRun);
  // Timeout: the kernel is running (progress says so) when the deadline kills the child. 8 s leaves
  // the sanitized child time to make its 2 x 256 MiB of random inputs on a loaded 2-core machine (4 s
  // did not, once); the four 8192^3 matmuls (3.5 s each on this 2-core machine) take far longer.
  c.request(2, "workspace/executeCommand", {{"command", "tvms.run"}, {"workDoneToken", "slow"},
                                            {"arguments", json::array({{{"uri", kUri}, {"timeoutMs", 8000}}})}});
  std::vector<json> progress;
  auto t0 = std::chrono::steady_clock::now();
  json r = responseWithProgress(c, 2, "slow", progress);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(r.contains("error"));
  CHECK(r["error"]["message"].get<std::string>().find("did not finish within 8000 ms") != std::string::npos);
  CHECK(seconds < 30);
  bool sawRunning = false;
  for (auto& p : progress) sawRunning |= p.value("message", "") == "running main";
  CHECK(sawRunning);
  CHECK(progress.back()["kind"] == "end");

  // Cancel: once it runs, $/cancelRequest stops it and the answer is RequestCancelled.
  c.request(3, "workspace/executeCommand", {{"command", "tvms.run"}, {"workDoneToken", "cancel-me"},
                                            {"arguments", json::array({{{"uri", kUri}}})}});
  for (json m = c.next(60); !m.is_null(); m = c.next(60))
    if (m.value("method", "") == "$/progress" && m["params"]["value"].value("message", "") == "running main") break;
  c.notify("$/cancelRequest", {{"id", 3}});
  json cancelled = c.response(3);
  REQUIRE(cancelled.contains("error"));
  CHECK(cancelled["error"]["code"] == -32800);
  c.request(4, "tvms/status");
  CHECK(c.response(4).contains("result"));
}

TEST_CASE("lsp: a run's child ends when the server is killed, and the document reached it without a temporary file") {
  primeKernelCache(kLongRun, "tvms_orphan_");
  auto runTemporaries = [] {
    int n = 0;
    for (auto& e : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
      n += e.path().filename().string().rfind("tvms-run-", 0) == 0;
    return n;
  };
  int temporaries = runTemporaries();
  Client c;
  c.initialize();
  open(c, kLongRun);
  c.request(2, "workspace/executeCommand", {{"command", "tvms.run"}, {"workDoneToken", "orphan"},
                                            {"arguments", json::array({{{"uri", kUri}}})}});
  bool running = false;
  for (json m = c.next(60); !m.is_null() && !running; m = c.next(60))
    running = m.value("method", "") == "$/progress" && m["params"]["value"].value("message", "") == "running main";
  REQUIRE(running);
  std::vector<pid_t> children = childrenOf(c.pid());
  REQUIRE(children.size() == 1);
  CHECK(runTemporaries() == temporaries);  // the document is the child's stdin, an in-memory file
  ::kill(c.pid(), SIGKILL);                // the server, this test's own child
  CHECK(c.waitExit() == 128 + SIGKILL);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!ended(children[0]) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(ended(children[0]));
  if (!ended(children[0])) ::kill(children[0], SIGKILL);
}
