// The real `tvms lsp` (TVMS_BINARY, else build/bin/tvms of this checkout) driven through
// vscode-languageserver-protocol exactly as the extension's client does: initialize with the
// capabilities vscode-languageclient 9 announces for the features tvms serves, diagnostics, code
// lenses, then the lens's tvms.run through workspace/executeCommand with progress, and the
// extension's result page built from the real answer.
import { strict as assert } from "assert";
import * as cp from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { test } from "node:test";
import * as rpc from "vscode-jsonrpc/node";
import { createProtocolConnection } from "vscode-languageserver-protocol/node";
import {
  CodeLensRequest, DidOpenTextDocumentNotification, ExecuteCommandRequest, InitializeRequest, InitializedNotification,
  PublishDiagnosticsNotification, PublishDiagnosticsParams, ShutdownRequest, ExitNotification, WorkDoneProgressCreateRequest,
} from "vscode-languageserver-protocol";

import { functionsFromLenses, graphArgs, graphHtml, resultHtml, runCommand, RunSummary } from "../src/logic";

const root = path.resolve(__dirname, "..", "..", "..", "..");
const binary = process.env.TVMS_BINARY ?? path.join(root, "build", "bin", "tvms");

// What vscode-languageclient 9 sends for the features tvms implements (the rest omitted).
const capabilities = {
  general: { positionEncodings: ["utf-16"] },
  window: { workDoneProgress: true, showMessage: {} },
  workspace: { executeCommand: { dynamicRegistration: true }, configuration: true, workspaceFolders: true },
  textDocument: {
    synchronization: { dynamicRegistration: true, didSave: true },
    publishDiagnostics: { relatedInformation: true, versionSupport: false, tagSupport: { valueSet: [1, 2] }, codeDescriptionSupport: true },
    codeLens: { dynamicRegistration: true },
    codeAction: { dynamicRegistration: true, isPreferredSupport: true },
    hover: { dynamicRegistration: true, contentFormat: ["markdown", "plaintext"] },
    inlayHint: { dynamicRegistration: true },
    formatting: { dynamicRegistration: true },
  },
};

function start() {
  assert.ok(fs.existsSync(binary), `no tvms binary at ${binary} (./dev build, or set TVMS_BINARY)`);
  const child = cp.spawn(binary, ["lsp"], { stdio: ["pipe", "pipe", "inherit"] });
  const conn = createProtocolConnection(new rpc.StreamMessageReader(child.stdout!), new rpc.StreamMessageWriter(child.stdin!));
  const diagnostics: PublishDiagnosticsParams[] = [];
  const progress: any[] = [];
  conn.onNotification(PublishDiagnosticsNotification.type, (p) => { diagnostics.push(p); });
  conn.onRequest(WorkDoneProgressCreateRequest.type, () => null);
  conn.onNotification("$/progress", (p: any) => { progress.push(p.value); });
  conn.listen();
  return { child, conn, diagnostics, progress };
}

