// The VS Code side of tvms: starts `tvms lsp` (tvms.server.path, else PATH) for Python files, and adds
// the commands "Run function on device", "Show IR after pass…", "Show dataflow graph…" and "Restart
// server". The server (and `tvms graph`) does the work; the pure logic lives in logic.ts.
import * as cp from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as vscode from "vscode";
import type { LanguageClient as Client } from "vscode-languageclient/node";

import {
  GRAPH_PASSES, PASSES, RunSummary, findServer, functionsFromLenses, graphArgs, graphHtml, parseInputs, resultHtml, runCommand,
} from "./logic";

let client: Client | undefined;
let serverCommand: string | undefined;  // the tvms binary found at start (also runs `tvms graph`)
let output: vscode.OutputChannel;
const irDocuments = new Map<string, string>();
const IR_SCHEME = "tvms-ir";

function config() {
  return vscode.workspace.getConfiguration("tvms");
}

// tvms.lint.* as the server reads them; an unset select keeps [tool.tvms]'s or the defaults.
export function lintSettings(): { select?: string[]; extendSelect: string[]; ignore: string[] } {
  const select = config().get<string[] | null>("lint.select", null);
  return {
    ...(Array.isArray(select) ? { select } : {}),
    extendSelect: config().get<string[]>("lint.extendSelect", []),
    ignore: config().get<string[]>("lint.ignore", []),
  };
}

function startClient(context: vscode.ExtensionContext): Client | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const found = findServer(config().get<string>("server.path", ""), folder, process.env.PATH);
  serverCommand = found.command;
  if (!found.command) {
    void vscode.window.showErrorMessage(`TVMScript: ${found.error}`);
    output.appendLine(`tvms: ${found.error}`);
    return undefined;
  }
  // Loaded here, not at the top: the module needs a running VS Code.
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const lc = require("vscode-languageclient/node") as typeof import("vscode-languageclient/node");
  const serverOptions = { command: found.command, args: ["lsp", ...config().get<string[]>("server.args", [])], transport: lc.TransportKind.stdio };
  const clientOptions: import("vscode-languageclient/node").LanguageClientOptions = {
    // Python files: the server answers only inside TVMScript regions and stays silent elsewhere,
    // so it sits beside Pylance and ruff on the same files.
    documentSelector: [{ scheme: "file", language: "python" }, { scheme: "untitled", language: "python" }],
    outputChannel: output,
    // Rule selection from the settings (over [tool.tvms]); changes reach the server as
    // workspace/didChangeConfiguration with the whole "tvms" section.
    initializationOptions: { tvms: { lint: lintSettings() } },
    synchronize: { configurationSection: "tvms" },
    middleware: {
      handleDiagnostics: (uri, diagnostics, next) => next(uri, config().get("diagnostics.enable", true) ? diagnostics : []),
      provideCodeLenses: (document, token, next) => (config().get("codeLens.enable", true) ? next(document, token) : []),
      provideInlayHints: (document, range, token, next) => (config().get("inlayHints.enable", true) ? next(document, range, token) : []),
      // A click on "▶ Run main" runs tvms.run on the server; its answer is shown here.
      executeCommand: async (command, args, next) => {
        if (command !== "tvms.run") return next(command, args);
        const a = { ...(args[0] as object), ...runSettings() };
        return showRun(context, await next(command, [a]));
      },
    },
  };
  const c = new lc.LanguageClient("tvms", "TVMScript (tvms)", serverOptions, clientOptions);
  void c.start();
  return c;
}

// What every run sends from the settings: tvms.run.device, tvms.run.timeoutMs and tvms.run.params.
function runSettings(): { device: Record<string, string>; timeoutMs: number; params?: string } {
  const params = config().get<string>("run.params", "");
  return { device: config().get("run.device", {}), timeoutMs: config().get("run.timeoutMs", 300000), ...(params ? { params } : {}) };
}

function showRun(context: vscode.ExtensionContext, result: unknown): unknown {
  const s = result as RunSummary | undefined;
  if (!s || !Array.isArray(s.outputs)) return result;
  output.appendLine(`── tvms run ${s.entry}`);
  output.appendLine(s.text.trimEnd());
  output.show(true);
  if (s.outputs.some((o) => o.histogram || o.preview)) {
    const panel = vscode.window.createWebviewPanel("tvmsRun", `tvms: ${s.entry}`, vscode.ViewColumn.Beside, { enableScripts: false });
    panel.webview.html = resultHtml(s);
    context.subscriptions.push(panel);
  }
  return result;
}

