// Issue 36's language-server findings: no module can take the server down through the passes of
// "Show IR after pass" (they run in a child, as runs do), a run's child ends with the server and leaves
// nothing on disk, a second initialize is an error, and rename will not shadow TVMScript's names.
#include <doctest/doctest.h>
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/lsp/lsp_client.h"
#include "tests/support/corpus.h"

using nlohmann::json;
using tvms::test::Client;

namespace {

const std::string kUri = "file:///tmp/tvms_isolation_test.py";

void open(Client& c, const std::string& text) {
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", kUri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  REQUIRE(!c.diagnosticsFor(1).is_null());
}

std::string example() { return tvms::test::readFile(std::string(TVMS_SOURCE_DIR) + "/examples/multi_cpu.py"); }

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

// A module whose kernels run for many seconds (four 4096^3 matmuls).
const char* kLongRun = R"(from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((4096, 4096), "float32"), b: R.Tensor((4096, 4096), "float32")) -> R.Tensor((4096, 4096), "float32"):
        c = R.matmul(a, b)
        d = R.matmul(c, b)
        e = R.matmul(d, b)
        f = R.matmul(e, b)
        g = R.matmul(f, b)
        h = R.matmul(g, b)
        return h
)";

}  // namespace

TEST_CASE("lsp isolation: a pass that crashes the compiler under Show IR after pass is an error answer, and the server stays up") {
  setenv("TVMS_FAULT_INJECT", "segv-in-passes", 1);  // inherited by the server and by its children
  Client c;
  unsetenv("TVMS_FAULT_INJECT");
  c.initialize();
  open(c, example());
  c.request(2, "tvms/viewIR", {{"uri", kUri}, {"pass", "LegalizeOps"}});
  json r = c.response(2);
  REQUIRE(r.contains("error"));
  std::string message = r["error"]["message"];
  INFO(message);
  CHECK(message.find("the compiler crashed (Segmentation fault)") != std::string::npos);
  CHECK(message.find("the language server is unaffected") != std::string::npos);
  // Still serving, and "parsed" (printing only) still answers in the server itself.
  c.request(3, "tvms/viewIR", {{"uri", kUri}, {"pass", "parsed"}});
  CHECK(c.response(3)["result"]["text"].get<std::string>().find("@I.ir_module") != std::string::npos);
  c.request(4, "tvms/status");
  CHECK(c.response(4).contains("result"));
}

TEST_CASE("lsp isolation: Show IR after a pass runs on the document's unsaved text in a child and shows the pass's result") {
  Client c;
  c.initialize();
  std::string text = example();
  open(c, text);
  c.request(2, "tvms/viewIR", {{"uri", kUri}, {"pass", "LegalizeOps"}});
  json r = c.response(2);
  REQUIRE(r.contains("result"));
  CHECK(r["result"]["text"].get<std::string>().find("@T.prim_func") != std::string::npos);
  // A module one of whose calls the pass cannot legalize: the module as far as it went, from the child.
  std::string bad = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
                    "    @R.function\n    def main(table: R.Tensor((4, 3), \"float32\")):\n"
                    "        y = R.take(table, R.const([[0, 1], [2, 3]], \"int64\"), axis=0)\n        return y\n";
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", 2}}}, {"contentChanges", json::array({{{"text", bad}}})}});
  REQUIRE(!c.diagnosticsFor(2).is_null());
  c.request(3, "tvms/viewIR", {{"uri", kUri}, {"pass", "LegalizeOps"}});
  json partial = c.response(3);
  REQUIRE(partial.contains("result"));
  CHECK(partial["result"]["text"].get<std::string>().find("R.take(") != std::string::npos);
}

TEST_CASE("lsp isolation: a run's child ends when the server is killed, and no temporary file is left") {
  // The kernels built once beforehand into the tests' kernel cache (the child inherits TVMS_CACHE_DIR),
  // so the run reaches its kernels quickly.
  std::string path = (std::filesystem::temp_directory_path() / ("tvms_orphan_" + std::to_string(::getpid()) + ".py")).string();
  std::ofstream(path) << kLongRun;
  REQUIRE(std::system(("'" + std::string(TVMS_BINARY) + "' build '" + path + "' -o '" + path + ".tvmx' > /dev/null 2>&1").c_str()) == 0);
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".tvmx");
  auto tempsBefore = [] {
    int n = 0;
    for (auto& e : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
      n += e.path().filename().string().rfind("tvms-run-", 0) == 0;
    return n;
  };
  int temps = tempsBefore();

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
  CHECK(tempsBefore() == temps);  // the document reached the child without a file
  ::kill(c.pid(), SIGKILL);       // the server, this test's own child
  CHECK(c.waitExit() == 128 + SIGKILL);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!ended(children[0]) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(ended(children[0]));
  if (!ended(children[0])) ::kill(children[0], SIGKILL);
}

TEST_CASE("lsp isolation: a second initialize is an error and the session goes on as the first made it") {
  Client c;
  c.initialize();
  c.request(2, "initialize", {{"processId", nullptr}, {"capabilities", json::object()}});
  json again = c.response(2);
  INFO(again.dump());
  REQUIRE(again.contains("error"));
  CHECK(again["error"]["code"] == -32600);
  CHECK(again["error"]["message"].get<std::string>().find("already initialized") != std::string::npos);
  open(c, example());
  c.request(3, "tvms/status");
  CHECK(c.response(3).contains("result"));
}

TEST_CASE("lsp isolation: rename refuses a new name that would shadow R, I, T, cls or an import") {
  Client c;
  c.initialize();
  std::string text = example();
  open(c, text);
  size_t at = text.find("lv0:");
  REQUIRE(at != std::string::npos);
  tvms::syntax::LineIndex lines(text);
  auto lc = lines.toLineCol(static_cast<uint32_t>(at), tvms::syntax::Encoding::Utf16);
  json position = {{"line", lc.line}, {"character", lc.column}};
  int id = 10;
  for (const char* name : {"R", "I", "T", "cls"}) {
    c.request(id, "textDocument/rename", {{"textDocument", {{"uri", kUri}}}, {"position", position}, {"newName", name}});
    json r = c.response(id++);
    INFO(name << ": " << r.dump());
    REQUIRE(r.contains("error"));
    CHECK(r["error"]["message"].get<std::string>().find("would shadow") != std::string::npos);
  }
  c.request(id, "textDocument/rename", {{"textDocument", {{"uri", kUri}}}, {"position", position}, {"newName", "hidden"}});
  CHECK(c.response(id).contains("result"));
}
