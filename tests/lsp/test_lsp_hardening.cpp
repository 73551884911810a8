// Issue 20's language-server reproductions: each ended `tvms lsp` (a crash, an abort, a stack
// overflow) or lost every later message. After each, the server must still answer.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "compiler/syntax/line_index.h"
#include "tests/lsp/lsp_client.h"

using tvms::test::Client;
using nlohmann::json;

namespace {

const char* kUri = "file:///work/hardening.py";

std::string moduleWith(const std::string& line) {
  return "from tvm.script import relax as R\n\n@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n" + line + "\n    return x\n";
}

void open(Client& c, const std::string& text) {
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", kUri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
}

// The server is alive and its copy of the document is `text`.
void checkText(Client& c, int id, const std::string& text) {
  c.request(id, "tvms/documentText", {{"uri", kUri}});
  json got = c.response(id);
  REQUIRE(got.contains("result"));
  CHECK(got["result"]["text"] == text);
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace

TEST_CASE("lsp hardening: a syntax error among accented names gives a diagnostic (its snippet was cut inside a character)") {
  Client c;
  c.initialize();
  // The snippet's 40th byte falls inside an "é": the message was invalid UTF-8 and the JSON writer threw.
  std::string text = moduleWith("    y = x x " + repeat("\xc3\xa9\xc3\xa9 ", 20));
  open(c, text);
  json d = c.diagnosticsFor(1);
  REQUIRE(!d.is_null());
  REQUIRE(!d["diagnostics"].empty());
  std::string message = d["diagnostics"][0]["message"];
  CHECK(message.find("invalid syntax: `x x ") == 0);
  CHECK(message.find("\xc3\xa9\xc3\xa9 ...`") != std::string::npos);  // cut before the split "é"
  checkText(c, 2, text);
}

TEST_CASE("lsp hardening: with UTF-8 positions, an edit inside a character snaps to its start and the text stays valid") {
  Client c;
  c.request(1, "initialize", {{"processId", nullptr}, {"capabilities", {{"general", {{"positionEncodings", json::array({"utf-8"})}}}}}});
  REQUIRE(c.response(1)["result"]["capabilities"]["positionEncoding"] == "utf-8");
  c.notify("initialized", json::object());
  std::string text = moduleWith("    s = \"caf\xc3\xa9\"");
  open(c, text);
  // Line 4 is `    s = "café"`: byte column 13 is the second byte of "é".
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", 2}}},
                                      {"contentChanges", json::array({{{"range", {{"start", {{"line", 4}, {"character", 13}}},
                                                                                  {"end", {{"line", 4}, {"character", 13}}}}},
                                                                       {"text", "!"}}})}});
  std::string want = moduleWith("    s = \"caf!\xc3\xa9\"");
  checkText(c, 2, want);
  REQUIRE(!c.diagnosticsFor(2).is_null());
}

TEST_CASE("lsp hardening: a message nesting 100,000 arrays is refused, not a stack overflow") {
  Client c;
  c.initialize();
  std::string params = repeat("[", 100000) + repeat("]", 100000);
  std::string body = "{\"jsonrpc\":\"2.0\",\"method\":\"tvms/nothing\",\"params\":" + params + "}";
  c.raw("Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  json refused = c.next();
  REQUIRE(refused.contains("error"));
  CHECK(refused["error"]["code"] == -32600);
  open(c, moduleWith("    y = x"));
  checkText(c, 2, moduleWith("    y = x"));
}

TEST_CASE("lsp hardening: after bytes without a header the next message is still read") {
  Client c;
  c.initialize();
  // A body sent without its header, then a real request: the request is answered.
  c.raw("{\"jsonrpc\":\"2.0\",\"method\":\"lost\"}");
  c.request(5, "shutdown");
  json answer = c.response(5);
  REQUIRE(!answer.is_null());
  CHECK(answer.contains("result"));
  // A Content-Length shorter than its body: the rest runs into the next header, which still counts.
  std::string body = "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}";
  c.raw("Content-Length: 10\r\n\r\n" + body);
  c.request(6, "tvms/documentText", {{"uri", "file:///none.py"}});
  json six = c.response(6);
  REQUIRE(!six.is_null());
  CHECK(six["error"]["code"] == -32602);
}

TEST_CASE("lsp hardening: exit without shutdown right after didOpen ends with code 1, every time") {
  for (int i = 0; i < 20; ++i) {
    Client c;
    c.initialize();
    open(c, moduleWith("    y = R.add(x, x)"));
    c.notify("exit", json::object());
    CHECK(c.waitExit() == 1);
  }
}

namespace {

// The server's peak resident memory in MiB (VmHWM), or -1.
long peakMiB(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6)) / 1024;
  return -1;
}

}  // namespace

