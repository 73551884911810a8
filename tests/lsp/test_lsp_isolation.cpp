// Issue 36's language-server findings: no module can take the server down through the passes of
// "Show IR after pass" (they run in a child, as runs do), a second initialize is an error, and rename
// will not shadow TVMScript's names. (A run's child ending with the server: test_lsp_run.cpp.)
#include <doctest/doctest.h>

#include <string>

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
  std::string bad = "import numpy as np\nfrom tvm.script import ir as I\nfrom tvm.script import relax as R\n\n"
                    "W = np.ones((4, 3, 3, 3), \"float32\")\n\n\n@I.ir_module\nclass Module:\n"
                    "    @R.function\n    def main(x: R.Tensor((1, 3, 8, 8), \"float32\")):\n"
                    "        y = R.nn.conv2d(x, R.const(W))\n        return y\n";
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", 2}}}, {"contentChanges", json::array({{{"text", bad}}})}});
  REQUIRE(!c.diagnosticsFor(2).is_null());
  c.request(3, "tvms/viewIR", {{"uri", kUri}, {"pass", "LegalizeOps"}});
  json partial = c.response(3);
  REQUIRE(partial.contains("result"));
  CHECK(partial["result"]["text"].get<std::string>().find("R.nn.conv2d(") != std::string::npos);
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
