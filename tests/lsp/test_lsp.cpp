// The real `tvms lsp` binary over real pipes, spoken to in JSON-RPC like an editor does.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <tuple>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>

#include "compiler/syntax/line_index.h"
#include "tests/lsp/lsp_client.h"
#include "tests/support/corpus.h"
#include "tests/support/marked.h"

namespace {

using nlohmann::json;
using tvms::test::Client;
using tvms::test::changeAt;

// A module over three vdevices, with the positions the tests ask about marked (marked.h).
const tvms::test::Marked& threeDevices() {
  static const tvms::test::Marked m = tvms::test::marked(R"(from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm"), I.vdevice("cuda", 1)]})

    @R.function
    def main(x: R.Tensor((2, 3), "float32", "$[cuda0_use]cuda:0"), y: R.Tensor((2, 3), "float32", "cuda:1")):
        with R.dataflow():
            $[s_def]s$[after_s] = R.add(x, x)
            t = R.nn.softmax(s, ax$[in_axis]is=-1)
$[u_line]            u = R.to_vdevice(t, "llvm")
            R.output(u)
        return (u, y)
)");
  return m;
}

json positionIn(const std::string& text, size_t offset) {
  tvms::syntax::LineIndex lines(text);
  auto lc = lines.toLineCol(static_cast<uint32_t>(offset), tvms::syntax::Encoding::Utf16);
  return json{{"line", lc.line}, {"character", lc.column}};
}

std::string applyEdits(std::string text, json edits) {
  tvms::syntax::LineIndex lines(text);
  std::vector<std::tuple<uint32_t, uint32_t, std::string>> byteEdits;
  auto off = [&](const json& p) { return lines.toOffset({p["line"], p["character"]}, tvms::syntax::Encoding::Utf16); };
  for (auto& e : edits) byteEdits.emplace_back(off(e["range"]["start"]), off(e["range"]["end"]), e["newText"]);
  std::sort(byteEdits.begin(), byteEdits.end(), [](auto& a, auto& b) { return std::get<0>(a) > std::get<0>(b); });
  for (auto& [b, e, t] : byteEdits) text.replace(b, e - b, t);
  return text;
}

}  // namespace

TEST_CASE("lsp: lifecycle and JSON-RPC errors over real pipes") {
  Client c;
  c.request(7, "textDocument/hover", json::object());
  CHECK(c.response(7)["error"]["code"] == -32002);  // before initialize
  c.initialize();
  c.raw("Content-Length: 5\r\n\r\n{bad}");
  json parseError = c.next();
  CHECK(parseError["error"]["code"] == -32700);
  c.raw("Content-Type: application/json\r\n\r\n");  // no Content-Length
  CHECK(c.next()["error"]["code"] == -32600);
  c.request(8, "no/suchMethod");
  CHECK(c.response(8)["error"]["code"] == -32601);
  c.request(9, "tvms/documentText", {{"uri", 42}});
  CHECK(c.response(9)["error"]["code"] == -32602);
  // A `$/` request the server does not know is ignored (LSP), and so is a document request sent as a
  // notification; neither is answered, so the next message is the answer to request 6.
  c.request(5, "$/noSuchThing");
  c.notify("textDocument/hover", {{"textDocument", {{"uri", "file:///nowhere.py"}}}, {"position", {{"line", 0}, {"character", 0}}}});
  c.request(6, "tvms/status");
  json next = c.next();
  CHECK(next["id"] == 6);
  CHECK(next.contains("result"));
  c.request(10, "shutdown");
  CHECK(c.response(10).contains("result"));
  c.notify("exit", json::object());
  CHECK(c.waitExit() == 0);
}

TEST_CASE("lsp: the server exits when stdin closes without shutdown") {
  Client c;
  c.initialize();
  c.closeInput();
  CHECK(c.waitExit() == 1);
}

TEST_CASE("lsp: diagnostics follow incremental edits: 1,000 edits leave the server's text equal to the client's") {
  Client c;
  c.initialize();
  std::string text = tvms::test::readFile(std::string(TVMS_CORPUS_DIR) + "/lint/undeclared_vdevice.py");
  const std::string uri = "file:///work/undeclared_vdevice.py";
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  json first = c.diagnosticsFor(1);
  REQUIRE(!first.is_null());
  int tvs201 = 0;
  for (auto& d : first["diagnostics"]) tvs201 += d["code"] == "TVS201";
  CHECK(tvs201 == 2);
  CHECK(first["diagnostics"][0]["range"]["start"]["line"] == 10);
  // Fix "cuda:1" -> "cuda:0" with one incremental change.
  tvms::syntax::LineIndex lines(text);
  uint32_t at = static_cast<uint32_t>(text.find("cuda:1") + 5);
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}},
                                      {"contentChanges", json::array({changeAt(lines, at, at + 1, "0")})}});
  text.replace(at, 1, "0");
  json second = c.diagnosticsFor(2);
  REQUIRE(!second.is_null());
  tvs201 = 0;
  for (auto& d : second["diagnostics"]) tvs201 += d["code"] == "TVS201";
  CHECK(tvs201 == 1);

  // 1,000 random edits (inserts, deletes, replacements; some multi-byte), then compare texts.
  std::mt19937 rng(7);
  const char* pieces[] = {"x", " ", "\n", "é", "(", ")", "R.add(", "中", "#", "\"cuda\""};
  int version = 2;
  for (int i = 0; i < 1000; ++i) {
    lines = tvms::syntax::LineIndex(text);
    // Edit at character boundaries: positions come from line/column, as an editor sends them.
    uint32_t begin = static_cast<uint32_t>(rng() % (text.size() + 1));
    while (begin > 0 && begin < text.size() && (static_cast<unsigned char>(text[begin]) & 0xC0) == 0x80) --begin;
    uint32_t end = begin;
    if (rng() % 2)
      for (int k = rng() % 4; k > 0 && end < text.size(); --k) {
        ++end;
        while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
      }
    std::string insert = rng() % 3 ? pieces[rng() % 10] : "";
    c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", ++version}}},
                                        {"contentChanges", json::array({changeAt(lines, begin, end, insert)})}});
    text.replace(begin, end - begin, insert);
  }
  // An edit outside the document is ignored, not applied somewhere.
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", ++version}}},
                                      {"contentChanges", json::array({{{"range", {{"start", {{"line", 99999}, {"character", 0}}}, {"end", {{"line", 99999}, {"character", 1}}}}}, {"text", "lost?"}}})}});
  c.request(50, "tvms/documentText", {{"uri", uri}});
  json got = c.response(50);
  REQUIRE(got.contains("result"));
  CHECK(got["result"]["text"] == text);
  CHECK(got["result"]["version"] == version);
  CHECK(!c.diagnosticsFor(version).is_null());  // diagnostics are published for the latest version
  c.request(51, "shutdown");
  c.response(51);
  c.notify("exit", json::object());
  CHECK(c.waitExit() == 0);
}