TEST_CASE("lsp hardening: a 60 MB document is kept but not analysed (TVS902), and analysed again once small") {
  Client c;
  c.initialize();
  std::string line = "x = [1, 2, 3]  # plain Python, 40 bytes\n";
  std::string big;
  big.reserve(60u << 20);
  while (big.size() < (60u << 20)) big += line;
  open(c, big);
  json d = c.diagnosticsFor(1);
  REQUIRE(!d.is_null());
  REQUIRE(d["diagnostics"].size() == 1);
  CHECK(d["diagnostics"][0]["code"] == "TVS902");
  // An edit of the big text is kept (the text is the document's), and still not analysed.
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", 2}}},
                                      {"contentChanges", json::array({{{"range", {{"start", {{"line", 0}, {"character", 0}}},
                                                                                  {"end", {{"line", 0}, {"character", 1}}}}},
                                                                       {"text", "y"}}})}});
  json d2 = c.diagnosticsFor(2);
  REQUIRE(!d2.is_null());
  CHECK(d2["diagnostics"][0]["code"] == "TVS902");
  c.request(3, "tvms/documentText", {{"uri", kUri}});
  json got = c.response(3);
  REQUIRE(got.contains("result"));
  CHECK(got["result"]["text"].get<std::string>().substr(0, 6) == "y = [1");
  CHECK(got["result"]["text"].get<std::string>().size() == big.size());
  long peak = peakMiB(c.pid());
  INFO("server peak RSS " << peak << " MiB");
  CHECK(peak < 1024);  // three copies of the text at most (the reader's, a job's, the JSON message), no tree
  // Replaced by a small module with an error: analysed again.
  std::string small = moduleWith("    y = R.add(x, z)");
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", 3}}}, {"contentChanges", json::array({{{"text", small}}})}});
  json d3 = c.diagnosticsFor(3);
  REQUIRE(!d3.is_null());
  REQUIRE(!d3["diagnostics"].empty());
  CHECK(d3["diagnostics"][0]["code"] != "TVS902");
}

namespace {

// A module of `n` functions, each needing the formatter (`R.add(x,x)`).
std::string manyFunctions(int n) {
  std::string text = "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n";
  for (int i = 0; i < n; ++i)
    text += "    @R.function\n    def f" + std::to_string(i) + "(x: R.Tensor((2,), \"float32\")) -> R.Tensor((2,), \"float32\"):\n        y = R.add(x,x)\n        return y\n\n";
  return text;
}

}  // namespace

TEST_CASE("lsp hardening: formatting runs off the loop that reads messages, and is not sent for a changed document") {
  Client c;
  c.initialize();
  std::string text = manyFunctions(1500);
  open(c, text);
  REQUIRE(!c.diagnosticsFor(1).is_null());
  // Formatting, then a request answered from the reader's text: that answer comes first.
  c.request(10, "textDocument/formatting", {{"textDocument", {{"uri", kUri}}}, {"options", {{"tabSize", 4}, {"insertSpaces", true}}}});
  c.request(11, "tvms/documentText", {{"uri", kUri}});
  std::vector<int> order;
  json formatted;
  while (order.size() < 2) {
    json m = c.next();
    if (m.is_null()) break;
    if (m.contains("id") && (m["id"] == 10 || m["id"] == 11)) {
      order.push_back(m["id"].get<int>());
      if (m["id"] == 10) formatted = m;
    }
  }
  REQUIRE(order.size() == 2);
  CHECK(order[0] == 11);
  REQUIRE(formatted.contains("result"));
  CHECK(formatted["result"].size() == 1);
  // The document changes while it is formatted: no edit for the old text.
  c.request(12, "textDocument/formatting", {{"textDocument", {{"uri", kUri}}}, {"options", {{"tabSize", 4}, {"insertSpaces", true}}}});
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", kUri}, {"version", 2}}},
                                      {"contentChanges", json::array({{{"range", {{"start", {{"line", 0}, {"character", 0}}},
                                                                                  {"end", {{"line", 0}, {"character", 0}}}}},
                                                                       {"text", "# edited\n"}}})}});
  json stale = c.response(12);
  REQUIRE(!stale.is_null());
  REQUIRE(stale.contains("error"));
  CHECK(stale["error"]["code"] == -32801);  // ContentModified
  checkText(c, 13, "# edited\n" + text);
}