async function runFunction(context: vscode.ExtensionContext, uriArg?: string, fnArg?: string) {
  if (!client) return void vscode.window.showErrorMessage("TVMScript: the tvms server is not running");
  const editor = vscode.window.activeTextEditor;
  const uri = uriArg ?? editor?.document.uri.toString();
  if (!uri) return void vscode.window.showErrorMessage("TVMScript: open a TVMScript file first");
  let fn = fnArg;
  if (!fn) {
    const lenses = (await client.sendRequest("textDocument/codeLens", { textDocument: { uri } })) as { command?: { command: string; arguments?: unknown[] } }[];
    const fns = functionsFromLenses(lenses ?? []);
    if (!fns.length) return void vscode.window.showErrorMessage("TVMScript: this file has no @R.function to run");
    fn = fns.length === 1 ? fns[0] : await vscode.window.showQuickPick(fns, { placeHolder: "Function to run" });
    if (!fn) return;
  }
  const text = await vscode.window.showInputBox({ prompt: `Inputs of ${fn}`, placeHolder: "x=random:1, w=/path/w.npy (empty: random values for every input)" });
  if (text === undefined) return;
  const parsed = parseInputs(text);
  if (!parsed.inputs) return void vscode.window.showErrorMessage(`TVMScript: ${parsed.error}`);
  const params = runCommand({ uri, function: fn, inputs: parsed.inputs, ...runSettings() });
  try {
    showRun(context, await client.sendRequest("workspace/executeCommand", params));
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    output.appendLine(`tvms run ${fn}: ${message}`);
    void vscode.window.showErrorMessage(`TVMScript: ${message.split("\n")[0]}`);
  }
}

async function showIR() {
  const uri = vscode.window.activeTextEditor?.document.uri.toString();
  if (!client || !uri) return void vscode.window.showErrorMessage("TVMScript: open a TVMScript file with the server running");
  const pass = await vscode.window.showQuickPick(PASSES, { placeHolder: "Show the module after…" });
  if (!pass) return;
  try {
    const r = (await client.sendRequest("tvms/viewIR", { uri, pass })) as { text: string };
    const doc = vscode.Uri.parse(`${IR_SCHEME}:/${pass}.py?${encodeURIComponent(uri)}`);
    irDocuments.set(doc.toString(), r.text);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(doc), { preview: true, viewColumn: vscode.ViewColumn.Beside });
  } catch (e) {
    void vscode.window.showErrorMessage(`TVMScript: ${e instanceof Error ? e.message : String(e)}`);
  }
}

// The function's dataflow coloured by vdevice (`tvms graph` on the editor's text, SVG through
// Graphviz) in a webview beside the editor.
async function showGraph(context: vscode.ExtensionContext) {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return void vscode.window.showErrorMessage("TVMScript: open a TVMScript file first");
  if (!serverCommand) return void vscode.window.showErrorMessage("TVMScript: cannot find the tvms binary: set tvms.server.path");
  let fns: string[] = [];
  if (client) {
    const lenses = (await client.sendRequest("textDocument/codeLens", { textDocument: { uri: editor.document.uri.toString() } })) as
      { command?: { command: string; arguments?: unknown[] } }[];
    fns = functionsFromLenses(lenses ?? []);
  }
  const fn = fns.length > 1 ? await vscode.window.showQuickPick(fns, { placeHolder: "Function to draw" }) : fns[0] ?? "main";
  if (!fn) return;
  const after = await vscode.window.showQuickPick(GRAPH_PASSES, { placeHolder: "Draw the function after…" });
  if (!after) return;
  // The editor's text, saved or not, in a private directory (tvms graph reads a file).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tvms-graph-"));
  try {
    const file = path.join(dir, path.basename(editor.document.fileName ?? "") || "module.py");
    fs.writeFileSync(file, editor.document.getText());
    const out = path.join(dir, "graph.svg");
    await new Promise<void>((resolve, reject) =>
      cp.execFile(serverCommand!, graphArgs(file, fn, after, out), { timeout: 60000 }, (err, _stdout, stderr) =>
        err ? reject(new Error((stderr || err.message).trim().split("\n")[0])) : resolve()));
    const panel = vscode.window.createWebviewPanel("tvmsGraph", `tvms graph: ${fn}`, vscode.ViewColumn.Beside, { enableScripts: false });
    panel.webview.html = graphHtml(fs.readFileSync(out, "utf8"), `${fn} after ${after}`);
    context.subscriptions.push(panel);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    output.appendLine(`tvms graph ${fn}: ${message}`);
    void vscode.window.showErrorMessage(`TVMScript: ${message}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function activate(context: vscode.ExtensionContext) {
  output = vscode.window.createOutputChannel("TVMScript (tvms)");
  context.subscriptions.push(output);
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(IR_SCHEME, { provideTextDocumentContent: (u) => irDocuments.get(u.toString()) ?? "" }),
    vscode.commands.registerCommand("tvms.runFunction", (uri?: string, fn?: string) => runFunction(context, uri, fn)),
    vscode.commands.registerCommand("tvms.showIR", showIR),
    vscode.commands.registerCommand("tvms.showGraph", () => showGraph(context)),
    vscode.commands.registerCommand("tvms.restartServer", async () => {
      if (client) await client.stop();
      client = startClient(context);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("tvms.server")) void vscode.commands.executeCommand("tvms.restartServer");
    }),
  );
  client = startClient(context);
}

export function deactivate(): Thenable<void> | undefined {
  return client?.stop();
}