TEST_CASE("lsp: the server exits when the client process from initialize.processId dies") {
  pid_t fakeClient = fork();
  if (fakeClient == 0) {
    execl("/bin/sleep", "sleep", "30", nullptr);
    _exit(127);
  }
  Client c;
  c.initialize(fakeClient);
  CHECK(c.waitExit(0.5) == -1);  // still serving while the client lives
  kill(fakeClient, SIGKILL);
  waitpid(fakeClient, nullptr, 0);
  CHECK(c.waitExit(10) == 1);
}

TEST_CASE("lsp: undeclared vdevice: diagnostic, hover, quick fix through codeAction, diagnostic gone") {
  Client c;
  c.initialize();
  std::string text = tvms::test::readFile(std::string(TVMS_CORPUS_DIR) + "/lint/undeclared_vdevice.py");
  const std::string uri = "file:///work/u.py";
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  json diags = c.diagnosticsFor(1);
  REQUIRE(!diags.is_null());
  json metal;
  for (auto& d : diags["diagnostics"])
    if (d["code"] == "TVS201" && d["message"].get<std::string>().find("\"metal\"") != std::string::npos) metal = d;
  REQUIRE(!metal.is_null());

  tvms::syntax::LineIndex lines(text);
  auto pos = [&](size_t offset) {
    auto lc = lines.toLineCol(static_cast<uint32_t>(offset), tvms::syntax::Encoding::Utf16);
    return json{{"line", lc.line}, {"character", lc.column}};
  };
  // Hover on the use of y: its deduced struct info, with the vdevice's entry.
  size_t y = text.find("R.to_vdevice(y") + 13;
  c.request(20, "textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", pos(y)}});
  json hover = c.response(20);
  std::string value = hover["result"]["contents"]["value"];
  CHECK(value.find(R"(y: R.Tensor((4,), dtype="float32", vdevice="llvm:0"))") != std::string::npos);
  CHECK(value.find("list entry 1") != std::string::npos);
  // Hover on an op: its signature from the registry.
  c.request(21, "textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", pos(text.find("R.to_vdevice") + 4)}});
  CHECK(c.response(21)["result"]["contents"]["value"].get<std::string>().find("R.to_vdevice(data, dst_vdevice)") != std::string::npos);

  c.request(22, "textDocument/codeAction", {{"textDocument", {{"uri", uri}}}, {"range", metal["range"]}, {"context", {{"diagnostics", json::array({metal})}}}});
  json actions = c.response(22)["result"];
  json declare;
  for (auto& a : actions)
    if (a["title"].get<std::string>().find("Declare I.vdevice(\"metal\")") == 0) declare = a;
  REQUIRE(!declare.is_null());
  // Apply the edit as a client does: one didChange per edit, last first.
  json edits = declare["edit"]["changes"][uri];
  json changes = json::array();
  for (auto& e : edits) changes.push_back({{"range", e["range"]}, {"text", e["newText"]}});
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}}, {"contentChanges", changes}});
  json after = c.diagnosticsFor(2);
  REQUIRE(!after.is_null());
  for (auto& d : after["diagnostics"]) CHECK(d["message"].get<std::string>().find("\"metal\"") == std::string::npos);
  CHECK(after["diagnostics"].size() == diags["diagnostics"].size() - 1);

  // Formatting returns the formatter's edit; an unformatted document gets one.
  c.request(23, "textDocument/formatting", {{"textDocument", {{"uri", uri}}}, {"options", {{"tabSize", 4}, {"insertSpaces", true}}}});
  CHECK(c.response(23)["result"].is_array());
}

