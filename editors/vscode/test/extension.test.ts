// The extension against a mocked `vscode` (test/vscode_mock.ts): what it registers and starts, the
// missing-server message, the feature toggles, and how a run's answer is shown.
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { test } from "node:test";

import { rec, reset } from "./vscode_mock";
// eslint-disable-next-line @typescript-eslint/no-var-requires
const ext = require("../src/extension") as typeof import("../src/extension");

const context = { subscriptions: [] as unknown[] } as any;

function fakeServer(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tvms-ext-"));
  const p = path.join(dir, "tvms");
  fs.writeFileSync(p, "#!/bin/sh\n");
  fs.chmodSync(p, 0o755);
  return p;
}

const summary = {
  entry: "main", text: "gv: shape (2, 2), float32, on \"llvm:1\"\ncopied between devices: 16 bytes in 1 copies\n",
  outputs: [{ name: "gv", shape: [2, 2], dtype: "float32", vdevice: "llvm:1", min: 0, max: 1, mean: 0.5, histogram: [1, 2], preview: { rows: 2, cols: 2, values: [0, 1, 0, 1] } }],
};

test("without a server the extension says how to get one, and still registers its commands", () => {
  reset({ "server.path": "/nonexistent/tvms" });
  ext.activate(context);
  assert.equal(rec.clients.length, 0);
  assert.match(rec.errors[0], /TVMScript: tvms.server.path is "\/nonexistent\/tvms", but \/nonexistent\/tvms is not an executable file/);
  assert.deepEqual([...rec.commands.keys()].sort(), ["tvms.restartServer", "tvms.runFunction", "tvms.showGraph", "tvms.showIR"]);
});

test("the server starts as `tvms lsp ARGS` for Python files; toggles hide diagnostics, lenses and hints", async () => {
  const bin = fakeServer();
  reset({ "server.path": bin, "server.args": ["--log", "x"], "codeLens.enable": false, "diagnostics.enable": false,
          "lint.select": ["TVS2"], "lint.ignore": ["TVS208"] });
  ext.activate(context);
  assert.equal(rec.clients.length, 1);
  const c = rec.clients[0];
  assert.ok(c.started);
  assert.equal(c.serverOptions.command, bin);
  assert.deepEqual(c.serverOptions.args, ["lsp", "--log", "x"]);
  assert.deepEqual(c.clientOptions.documentSelector.map((d: any) => d.language), ["python", "python"]);
  // Lint settings go to the server at start and on every change of the "tvms" section.
  assert.deepEqual(c.clientOptions.initializationOptions, { tvms: { lint: { select: ["TVS2"], extendSelect: [], ignore: ["TVS208"] } } });
  assert.equal(c.clientOptions.synchronize.configurationSection, "tvms");
  const mw = c.clientOptions.middleware;
  assert.deepEqual(await mw.provideCodeLenses({}, {}, () => ["lens"]), []);
  assert.deepEqual(await mw.provideInlayHints({}, {}, {}, () => ["hint"]), ["hint"]);
  let published: unknown[] | undefined;
  mw.handleDiagnostics("u", ["d"], (_u: unknown, d: unknown[]) => { published = d; });
  assert.deepEqual(published, []);
  await rec.commands.get("tvms.restartServer")!();
  assert.ok(c.stopped);
  assert.equal(rec.clients.length, 2);
});

test("a code lens click runs tvms.run with the run settings and shows the summary and a heat map", async () => {
  reset({ "server.path": fakeServer(), "run.device": { "cuda:0": "cpu" }, "run.timeoutMs": 1234 });
  ext.activate(context);
  const mw = rec.clients[0].clientOptions.middleware;
  let sent: unknown[] = [];
  const result = await mw.executeCommand("tvms.run", [{ uri: "file:///m.py", function: "main" }], async (_c: string, a: unknown[]) => { sent = a; return summary; });
  assert.deepEqual(sent, [{ uri: "file:///m.py", function: "main", device: { "cuda:0": "cpu" }, timeoutMs: 1234 }]);
  assert.equal(result, summary);
  assert.ok(rec.outputLines.some((l) => l.includes("copied between devices: 16 bytes")));
  assert.equal(rec.webviews.length, 1);
  assert.match(rec.webviews[0].webview.html, /heat map/);
  assert.equal(await mw.executeCommand("other", [1], async () => "passed through"), "passed through");
});

