// A stand-in for the `vscode` module (and vscode-languageclient/node, which needs a running VS Code)
// for the extension's unit tests: records what the extension registers, shows and starts.
import Module = require("module");

export interface Recorded {
  commands: Map<string, (...a: unknown[]) => unknown>;
  errors: string[];
  outputLines: string[];
  webviews: { title: string; webview: { html: string } }[];
  clients: { id: string; serverOptions: any; clientOptions: any; started: boolean; stopped: boolean; requests: any[] }[];
  settings: Record<string, unknown>;
  quickPicks: string[][];
  inputBox: string | undefined;
  requestAnswers: Record<string, unknown>;
  contentProviders: Map<string, { provideTextDocumentContent(u: { toString(): string }): string }>;
  shownDocuments: unknown[];
  editorText: string;
}

export const rec: Recorded = {
  commands: new Map(), errors: [], outputLines: [], webviews: [], clients: [], settings: {}, quickPicks: [],
  inputBox: "", requestAnswers: {}, contentProviders: new Map(), shownDocuments: [], editorText: "",
};

export function reset(settings: Record<string, unknown> = {}) {
  rec.commands.clear();
  rec.errors = [];
  rec.outputLines = [];
  rec.webviews = [];
  rec.clients = [];
  rec.settings = settings;
  rec.quickPicks = [];
  rec.inputBox = "";
  rec.requestAnswers = {};
  rec.contentProviders.clear();
  rec.shownDocuments = [];
  rec.editorText = "";
}

const disposable = { dispose() {} };
const vscode = {
  ViewColumn: { Beside: -2 },
  Uri: { parse: (s: string) => ({ toString: () => s, fsPath: s }) },
  window: {
    createOutputChannel: () => ({ appendLine: (l: string) => rec.outputLines.push(l), show() {}, dispose() {} }),
    showErrorMessage: async (m: string) => { rec.errors.push(m); return undefined; },
    showQuickPick: async (items: string[]) => { rec.quickPicks.push(items); return items[items.length - 1]; },
    showInputBox: async () => rec.inputBox,
    createWebviewPanel: (_id: string, title: string) => {
      const panel = { title, webview: { html: "" }, dispose() {} };
      rec.webviews.push(panel as any);
      return panel;
    },
    showTextDocument: async (d: unknown) => { rec.shownDocuments.push(d); return undefined; },
    activeTextEditor: { document: { uri: { toString: () => "file:///work/m.py" }, fileName: "/work/m.py", getText: () => rec.editorText } },
  },
  workspace: {
    workspaceFolders: [{ uri: { fsPath: "/work" } }],
    getConfiguration: () => ({ get: (key: string, fallback: unknown) => (key in rec.settings ? rec.settings[key] : fallback) }),
    registerTextDocumentContentProvider: (scheme: string, p: any) => { rec.contentProviders.set(scheme, p); return disposable; },
    onDidChangeConfiguration: () => disposable,
    openTextDocument: async (u: unknown) => u,
  },
  commands: {
    registerCommand: (name: string, f: (...a: unknown[]) => unknown) => { rec.commands.set(name, f); return disposable; },
    executeCommand: async (name: string, ...a: unknown[]) => rec.commands.get(name)?.(...a),
  },
};

class LanguageClient {
  rec: Recorded["clients"][number];
  constructor(id: string, _name: string, serverOptions: unknown, clientOptions: unknown) {
    this.rec = { id, serverOptions, clientOptions, started: false, stopped: false, requests: [] };
    rec.clients.push(this.rec);
  }
  async start() { this.rec.started = true; }
  async stop() { this.rec.stopped = true; }
  async sendRequest(method: string, params: unknown) {
    this.rec.requests.push({ method, params });
    const a = rec.requestAnswers[method];
    if (a instanceof Error) throw a;
    return a;
  }
}
const languageclient = { LanguageClient, TransportKind: { stdio: 0 } };

const load = (Module as any)._load;
(Module as any)._load = function (request: string, ...rest: unknown[]) {
  if (request === "vscode") return vscode;
  if (request === "vscode-languageclient/node") return languageclient;
  return load.call(this, request, ...rest);
};