TEST_CASE("lsp: definition, references, highlights, symbols and inlay hints: utf-8 positions when offered") {
  Client c;
  c.request(1, "initialize", {{"processId", nullptr}, {"capabilities", {{"general", {{"positionEncodings", json::array({"utf-8", "utf-16"})}}}}}});
  json init = c.response(1);
  CHECK(init["result"]["capabilities"]["positionEncoding"] == "utf-8");
  c.notify("initialized", json::object());
  std::string text = "# é中\n" + tvms::test::readFile(std::string(TVMS_CORPUS_DIR) + "/lint/clean_multi_device.py");
  const std::string uri = "file:///work/clean.py";
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  json diags = c.diagnosticsFor(1);
  REQUIRE(!diags.is_null());
  CHECK(diags["diagnostics"].empty());
  tvms::syntax::LineIndex lines(text);
  auto pos = [&](size_t offset) {
    auto lc = lines.toLineCol(static_cast<uint32_t>(offset), tvms::syntax::Encoding::Utf8);
    return json{{"line", lc.line}, {"character", lc.column}};
  };
  size_t use = text.find("R.to_vdevice(lv0") + 13;
  json where = {{"textDocument", {{"uri", uri}}}, {"position", pos(use)}};
  c.request(2, "textDocument/definition", where);
  json def = c.response(2)["result"];
  REQUIRE(def.size() == 1);
  CHECK(def[0]["range"]["start"] == pos(text.find("lv0: R.Tensor")));
  json refs = where;
  refs["context"] = {{"includeDeclaration", true}};
  c.request(3, "textDocument/references", refs);
  CHECK(c.response(3)["result"].size() == 2);
  c.request(4, "textDocument/documentHighlight", where);
  CHECK(c.response(4)["result"].size() == 2);
  c.request(5, "textDocument/documentSymbol", {{"textDocument", {{"uri", uri}}}});
  json syms = c.response(5)["result"];
  REQUIRE(syms.size() == 1);
  CHECK(syms[0]["name"] == "Module");
  REQUIRE(syms[0]["children"].size() == 1);
  CHECK(syms[0]["children"][0]["name"] == "main");
  CHECK(syms[0]["children"][0]["children"].size() >= 3);  // x, y, z, lv0, lv1, gv
  c.request(6, "textDocument/inlayHint", {{"textDocument", {{"uri", uri}}}, {"range", {{"start", pos(0)}, {"end", pos(text.size())}}}});
  json hints = c.response(6)["result"];
  REQUIRE(hints.size() == 1);  // gv: the only binding without an annotation
  CHECK(hints[0]["label"] == R"(: R.Tensor((2, 4), dtype="float32", vdevice="cuda:0"))");
  CHECK(hints[0]["position"] == pos(text.find("gv = R.add") + 2));

  auto labels = [&](int id, size_t offset) {
    c.request(id, "textDocument/completion", {{"textDocument", {{"uri", uri}}}, {"position", pos(offset)}});
    std::set<std::string> out;
    json r = c.response(id);
    INFO(r.dump().substr(0, 200));
    CHECK(r.contains("result"));
    for (auto& item : r["result"]["items"]) out.insert(item["label"].get<std::string>());
    return out;
  };
  auto ops = labels(7, text.find("R.matmul(x, y)") + 2);  // after "R."
  CHECK(ops.count("matmul"));
  CHECK(ops.count("to_vdevice"));
  CHECK(ops.count("Tensor"));
  CHECK_FALSE(ops.count("conv2d"));  // nested under R.nn
  auto strings = labels(9, text.find("\"cuda\")") + 1);  // inside the string of R.to_vdevice(lv0, "cuda")
  CHECK(strings.count("cuda:0"));
  CHECK(strings.count("llvm:0"));
  CHECK(strings.count("float32"));

  c.request(13, "textDocument/foldingRange", {{"textDocument", {{"uri", uri}}}});
  json folds = c.response(13)["result"];
  std::set<int> starts;
  for (auto& f : folds) starts.insert(f["startLine"].get<int>());
  CHECK(folds.size() == 3);  // the module, main, the dataflow block
  CHECK(starts.count(static_cast<int>(lines.lineOf(static_cast<uint32_t>(text.find("@I.ir_module"))))));
  CHECK(starts.count(static_cast<int>(lines.lineOf(static_cast<uint32_t>(text.find("lv0: R.Tensor")))) ));

  c.request(14, "textDocument/selectionRange", {{"textDocument", {{"uri", uri}}}, {"positions", json::array({pos(use)})}});
  json sel = c.response(14)["result"][0];
  CHECK(sel["range"]["start"] == pos(use));  // innermost: the identifier lv0
  CHECK(sel["range"]["end"] == pos(use + 3));
  int depth = 0;
  for (json* n = &sel; n->contains("parent"); n = &(*n)["parent"]) ++depth;
  CHECK(depth >= 4);  // argument list, call, assignment, ..., module

  c.request(10, "tvms/status");
  json status = c.response(10)["result"];
  CHECK(status["documents"].size() == 1);
  CHECK(status["documents"][0]["version"] == 1);
  CHECK(status["rssBytes"].get<int64_t>() > 0);
  CHECK(status["lastAnalysisMs"].get<double>() > 0);
  c.request(11, "tvms/viewIR", {{"uri", uri}, {"pass", "parsed"}});
  std::string ir = c.response(11)["result"]["text"];
  CHECK(ir.find("@I.ir_module") != std::string::npos);
  CHECK(ir.find(R"(lv1: R.Tensor((2, 4), dtype="float32", vdevice="cuda:0") = R.to_vdevice()") != std::string::npos);
  c.request(12, "tvms/viewIR", {{"uri", uri}, {"pass", "Nope"}});
  CHECK(c.response(12)["error"]["code"] == -32602);
  // After a pass of the build pipeline: what `tvms build --print-after=PASS` prints.
  c.request(13, "tvms/viewIR", {{"uri", uri}, {"pass", "LegalizeOps"}});
  std::string legal = c.response(13)["result"]["text"];
  CHECK(legal.find("R.call_tir(") != std::string::npos);
  CHECK(legal.find("@T.prim_func") != std::string::npos);
}

TEST_CASE("lsp: hostile client: a 50 MB message, a burst of 10,000 changes, bad params: no crash, no lost text") {
  Client c;
  c.initialize();
  // 50 MB in one message (an unknown notification): read and dropped; the server still answers.
  std::string big(50u << 20, 'a');
  c.notify("tvms/noSuchNotification", {{"blob", big}});
  big.clear();
  c.request(2, "tvms/documentText", {{"uri", "file:///nothing.py"}});
  CHECK(c.response(2)["error"]["code"] == -32602);

  const std::string uri = "file:///work/burst.py";
  std::string text = tvms::test::readFile(std::string(TVMS_CORPUS_DIR) + "/lint/lenient_matmul.py");
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  // Wrong types in a notification: ignored with a log message, the document unchanged.
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}}, {"contentChanges", "not a list"}});
  int version = 2;
  std::string batch;
  const uint32_t at = static_cast<uint32_t>(text.find("return c"));
  REQUIRE(at < text.size());
  for (int i = 0; i < 10000; ++i) {
    tvms::syntax::LineIndex lines(text);
    std::string insert = i % 2 ? "" : "#";
    uint32_t end = i % 2 ? at + 1 : at;  // insert a '#', then delete it again
    json change = changeAt(lines, at, end, insert);
    text.replace(at, end - at, insert);
    json m = {{"jsonrpc", "2.0"}, {"method", "textDocument/didChange"},
              {"params", {{"textDocument", {{"uri", uri}, {"version", ++version}}}, {"contentChanges", json::array({change})}}}};
    std::string b = m.dump();
    batch += "Content-Length: " + std::to_string(b.size()) + "\r\n\r\n" + b;
  }
  c.raw(batch);
  c.request(3, "tvms/documentText", {{"uri", uri}});
  json got = c.response(3);
  REQUIRE(got.contains("result"));
  CHECK(got["result"]["text"] == text);
  CHECK(got["result"]["version"] == version);
  json last = c.diagnosticsFor(version);
  REQUIRE(!last.is_null());
  CHECK(last["diagnostics"][0]["code"] == "TVS214");
  // A header claiming more than the limit is refused (and what follows is skipped as its body).
  c.raw("Content-Length: 99999999999\r\n\r\n");
  CHECK(c.next()["error"]["code"] == -32600);
}