async function until<T>(f: () => T | undefined, ms = 20000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("the extension's requests against the real tvms lsp: diagnostics, code lens, tvms.run with progress", async () => {
  const { child, conn, diagnostics, progress } = start();
  // A failed assertion must not leave the server running (node would wait for it forever).
  try {
    const init = await conn.sendRequest(InitializeRequest.type, { processId: process.pid, rootUri: null, capabilities, workspaceFolders: null } as any);
    assert.deepEqual(init.capabilities.executeCommandProvider?.commands, ["tvms.run"]);
    assert.ok(init.capabilities.codeLensProvider);
    // The server's semantic token legend is declared in the manifest (so themes colour vdevice
    // strings), beside the lint settings and the untrusted-workspace declaration.
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
    const standardTypes = ["namespace", "type", "class", "enum", "interface", "struct", "typeParameter", "parameter", "variable",
      "property", "enumMember", "event", "function", "method", "macro", "keyword", "modifier", "comment", "string", "number",
      "regexp", "operator", "decorator"];
    const standardModifiers = ["declaration", "definition", "readonly", "static", "deprecated", "abstract", "async", "modification",
      "documentation", "defaultLibrary"];
    const legend = (init.capabilities as any).semanticTokensProvider.legend;
    const contributedTypes = manifest.contributes.semanticTokenTypes.map((t: any) => t.id);
    const contributedModifiers = manifest.contributes.semanticTokenModifiers.map((t: any) => t.id);
    for (const t of legend.tokenTypes) assert.ok(standardTypes.includes(t) || contributedTypes.includes(t), `token type ${t} not contributed`);
    for (const m of legend.tokenModifiers) assert.ok(standardModifiers.includes(m) || contributedModifiers.includes(m), `modifier ${m} not contributed`);
    assert.ok(manifest.contributes.semanticTokenScopes[0].scopes.vdevice.length > 0);
    for (const key of ["tvms.lint.select", "tvms.lint.extendSelect", "tvms.lint.ignore"]) assert.ok(manifest.contributes.configuration.properties[key], key);
    assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations, ["tvms.server.path", "tvms.server.args"]);
    await conn.sendNotification(InitializedNotification.type, {});

    // An undeclared vdevice: TVS201 where the corpus file expects it.
    const bad = fs.readFileSync(path.join(root, "tests", "corpus", "lint", "undeclared_vdevice.py"), "utf8");
    await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: "file:///tmp/bad.py", languageId: "python", version: 1, text: bad } });
    const published = await until(() => diagnostics.find((d) => d.uri === "file:///tmp/bad.py"));
    assert.ok(published.diagnostics.some((d) => d.code === "TVS201"), JSON.stringify(published.diagnostics));

    // Plain Python beside it (Pylance's and ruff's files): no diagnostics, no lenses from tvms.
    const plain = "import numpy as np\n\n\ndef f(x):\n    return np.add(x, 1)\n";
    await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: "file:///tmp/plain.py", languageId: "python", version: 1, text: plain } });
    const quiet = await until(() => diagnostics.find((d) => d.uri === "file:///tmp/plain.py"));
    assert.deepEqual(quiet.diagnostics, []);
    assert.deepEqual((await conn.sendRequest(CodeLensRequest.type, { textDocument: { uri: "file:///tmp/plain.py" } })) ?? [], []);

    // The two-vdevice example: one lens, whose command runs it.
    const uri = "file:///tmp/multi_cpu.py";
    const text = fs.readFileSync(path.join(root, "examples", "multi_cpu.py"), "utf8");
    await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "python", version: 1, text } });
    await until(() => diagnostics.find((d) => d.uri === uri));
    const lenses = (await conn.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) ?? [];
    assert.deepEqual(functionsFromLenses(lenses as any), ["main"]);
    assert.equal(lenses[0].command?.title, "\u25B6 Run main");

    const summary = (await conn.sendRequest(ExecuteCommandRequest.type, runCommand({ uri, function: "main", inputs: { x: "random:3" } }))) as RunSummary;
    assert.equal(summary.entry, "main");
    assert.equal(summary.outputs[0].vdevice, "llvm:1");
    assert.deepEqual(summary.outputs[0].shape, [64, 16]);
    assert.match(summary.text, /copied between devices: 8192 bytes in 1 copies/);
    assert.equal(progress[0].kind, "begin");
    assert.equal(progress.at(-1).kind, "end");
    const page = resultHtml(summary);
    assert.ok((page.match(/<rect/g) ?? []).length > 32 * 16, "histogram bars and a 32x16 heat map");
    // The run's devices with their peak memory, from the real answer: llvm:1 holds z, the copy and the result.
    assert.match(page, /<td>llvm:1<\/td><td>cpu:1<\/td><td>1<\/td><td>[0-9.]+<\/td><td>14.0 KiB<\/td>/);

    // A failing run is an error answer, not a dead server.
    await assert.rejects(conn.sendRequest(ExecuteCommandRequest.type, runCommand({ uri, function: "main", inputs: { nope: "random" } })),
                         /main has no parameter 'nope'/);
    // tvms.run.params: a weights file, relative to the module's folder, binds z by name (all zeros
    // here, laid out as safetensors says), so the product is zero whatever x and y are.
    const weightsDir = fs.mkdtempSync(path.join(os.tmpdir(), "tvms-params-"));
    const header = JSON.stringify({ z: { dtype: "F32", shape: [32, 16], data_offsets: [0, 2048] } });
    const padded = header + " ".repeat((8 - (header.length % 8)) % 8);
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(padded.length));
    fs.writeFileSync(path.join(weightsDir, "w.safetensors"), Buffer.concat([length, Buffer.from(padded), Buffer.alloc(2048)]));
    const withWeights = "file://" + path.join(weightsDir, "m.py");
    await conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: withWeights, languageId: "python", version: 1, text } });
    const zeroed = (await conn.sendRequest(ExecuteCommandRequest.type, runCommand({ uri: withWeights, function: "main", params: "w.safetensors" }))) as RunSummary;
    assert.equal(zeroed.outputs[0].min, 0);
    assert.equal(zeroed.outputs[0].max, 0);
    fs.rmSync(weightsDir, { recursive: true });
    await conn.sendRequest(ShutdownRequest.type);
    await conn.sendNotification(ExitNotification.type);
    const code = await new Promise<number | null>((r) => child.on("exit", r));
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill();
    conn.dispose();
  }
});

test("the graph page from the real `tvms graph` (Graphviz's SVG): every binding and the copy's bytes are in it", () => {
  assert.ok(fs.existsSync(binary), `no tvms binary at ${binary}`);
  const dir = fs.mkdtempSync(path.join(require("os").tmpdir(), "tvms-graph-e2e-"));
  const out = path.join(dir, "g.svg");
  const r = cp.spawnSync(binary, graphArgs(path.join(root, "examples", "cpu_gpu_mlp.py"), "main", "RealizeVDevice", out), { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const page = graphHtml(fs.readFileSync(out, "utf8"), "main after RealizeVDevice");
  assert.match(page, /<svg /);
  assert.match(page, /copy 524288 bytes/);
  assert.doesNotMatch(page, /<\?xml/);
  fs.rmSync(dir, { recursive: true, force: true });
});