test("Run function on device from the palette: picks among the lens functions, parses inputs, reports a failure", async () => {
  reset({ "server.path": fakeServer() });
  ext.activate(context);
  rec.requestAnswers["textDocument/codeLens"] = [
    { command: { command: "tvms.run", arguments: [{ function: "main" }] } },
    { command: { command: "tvms.run", arguments: [{ function: "second" }] } },
  ];
  rec.requestAnswers["workspace/executeCommand"] = summary;
  rec.inputBox = "x=random:3";
  await rec.commands.get("tvms.runFunction")!();
  assert.deepEqual(rec.quickPicks[0], ["main", "second"]);
  const run = rec.clients[0].requests.find((r) => r.method === "workspace/executeCommand");
  assert.deepEqual(run.params.arguments[0].inputs, { x: "random:3" });
  assert.equal(run.params.arguments[0].function, "second");
  rec.inputBox = "nonsense";
  await rec.commands.get("tvms.runFunction")!();
  assert.match(rec.errors.at(-1) ?? "", /"nonsense" is not NAME=/);
  rec.inputBox = "";
  rec.requestAnswers["workspace/executeCommand"] = new Error("tvms.run: the run of second crashed (Segmentation fault)\ndetails");
  await rec.commands.get("tvms.runFunction")!();
  assert.equal(rec.errors.at(-1), "TVMScript: tvms.run: the run of second crashed (Segmentation fault)");
});

test("Show IR after pass… asks the server for tvms/viewIR and shows it as a virtual document", async () => {
  reset({ "server.path": fakeServer() });
  ext.activate(context);
  rec.requestAnswers["tvms/viewIR"] = { text: "# after LowerToVM\nfunction main(...)\n", pass: "LowerToVM" };
  await rec.commands.get("tvms.showIR")!();
  assert.deepEqual(rec.quickPicks[0], ["parsed", "Normalize", "RealizeVDevice", "OffloadLibraries", "LegalizeOps", "FuseOps", "FuseTIR", "RewriteDataflowReshape", "LowerToVM"]);
  const req = rec.clients[0].requests.find((r) => r.method === "tvms/viewIR");
  assert.deepEqual(req.params, { uri: "file:///work/m.py", pass: "LowerToVM" });
  assert.equal(rec.shownDocuments.length, 1);
  const provider = rec.contentProviders.get("tvms-ir")!;
  assert.equal(provider.provideTextDocumentContent(rec.shownDocuments[0] as any), "# after LowerToVM\nfunction main(...)\n");
  rec.requestAnswers["tvms/viewIR"] = new Error("the module has errors; fix them to see it after LowerToVM");
  await rec.commands.get("tvms.showIR")!();
  assert.match(rec.errors.at(-1) ?? "", /the module has errors/);
});

test("Show dataflow graph… runs `tvms graph` on the editor's text and shows its SVG; a failure is reported", async () => {
  // A stand-in binary: `graph FILE --function F --after P -o OUT` copies FILE's first line into an SVG.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tvms-ext-"));
  const bin = path.join(dir, "tvms");
  fs.writeFileSync(bin, `#!/bin/sh
if [ "$1" = graph ] && [ "$3" = --function ] && [ "$5" = --after ] && [ "$7" = -o ]; then
  if grep -q broken "$2"; then echo "tvms graph: $2:3:1: error[TVS001]: bad" >&2; exit 1; fi
  printf '<?xml version="1.0"?>\\n<!-- dot -->\\n<svg><text>%s %s %s</text></svg>' "$(head -1 "$2")" "$4" "$6" > "$8"
fi
`);
  fs.chmodSync(bin, 0o755);
  reset({ "server.path": bin });
  ext.activate(context);
  rec.requestAnswers["textDocument/codeLens"] = [
    { command: { command: "tvms.run", arguments: [{ function: "main" }] } },
    { command: { command: "tvms.run", arguments: [{ function: "second" }] } },
  ];
  rec.editorText = "# unsaved text\n";
  await rec.commands.get("tvms.showGraph")!();
  assert.deepEqual(rec.quickPicks, [["main", "second"], ["RealizeVDevice", "Normalize"]]);
  assert.equal(rec.webviews.length, 1);
  assert.equal(rec.webviews[0].title, "tvms graph: second");
  const html = rec.webviews[0].webview.html;
  assert.match(html, /<svg><text># unsaved text second Normalize<\/text><\/svg>/);
  assert.doesNotMatch(html, /<\?xml|<!-- dot/);
  rec.editorText = "broken\n";
  await rec.commands.get("tvms.showGraph")!();
  assert.match(rec.errors.at(-1) ?? "", /^TVMScript: tvms graph: .*error\[TVS001\]: bad$/);
  assert.equal(rec.webviews.length, 1);
});