TEST_CASE("lsp: rename, signature help, semantic tokens full and delta, workspace symbols, range formatting") {
  Client c;
  c.initialize();
  const tvms::test::Marked& m = threeDevices();
  std::string text = m.text;
  const std::string uri = "file:///work/three.py";
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  REQUIRE(!c.diagnosticsFor(1).is_null());
  // Rename the first cuda entry's kind: uses re-indexed.
  size_t use = m["cuda0_use"];
  c.request(2, "textDocument/prepareRename", {{"textDocument", {{"uri", uri}}}, {"position", positionIn(text, use)}});
  CHECK(c.response(2)["result"]["placeholder"] == "cuda:0");
  c.request(3, "textDocument/rename", {{"textDocument", {{"uri", uri}}}, {"position", positionIn(text, use)}, {"newName", "rocm"}});
  json edit = c.response(3);
  REQUIRE(edit.contains("result"));
  std::string renamed = applyEdits(text, edit["result"]["changes"][uri]);
  CHECK(renamed.find("I.vdevice(\"rocm\", 0)") != std::string::npos);
  CHECK(renamed.find("\"rocm:0\")") != std::string::npos);
  CHECK(renamed.find("y: R.Tensor((2, 3), \"float32\", \"cuda:0\")") != std::string::npos);
  c.request(4, "textDocument/rename", {{"textDocument", {{"uri", uri}}}, {"position", positionIn(text, m["s_def"])}, {"newName", "t"}});
  json refused = c.response(4);
  CHECK(refused["error"]["code"] == -32803);
  CHECK(refused["error"]["message"].get<std::string>().find("already bound") != std::string::npos);

  c.request(5, "textDocument/signatureHelp", {{"textDocument", {{"uri", uri}}}, {"position", positionIn(text, m["in_axis"])}});
  json sig = c.response(5)["result"];
  CHECK(sig["signatures"][0]["label"] == "R.nn.softmax(data, axis=-1)");
  CHECK(sig["activeParameter"] == 1);

  c.request(6, "textDocument/semanticTokens/full", {{"textDocument", {{"uri", uri}}}});
  json full = c.response(6)["result"];
  std::vector<uint32_t> data = full["data"];
  REQUIRE(data.size() > 50);
  CHECK(data.size() % 5 == 0);
  // Type a line into main; the delta applied to the old data gives the new full data.
  tvms::syntax::LineIndex lines(text);
  uint32_t at = m["u_line"];
  std::string line = "            w = R.multiply(t, t)\n";
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}}, {"contentChanges", json::array({changeAt(lines, at, at, line)})}});
  text.insert(at, line);
  c.request(7, "textDocument/semanticTokens/full/delta", {{"textDocument", {{"uri", uri}}}, {"previousResultId", full["resultId"]}});
  json delta = c.response(7)["result"];
  REQUIRE(delta.contains("edits"));
  REQUIRE(delta["edits"].size() == 1);
  auto& e = delta["edits"][0];
  std::vector<uint32_t> inserted = e["data"];
  data.erase(data.begin() + e["start"].get<long>(), data.begin() + e["start"].get<long>() + e["deleteCount"].get<long>());
  data.insert(data.begin() + e["start"].get<long>(), inserted.begin(), inserted.end());
  c.request(8, "textDocument/semanticTokens/full", {{"textDocument", {{"uri", uri}}}});
  CHECK(c.response(8)["result"]["data"].get<std::vector<uint32_t>>() == data);

  c.request(9, "workspace/symbol", {{"query", "mn"}});
  json symbols = c.response(9)["result"];
  bool foundMain = false;
  for (auto& sym : symbols) foundMain |= sym["name"] == "main" && sym["location"]["uri"] == uri;
  CHECK(foundMain);

  // Range formatting: a badly spaced binding in an otherwise canonical module is reformatted, and only
  // the lines around it are edited.
  c.request(10, "textDocument/formatting", {{"textDocument", {{"uri", uri}}}, {"options", {{"tabSize", 4}, {"insertSpaces", true}}}});
  std::string canonical = applyEdits(text, c.response(10)["result"]);
  // Formatting is layout only: the vdevice strings, positional dtypes and `I.vdevice("llvm")` stay as written.
  CHECK(canonical.find("I.vdevice(\"llvm\")") != std::string::npos);
  CHECK(canonical.find("R.Tensor((2, 3), \"float32\", \"cuda:0\")") != std::string::npos);
  CHECK(canonical.find("dtype=") == std::string::npos);
  std::string messy = canonical;
  messy.replace(messy.find("s = R.add(x, x)"), 15, "s = R.add( x,x )");
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 3}}}, {"contentChanges", json::array({{{"text", messy}}})}});
  size_t sLine = messy.find("s = R.add");
  c.request(12, "textDocument/rangeFormatting", {{"textDocument", {{"uri", uri}}}, {"range", {{"start", positionIn(messy, sLine)}, {"end", positionIn(messy, sLine + 5)}}},
                                                  {"options", {{"tabSize", 4}, {"insertSpaces", true}}}});
  json fmt = c.response(12)["result"];
  REQUIRE(fmt.size() == 1);
  CHECK(applyEdits(messy, fmt) == canonical);
  CHECK(fmt[0]["range"]["start"]["line"] == positionIn(messy, sLine)["line"]);
  c.request(11, "shutdown");
  c.response(11);
  c.notify("exit", json::object());
  CHECK(c.waitExit() == 0);
}

