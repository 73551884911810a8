// The extension's logic that does not need VS Code: finding the server, the tvms.run arguments,
// reading the run's summary, and the webview's histogram / heat map. Unit-tested in test/logic.test.ts.
import * as fs from "fs";
import * as path from "path";

export const PASSES = ["parsed", "Normalize", "RealizeVDevice", "OffloadLibraries", "LegalizeOps", "LowerToVM"];

export interface ServerLocation {
  command?: string;
  error?: string;
}

// `tvms.server.path` with ${workspaceFolder} expanded, else `tvms` on PATH.
export function findServer(setting: string, workspaceFolder: string | undefined, envPath: string | undefined): ServerLocation {
  if (setting.trim() !== "") {
    let p = setting.trim();
    if (p.includes("${workspaceFolder}")) {
      if (!workspaceFolder) return { error: `tvms.server.path is "${setting}", but no folder is open to expand \${workspaceFolder}` };
      p = p.split("${workspaceFolder}").join(workspaceFolder);
    }
    if (!isExecutable(p)) return { error: `tvms.server.path is "${setting}", but ${p} is not an executable file` };
    return { command: p };
  }
  for (const dir of (envPath ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, "tvms");
    if (isExecutable(candidate)) return { command: candidate };
  }
  return { error: "cannot find the tvms binary: set tvms.server.path (build it with ./dev build: build/bin/tvms) or put tvms on PATH" };
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

// "x=random:1, w=/data/w.npy" -> {x: "random:1", w: "/data/w.npy"}; an error names the bad item.
export function parseInputs(text: string): { inputs?: Record<string, string>; error?: string } {
  const inputs: Record<string, string> = {};
  for (const item of text.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
    const eq = item.indexOf("=");
    if (eq <= 0 || eq === item.length - 1) return { error: `"${item}" is not NAME=random[:seed] or NAME=FILE.npy` };
    inputs[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return { inputs };
}

export interface RunRequest {
  uri: string;
  function: string;
  inputs?: Record<string, string>;
  device?: Record<string, string>;
  timeoutMs?: number;
}

// The workspace/executeCommand params of a run.
export function runCommand(req: RunRequest): { command: string; arguments: unknown[] } {
  const arg: Record<string, unknown> = { uri: req.uri, function: req.function };
  if (req.inputs && Object.keys(req.inputs).length) arg.inputs = req.inputs;
  if (req.device && Object.keys(req.device).length) arg.device = req.device;
  if (req.timeoutMs) arg.timeoutMs = req.timeoutMs;
  return { command: "tvms.run", arguments: [arg] };
}

export interface RunOutput {
  name: string;
  shape: number[];
  dtype: string;
  vdevice: string;
  min?: number;
  max?: number;
  mean?: number;
  histogram?: number[];
  preview?: { rows: number; cols: number; values: (number | null)[] };
}
export interface RunSummary {
  entry: string;
  outputs: RunOutput[];
  text: string;
}

// The functions the server's code lenses offer ("▶ Run main" -> main).
export function functionsFromLenses(lenses: { command?: { command: string; arguments?: unknown[] } }[]): string[] {
  const out: string[] = [];
  for (const l of lenses) {
    const a = l.command?.arguments?.[0] as { function?: string } | undefined;
    if (l.command?.command === "tvms.run" && a?.function) out.push(a.function);
  }
  return out;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

// One output's histogram as SVG bars.
export function histogramSvg(o: RunOutput, width = 320, height = 80): string {
  const h = o.histogram ?? [];
  const top = Math.max(1, ...h);
  const w = width / Math.max(1, h.length);
  const bars = h
    .map((n, i) => `<rect x="${(i * w).toFixed(1)}" y="${(height - (n / top) * height).toFixed(1)}" width="${(w - 1).toFixed(1)}" height="${((n / top) * height).toFixed(1)}" fill="#4e79a7"/>`)
    .join("");
  return `<svg width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="histogram of ${escapeHtml(o.name)}">${bars}</svg>`;
}

// One output's preview (a downsampled matrix) as an SVG heat map, blue (min) to red (max).
export function heatmapSvg(o: RunOutput, cell = 8): string {
  const p = o.preview;
  if (!p || !p.rows || !p.cols) return "";
  const vals = p.values.filter((v): v is number => v !== null);
  const lo = Math.min(...vals), hi = Math.max(...vals);
  const rects: string[] = [];
  for (let r = 0; r < p.rows; r++)
    for (let c = 0; c < p.cols; c++) {
      const v = p.values[r * p.cols + c];
      const t = v === null ? 0 : hi > lo ? (v - lo) / (hi - lo) : 0.5;
      const red = Math.round(255 * t), blue = Math.round(255 * (1 - t));
      rects.push(`<rect x="${c * cell}" y="${r * cell}" width="${cell}" height="${cell}" fill="rgb(${red},64,${blue})"/>`);
    }
  return `<svg width="${p.cols * cell}" height="${p.rows * cell}" role="img" aria-label="heat map of ${escapeHtml(o.name)}">${rects.join("")}</svg>`;
}

// The webview's page for a run: the summary text, then per output its histogram and heat map.
export function resultHtml(s: RunSummary): string {
  const parts = s.outputs.map((o) => {
    const stats = o.min !== undefined ? ` min ${o.min.toPrecision(4)}, max ${o.max?.toPrecision(4)}, mean ${o.mean?.toPrecision(4)}` : "";
    return `<h3>${escapeHtml(o.name)}: (${o.shape.join(", ")}) ${escapeHtml(o.dtype)} on "${escapeHtml(o.vdevice)}"${stats}</h3>` +
      (o.histogram ? `<p>histogram</p>${histogramSvg(o)}` : "") + (o.preview ? `<p>heat map</p>${heatmapSvg(o)}` : "");
  });
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';"></head>` +
    `<body><h2>tvms run ${escapeHtml(s.entry)}</h2><pre>${escapeHtml(s.text)}</pre>${parts.join("")}</body></html>`;
}