TEST_CASE("lsp: requests wait for the analysis, $/cancelRequest cancels a waiting one, debounce comes from the settings") {
  Client c;
  c.initialize(nullptr, json::object(), {{"debounceMs", 1500}});
  const tvms::test::Marked& m = threeDevices();
  std::string text = m.text;
  const std::string uri = "file:///work/wait.py";
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  REQUIRE(!c.diagnosticsFor(1).is_null());  // opening is not debounced
  tvms::syntax::LineIndex lines(text);
  uint32_t at = m["after_s"];
  auto sent = std::chrono::steady_clock::now();
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 2}}}, {"contentChanges", json::array({changeAt(lines, at, at, "x")})}});
  text.insert(at, "x");
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", 3}}}, {"contentChanges", json::array({changeAt(tvms::syntax::LineIndex(text), at + 1, at + 1, "y")})}});
  text.insert(at + 1, "y");
  c.request(20, "textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", positionIn(text, text.find("sxy = "))}});
  c.request(21, "textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", positionIn(text, text.find("sxy = "))}});
  c.notify("$/cancelRequest", {{"id", 20}});
  json cancelled = c.response(20);
  CHECK(cancelled["error"]["code"] == -32800);
  CHECK(std::chrono::steady_clock::now() - sent < std::chrono::milliseconds(1200));  // not after the analysis
  json answered = c.response(21);  // answered from version 3's analysis, once it exists
  CHECK(std::chrono::steady_clock::now() - sent >= std::chrono::milliseconds(1400));
  REQUIRE(answered.contains("result"));
  CHECK(answered["result"]["contents"]["value"].get<std::string>().find("sxy: R.Tensor((2, 3)") != std::string::npos);
  // Both edits were followed by the incremental analysis, in one job (the debounce merged them).
  c.request(22, "tvms/status");
  json status = c.response(22)["result"];
  CHECK(status["incrementalAnalyses"] == 1);
  CHECK(status["wholeAnalyses"] == 1);  // the open
  c.request(23, "shutdown");
  c.response(23);
  c.notify("exit", json::object());
  CHECK(c.waitExit() == 0);
}

TEST_CASE("lsp: pull diagnostics, codeDescription, [tool.tvms] and didChangeConfiguration") {
  char dir[] = "/tmp/tvms-lsp-config-XXXXXX";
  REQUIRE(mkdtemp(dir));
  std::string root = dir;
  {
    FILE* f = std::fopen((root + "/pyproject.toml").c_str(), "w");
    std::fputs("[tool.tvms]\nignore = [\"TVS201\"]\n", f);
    std::fclose(f);
  }
  std::string text = tvms::test::readFile(std::string(TVMS_CORPUS_DIR) + "/lint/undeclared_vdevice.py");
  auto codes = [](const json& diags) {
    std::multiset<std::string> out;
    for (auto& d : diags) out.insert(d["code"].get<std::string>());
    return out;
  };
  {
    // A client that pulls: nothing is pushed; the answer carries codeDescription links to docs/rules.md.
    Client c;
    c.initialize(nullptr, {{"textDocument", {{"diagnostic", {{"dynamicRegistration", false}}}}}});
    const std::string uri = "file:///work/pull.py";
    c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
    c.request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}});
    json r = c.response(2);
    REQUIRE(r.contains("result"));
    CHECK(r["result"]["kind"] == "full");
    CHECK(codes(r["result"]["items"]).count("TVS201") == 2);
    std::string href = r["result"]["items"][0]["codeDescription"]["href"];
    CHECK(href.find("docs/rules.md#tvs201-") != std::string::npos);
    c.request(3, "textDocument/diagnostic", {{"textDocument", {{"uri", uri}}}, {"previousResultId", r["result"]["resultId"]}});
    CHECK(c.response(3)["result"]["kind"] == "unchanged");
    c.request(4, "tvms/status");
    c.response(4);
    CHECK(c.next(0.3).is_null());  // no publishDiagnostics came
  }
  {
    Client c;
    c.initialize();
    // [tool.tvms] of the file's pyproject.toml applies.
    const std::string uri = "file://" + root + "/configured.py";
    c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
    json first = c.diagnosticsFor(1);
    REQUIRE(!first.is_null());
    CHECK(codes(first["diagnostics"]).count("TVS201") == 0);
    // Settings from the client replace the file's lists.
    c.notify("workspace/didChangeConfiguration", {{"settings", {{"tvms", {{"lint", {{"ignore", json::array({"TVS2"})}}}}}}}});
    json second = c.diagnosticsFor(1);
    REQUIRE(!second.is_null());
    for (auto& code : codes(second["diagnostics"])) CHECK(code.rfind("TVS2", 0) != 0);
    c.notify("workspace/didChangeConfiguration", {{"settings", {{"tvms", {{"lint", {{"ignore", json::array()}}}}}}}});
    json third = c.diagnosticsFor(1);
    REQUIRE(!third.is_null());
    CHECK(codes(third["diagnostics"]).count("TVS201") == 2);
  }
  {
    // An invalid [tool.tvms] is shown to the user, not fatal.
    FILE* f = std::fopen((root + "/pyproject.toml").c_str(), "w");
    std::fputs("[tool.tvms]\nselekt = [\"TVS2\"]\n", f);
    std::fclose(f);
    Client c;
    c.initialize();
    c.notify("textDocument/didOpen", {{"textDocument", {{"uri", "file://" + root + "/bad.py"}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
    bool shown = false;
    for (json m = c.next(5); !m.is_null() && !shown; m = c.next(5))
      shown = m.value("method", "") == "window/showMessage" && m["params"]["message"].get<std::string>().find("selekt") != std::string::npos;
    CHECK(shown);
  }
  std::remove((root + "/pyproject.toml").c_str());
  rmdir(dir);
}

TEST_CASE("lsp: formatting follows [tool.tvms] as tvms fmt does: line-length, and nothing for an excluded file") {
  char dir[] = "/tmp/tvms-lsp-fmt-XXXXXX";
  REQUIRE(mkdtemp(dir));
  std::string root = dir;
  std::ofstream(root + "/pyproject.toml") << "[tool.tvms]\nline-length = 60\nexclude = [\"vendored_*.py\"]\n";
  std::string text = R"(from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        z = R.add(x,y)
        return z
)";
  Client c;
  c.initialize();
  auto format = [&](int id, const std::string& name) {
    const std::string uri = "file://" + root + "/" + name;
    c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
    c.request(id, "textDocument/formatting", {{"textDocument", {{"uri", uri}}}, {"options", {{"tabSize", 4}, {"insertSpaces", true}}}});
    return c.response(id)["result"];
  };
  std::string formatted = applyEdits(text, format(2, "model.py"));
  CHECK(formatted.find("    def main(\n        x: R.Tensor((2, 3), \"float32\"),\n        y: R.Tensor((2, 3), \"float32\"),\n    ):\n") !=
        std::string::npos);  // 77 columns on one line: over the file's 60
  CHECK(formatted.find("z = R.add(x, y)") != std::string::npos);
  CHECK(format(3, "vendored_model.py").empty());
  std::remove((root + "/pyproject.toml").c_str());
  rmdir(dir);
}

TEST_CASE("lsp: an IRBuilder program typed key by key: the trap's TVS202 appears live, its quick fix writes vdevice[1], hover on a Python variable") {
  Client c;
  c.initialize(nullptr, json::object(), {{"debounceMs", 0}});
  std::string full = tvms::test::readFile(std::string(TVMS_CORPUS_DIR) + "/lint/builder_irbuilder_trap.py");
  const std::string trapLine = "            output = R.emit(relax.op.to_vdevice(output, I.vdevice(\"llvm\")))  # expect: TVS202\n";
  size_t lineAt = full.find(trapLine);
  REQUIRE(lineAt != std::string::npos);
  std::string text = full.substr(0, lineAt) + full.substr(lineAt + trapLine.size());
  const std::string uri = "file:///work/builder.py";
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  json first = c.diagnosticsFor(1);
  REQUIRE(!first.is_null());
  REQUIRE(first["diagnostics"].size() == 1);  // without the move, only: the llvm entry is unused
  CHECK(first["diagnostics"][0]["code"] == "TVS209");
  // Type the line one character at a time, as an editor sends it.
  const std::string typed = trapLine.substr(0, trapLine.find("  # expect")) + "\n";
  int version = 1;
  for (size_t i = 0; i < typed.size(); ++i) {
    uint32_t at = static_cast<uint32_t>(lineAt + i);
    c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", ++version}}},
                                       {"contentChanges", json::array({changeAt(tvms::syntax::LineIndex(text), at, at, typed.substr(i, 1))})}});
    text.insert(at, typed.substr(i, 1));
  }
  json diags = c.diagnosticsFor(version);
  REQUIRE(!diags.is_null());
  REQUIRE(diags["diagnostics"].size() == 1);
  json d = diags["diagnostics"][0];
  CHECK(d["code"] == "TVS202");
  CHECK(d["range"]["start"] == positionIn(text, text.find("to_vdevice(output, I.vdevice") + 19));
  bool entry = false;
  for (auto& r : d["relatedInformation"]) entry |= r["message"].get<std::string>().find("`vdevice[1]`") != std::string::npos;
  CHECK(entry);

  c.request(30, "textDocument/codeAction", {{"textDocument", {{"uri", uri}}}, {"range", d["range"]}, {"context", {{"diagnostics", json::array({d})}}}});
  json fix, actions = c.response(30)["result"];
  INFO(actions.dump());
  for (auto& a : actions)
    if (a["title"] == "Use the list's entry `vdevice[1]`") fix = a;
  REQUIRE(!fix.is_null());
  json changes = json::array();
  for (auto& e : fix["edit"]["changes"][uri]) changes.push_back({{"range", e["range"]}, {"text", e["newText"]}});
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", ++version}}}, {"contentChanges", changes}});
  json after = c.diagnosticsFor(version);
  REQUIRE(!after.is_null());
  CHECK(after["diagnostics"].empty());

  // Hover on a Python variable the program binds to a Relax value: its deduced struct info.
  size_t use = text.find("R.emit(output + bias)") + 7;
  c.request(31, "textDocument/hover", {{"textDocument", {{"uri", uri}}}, {"position", positionIn(text, use)}});
  json hover = c.response(31);
  REQUIRE(hover["result"].is_object());
  CHECK(hover["result"]["contents"]["value"].get<std::string>().find("R.Tensor((1, 8, 8, 4), dtype=\"float32\")") != std::string::npos);
}

TEST_CASE("lsp: a BlockBuilder program: definition, references, inlay hints, symbols and semantic tokens work on its Python") {
  Client c;
  c.initialize();
  std::string text = tvms::test::readFile(std::string(TVMS_CORPUS_DIR) + "/lint/builder_blockbuilder.py");
  const std::string uri = "file:///work/bb.py";
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  REQUIRE(!c.diagnosticsFor(1).is_null());
  // A use of lv0 goes to the Python name the emit was assigned to.
  size_t use = text.find("relax.op.to_vdevice(lv0") + 20;
  json where = {{"textDocument", {{"uri", uri}}}, {"position", positionIn(text, use)}};
  c.request(2, "textDocument/definition", where);
  json def = c.response(2)["result"];
  REQUIRE(def.size() == 1);
  CHECK(def[0]["range"]["start"] == positionIn(text, text.find("lv0 = bb.emit")));
  json refs = where;
  refs["context"] = {{"includeDeclaration", true}};
  c.request(3, "textDocument/references", refs);
  CHECK(c.response(3)["result"].size() == 2);
  // Inlay hints: the deduced struct info after each name the program binds to an emit.
  size_t fnBegin = text.find("def test_two_cpus"), fnEnd = text.find("def test_mistakes");
  c.request(4, "textDocument/inlayHint", {{"textDocument", {{"uri", uri}}}, {"range", {{"start", positionIn(text, fnBegin)}, {"end", positionIn(text, fnEnd)}}}});
  json hints = c.response(4)["result"];
  bool matmul = false;
  for (auto& h : hints)
    matmul |= h["position"] == positionIn(text, text.find("lv0 = bb.emit") + 3) &&
              h["label"] == R"(: R.Tensor((4, 4), dtype="float32", vdevice="llvm:0"))";
  CHECK(matmul);
  c.request(5, "textDocument/documentSymbol", {{"textDocument", {{"uri", uri}}}});
  json syms = c.response(5)["result"];
  CHECK(!syms.empty());
  c.request(6, "textDocument/semanticTokens/full", {{"textDocument", {{"uri", uri}}}});
  CHECK(c.response(6)["result"]["data"].is_array());
  c.request(7, "textDocument/codeLens", {{"textDocument", {{"uri", uri}}}});
  CHECK(c.response(7).contains("result"));
}

TEST_CASE("lsp: declaration, type definition, noqa links, semantic tokens by range, resolve, watched pyproject.toml reported once") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("tvms_lsp_extras_" + std::to_string(getpid()));
  fs::create_directories(dir);
  {
    std::ofstream(dir / "pyproject.toml") << "[tool.tvms]\nbogus = 1\n";
  }
  Client c;
  json caps = {{"workspace", {{"didChangeWatchedFiles", {{"dynamicRegistration", true}}}}}};
  c.initialize(nullptr, caps);
  // The server asks to be told about pyproject.toml changes.
  json reg;
  for (json m = c.next(5); !m.is_null(); m = c.next(5))
    if (m.value("method", "") == "client/registerCapability") { reg = m; break; }
  REQUIRE(!reg.is_null());
  CHECK(reg["params"]["registrations"][0]["method"] == "workspace/didChangeWatchedFiles");
  CHECK(reg["params"]["registrations"][0]["registerOptions"]["watchers"][0]["globPattern"] == "**/pyproject.toml");
  c.send({{"jsonrpc", "2.0"}, {"id", reg["id"]}, {"result", nullptr}});

  const std::string text =
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n"
      "    I.module_global_infos({\"vdevice\": [I.vdevice(\"llvm\"), I.vdevice(\"cuda\", 0)]})\n\n"
      "    @R.function\n    def main(x: R.Tensor((2, 3), \"float32\", \"llvm\")):\n"
      "        y = R.to_vdevice(x, \"cuda\")\n        z: R.Tensor((2, 3), \"float32\", \"cuda\") = R.add(y, y)\n"
      "        w = R.multiply(z, z)  # noqa: TVS207, TVS203\n        return w\n";
  const std::string uri = "file://" + (dir / "m.py").string();
  auto open = [&](const std::string& u, int version) {
    c.notify("textDocument/didOpen", {{"textDocument", {{"uri", u}, {"languageId", "python"}, {"version", version}, {"text", text}}}});
  };
  open(uri, 1);
  int shown = 0;
  for (json m = c.next(10); !m.is_null(); m = c.next(2)) {
    if (m.value("method", "") == "window/showMessage") ++shown;
    if (m.value("method", "") == "textDocument/publishDiagnostics") break;
  }
  CHECK(shown == 1);
  open("file://" + (dir / "second.py").string(), 1);  // the same bad config: not shown again
  for (json m = c.next(5); !m.is_null(); m = c.next(1)) {
    if (m.value("method", "") == "window/showMessage") ++shown;
    if (m.value("method", "") == "textDocument/publishDiagnostics") break;
  }
  CHECK(shown == 1);

  auto at = [&](const std::string& needle, size_t plus) { return positionIn(text, text.find(needle) + plus); };
  json td = {{"uri", uri}};
  // Type definition of z: its annotation; of w: the call it was deduced from; of "cuda": the entry.
  c.request(40, "textDocument/typeDefinition", {{"textDocument", td}, {"position", at("R.multiply(z", 11)}});
  json zType = c.response(40)["result"];
  REQUIRE(zType.is_array());
  CHECK(zType[0]["range"]["start"] == at("R.Tensor((2, 3), \"float32\", \"cuda\")", 0));
  c.request(41, "textDocument/typeDefinition", {{"textDocument", td}, {"position", at("return w", 7)}});
  CHECK(c.response(41)["result"][0]["range"]["start"] == at("R.multiply(z, z)", 0));
  c.request(42, "textDocument/typeDefinition", {{"textDocument", td}, {"position", at("to_vdevice(x, \"cuda\")", 15)}});
  CHECK(c.response(42)["result"][0]["range"]["start"] == at("I.vdevice(\"cuda\", 0)", 0));
  // Declaration is where a Relax name is defined.
  c.request(43, "textDocument/declaration", {{"textDocument", td}, {"position", at("R.multiply(z", 11)}});
  CHECK(c.response(43)["result"][0]["range"]["start"] == at("z: R.Tensor", 0));
  // Each rule code of a noqa comment links to its rules page section.
  c.request(44, "textDocument/documentLink", {{"textDocument", td}});
  json links = c.response(44)["result"];
  REQUIRE(links.size() == 2);
  CHECK(links[0]["range"]["start"] == at("TVS207", 0));
  CHECK(links[0]["target"].get<std::string>().find("rules.md#tvs207") != std::string::npos);
  // Semantic tokens of the last two lines only: a strict, non-empty part of the whole.
  c.request(45, "textDocument/semanticTokens/full", {{"textDocument", td}});
  size_t all = c.response(45)["result"]["data"].size();
  c.request(46, "textDocument/semanticTokens/range",
            {{"textDocument", td}, {"range", {{"start", at("        w = R.multiply", 0)}, {"end", positionIn(text, text.size())}}}});
  size_t part = c.response(46)["result"]["data"].size();
  CHECK(part > 0);
  CHECK(part < all);
  CHECK(part % 5 == 0);
  // Resolving a lens or a hint gives it back.
  json lens = {{"range", {{"start", {{"line", 8}, {"character", 4}}}, {"end", {{"line", 8}, {"character", 15}}}}}, {"command", {{"title", "Run main"}, {"command", "tvms.run"}}}};
  c.request(47, "codeLens/resolve", lens);
  CHECK(c.response(47)["result"] == lens);
  // Fixing pyproject.toml and saying so: no stale message, and a new problem would be shown again.
  {
    std::ofstream(dir / "pyproject.toml") << "[tool.tvms]\nbogus2 = 1\n";
  }
  c.notify("workspace/didChangeWatchedFiles", {{"changes", json::array({{{"uri", "file://" + (dir / "pyproject.toml").string()}, {"type", 2}}})}});
  bool again = false;
  for (json m = c.next(10); !m.is_null(); m = c.next(2))
    if (m.value("method", "") == "window/showMessage") { again = m["params"]["message"].get<std::string>().find("bogus2") != std::string::npos; break; }
  CHECK(again);
  fs::remove_all(dir);
}

TEST_CASE("lsp: call hierarchy between the functions of a module (cls.f calls and call_tir kernels)") {
  Client c;
  c.initialize();
  const std::string text =
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\nfrom tvm.script import tir as T\n\n\n"
      "@I.ir_module\nclass Module:\n"
      "    @T.prim_func\n    def add_one(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
      "        for i in range(4):\n            B[i] = A[i] + T.float32(1)\n\n"
      "    @R.function\n    def helper(x: R.Tensor((4,), \"float32\")) -> R.Tensor((4,), \"float32\"):\n"
      "        y = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((4,), \"float32\"))\n        return y\n\n"
      "    @R.function\n    def main(x: R.Tensor((4,), \"float32\")):\n"
      "        cls = Module\n        a = cls.helper(x)\n        b = cls.helper(a)\n        return b\n";
  const std::string uri = "file:///work/calls.py";
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  REQUIRE(!c.diagnosticsFor(1).is_null());
  c.request(50, "textDocument/prepareCallHierarchy",
            {{"textDocument", {{"uri", uri}}}, {"position", positionIn(text, text.find("def helper") + 4)}});
  json items = c.response(50)["result"];
  REQUIRE(items.size() == 1);
  CHECK(items[0]["name"] == "helper");
  CHECK(items[0]["selectionRange"]["start"] == positionIn(text, text.find("helper(x: R.Tensor")));
  c.request(51, "callHierarchy/incomingCalls", {{"item", items[0]}});
  json in = c.response(51)["result"];
  REQUIRE(in.size() == 1);
  CHECK(in[0]["from"]["name"] == "main");
  CHECK(in[0]["fromRanges"].size() == 2);  // a = cls.helper(x), b = cls.helper(a)
  c.request(52, "callHierarchy/outgoingCalls", {{"item", items[0]}});
  json out = c.response(52)["result"];
  REQUIRE(out.size() == 1);
  CHECK(out[0]["to"]["name"] == "add_one");
  CHECK(out[0]["to"]["detail"] == "T.prim_func");
  // From a use: `cls.helper` in main prepares the same function.
  c.request(53, "textDocument/prepareCallHierarchy",
            {{"textDocument", {{"uri", uri}}}, {"position", positionIn(text, text.find("cls.helper(x)") + 5)}});
  json fromUse = c.response(53)["result"];
  REQUIRE(fromUse.is_array());
  CHECK(fromUse[0]["name"] == "helper");
}

TEST_CASE("lsp: a TIR mistake shows as it is typed in a T.prim_func and goes when it is fixed") {
  Client c;
  c.initialize();
  std::string text =
      "from tvm.script import ir as I\nfrom tvm.script import tir as T\n\n\n@I.ir_module\nclass Module:\n"
      "    @T.prim_func\n    def copy(A: T.Buffer((4, 8), \"float32\"), B: T.Buffer((4, 8), \"float32\")):\n"
      "        for i, j in T.grid(4, 8):\n            B[i, j] = A[i, j]\n";
  const std::string uri = "file:///work/tir_live.py";
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  json first = c.diagnosticsFor(1);
  REQUIRE(!first.is_null());
  CHECK(first["diagnostics"].empty());
  // Typing ", k" into A[i, j], one character at a time: A[i, j, k] has one index too many (TVS402)
  // once the text is whole again; each keystroke is an incremental change.
  int version = 1;
  size_t at = text.find("A[i, j]") + 6;
  for (char ch : std::string(", k")) {
    tvms::syntax::LineIndex lines(text);
    c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", ++version}}},
                                        {"contentChanges", json::array({changeAt(lines, static_cast<uint32_t>(at), static_cast<uint32_t>(at), std::string(1, ch))})}});
    text.insert(at++, 1, ch);
  }
  json typed = c.diagnosticsFor(version);
  REQUIRE(!typed.is_null());
  std::vector<std::string> codes;
  for (auto& d : typed["diagnostics"]) codes.push_back(d["code"]);
  // Three indices of a 2-D buffer: TVS402 (the count is checked before the indices are read, so the
  // undefined k is not a second diagnostic: one mistake of a prim_func is said at a time).
  REQUIRE(codes.size() == 1);
  CHECK(codes[0] == "TVS402");
  CHECK(typed["diagnostics"][0]["range"]["start"]["line"] == 9);
  // Deleting the three characters again: no diagnostic.
  tvms::syntax::LineIndex lines(text);
  c.notify("textDocument/didChange", {{"textDocument", {{"uri", uri}, {"version", ++version}}},
                                      {"contentChanges", json::array({changeAt(lines, static_cast<uint32_t>(at - 3), static_cast<uint32_t>(at), "")})}});
  json fixed = c.diagnosticsFor(version);
  REQUIRE(!fixed.is_null());
  CHECK(fixed["diagnostics"].empty());
}
