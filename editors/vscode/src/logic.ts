// The extension's logic that does not need VS Code: finding the server, the tvms.run arguments,
// reading the run's summary, and the webview's histogram / heat map. Unit-tested in test/logic.test.ts.
import * as fs from "fs";
import * as path from "path";

export const PASSES = ["parsed", "Normalize", "RealizeVDevice", "OffloadLibraries", "LegalizeOps", "FuseOps", "FuseTIR", "RewriteDataflowReshape", "LowerToVM"];

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
  params?: string; // a .safetensors / .npz weights file, relative to the document's folder
  timeoutMs?: number;
}

// The workspace/executeCommand params of a run.
export function runCommand(req: RunRequest): { command: string; arguments: unknown[] } {
  const arg: Record<string, unknown> = { uri: req.uri, function: req.function };
  if (req.inputs && Object.keys(req.inputs).length) arg.inputs = req.inputs;
  if (req.device && Object.keys(req.device).length) arg.device = req.device;
  if (req.params) arg.params = req.params;
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
  histogramEdges?: number[];
  preview?: { rows: number; cols: number; values: (number | null)[] };
}
export interface RunDevice {
  index: number;
  vdevice: string;
  device: string;
  kernels: number;
  ms: number;
  peakBytes?: number;
}
export interface RunKernel {
  device: number;
  name: string;
  calls: number;
  ms: number;
}
export interface RunCopy {
  from: string;
  to: string;
  bytes: number;
  ms: number;
}
export interface RunSummary {
  entry: string;
  outputs: RunOutput[];
  text: string;
  devices?: RunDevice[];
  kernels?: RunKernel[];
  copyList?: RunCopy[];
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

// The editor's theme colours (VS Code sets these CSS variables in every webview), with fallbacks for
// a page opened elsewhere.
const FOREGROUND = "var(--vscode-foreground, #333)";
const MUTED = "var(--vscode-descriptionForeground, #777)";
const BAR = "var(--vscode-charts-blue, #4e79a7)";
const FONT = "font-family: var(--vscode-font-family, sans-serif); font-size: 11px";

// A number short enough for an axis label.
export function tick(v: number): string {
  if (v === 0) return "0";
  const a = Math.abs(v);
  return a >= 1e4 || a < 1e-3 ? v.toExponential(2) : String(Number(v.toPrecision(3)));
}

function label(x: number, y: number, text: string, anchor = "middle", extra = ""): string {
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" text-anchor="${anchor}" style="fill: ${FOREGROUND}; ${FONT}"${extra}>${escapeHtml(text)}</text>`;
}

// The heat map's colour for t in [0, 1]: blue (low) to red (high).
function heatColour(t: number): string {
  return `rgb(${Math.round(255 * t)},64,${Math.round(255 * (1 - t))})`;
}

// One output's histogram: bars over the value axis (bin edges as ticks: first, middle, last), a count
// axis, axis titles and a legend, in the editor's theme colours.
export function histogramSvg(o: RunOutput, width = 360, height = 150): string {
  const h = o.histogram ?? [];
  const top = Math.max(1, ...h);
  const m = { left: 46, right: 10, top: 22, bottom: 34 };
  const pw = width - m.left - m.right, ph = height - m.top - m.bottom;
  const w = pw / Math.max(1, h.length);
  const bars = h
    .map((n, i) => {
      const bh = (n / top) * ph;
      return `<rect x="${(m.left + i * w).toFixed(1)}" y="${(m.top + ph - bh).toFixed(1)}" width="${Math.max(0.5, w - 1).toFixed(1)}" height="${bh.toFixed(1)}" style="fill: ${BAR}"><title>${n}</title></rect>`;
    })
    .join("");
  const edges = o.histogramEdges && o.histogramEdges.length === h.length + 1 ? o.histogramEdges : undefined;
  const lo = edges ? edges[0] : o.min ?? 0, hi = edges ? edges[edges.length - 1] : o.max ?? 0;
  const axis = `stroke: ${MUTED}; stroke-width: 1`;
  const xAxis = `<line x1="${m.left}" y1="${m.top + ph}" x2="${m.left + pw}" y2="${m.top + ph}" style="${axis}"/>`;
  const yAxis = `<line x1="${m.left}" y1="${m.top}" x2="${m.left}" y2="${m.top + ph}" style="${axis}"/>`;
  const xTicks = [lo, (lo + hi) / 2, hi].map((v, i) => label(m.left + (pw * i) / 2, m.top + ph + 13, tick(v))).join("");
  const yTicks = label(m.left - 4, m.top + ph + 4, "0", "end") + label(m.left - 4, m.top + 4, String(top), "end");
  const titles = label(m.left + pw / 2, height - 3, "value") +
    label(12, m.top + ph / 2, "count", "middle", ` transform="rotate(-90 12 ${(m.top + ph / 2).toFixed(1)})"`);
  const legend = `<rect x="${m.left}" y="4" width="10" height="10" style="fill: ${BAR}"/>` +
    label(m.left + 14, 13, `elements per bin (${h.length} bins)`, "start");
  return `<svg width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="histogram of ${escapeHtml(o.name)}">` +
    `${legend}${bars}${xAxis}${yAxis}${xTicks}${yTicks}${titles}</svg>`;
}

// One output's preview (the last two axes downsampled to a grid of block means) as a heat map, blue
// (min) to red (max), with a colour bar legend and axis titles.
export function heatmapSvg(o: RunOutput, cell = 8): string {
  const p = o.preview;
  if (!p || !p.rows || !p.cols) return "";
  const vals = p.values.filter((v): v is number => v !== null);
  const lo = Math.min(...vals), hi = Math.max(...vals);
  const m = { left: 20, top: 6, right: 90 };
  const gw = p.cols * cell, gh = p.rows * cell;
  const rects: string[] = [];
  for (let r = 0; r < p.rows; r++)
    for (let c = 0; c < p.cols; c++) {
      const v = p.values[r * p.cols + c];
      const t = v === null ? 0 : hi > lo ? (v - lo) / (hi - lo) : 0.5;
      rects.push(`<rect x="${m.left + c * cell}" y="${m.top + r * cell}" width="${cell}" height="${cell}" fill="${heatColour(t)}"/>`);
    }
  const barX = m.left + gw + 16, barH = Math.max(gh, 40);
  const gradient = `<defs><linearGradient id="heat-${escapeHtml(o.name)}" x1="0" y1="1" x2="0" y2="0">` +
    `<stop offset="0" stop-color="${heatColour(0)}"/><stop offset="1" stop-color="${heatColour(1)}"/></linearGradient></defs>`;
  const colourBar = `<rect x="${barX}" y="${m.top}" width="12" height="${barH}" fill="url(#heat-${escapeHtml(o.name)})"/>` +
    label(barX + 16, m.top + 9, `max ${tick(hi)}`, "start") + label(barX + 16, m.top + barH, `min ${tick(lo)}`, "start");
  const shape = o.shape;
  const colAxis = shape.length >= 1 ? `axis ${shape.length - 1} (${shape[shape.length - 1]})` : "";
  const rowAxis = shape.length >= 2 ? `axis ${shape.length - 2} (${shape[shape.length - 2]})` : "";
  const height = m.top + Math.max(gh, barH) + 18;
  const titles = label(m.left + gw / 2, height - 3, `${colAxis} →`) +
    label(10, m.top + gh / 2, `${rowAxis} →`, "middle", ` transform="rotate(90 10 ${(m.top + gh / 2).toFixed(1)})"`);
  const width = barX + m.right;
  return `<svg width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="heat map of ${escapeHtml(o.name)}">` +
    `${gradient}${rects.join("")}${colourBar}${titles}</svg>`;
}

// 1536 -> "1.5 KiB".
export function humanBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n, u = 0;
  while (v >= 1024 && u < units.length - 1) (v /= 1024), u++;
  return u ? `${v.toFixed(1)} ${units[u]}` : `${v} ${units[u]}`;
}

function table(head: string[], rows: string[][]): string {
  const th = head.map((h) => `<th>${escapeHtml(h)}</th>`).join("");
  const trs = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`).join("");
  return `<table><thead><tr>${th}</tr></thead><tbody>${trs}</tbody></table>`;
}

// Page styles in the editor's theme.
const PAGE_STYLE =
  "body { color: var(--vscode-foreground); background: var(--vscode-editor-background); font-family: var(--vscode-font-family); }" +
  " table { border-collapse: collapse; margin: 4px 0 12px; } th, td { padding: 2px 10px; text-align: left;" +
  " border-bottom: 1px solid var(--vscode-panel-border, #8884); } td { font-family: var(--vscode-editor-font-family); }" +
  " pre { font-family: var(--vscode-editor-font-family); }";

const KERNELS_SHOWN = 10;

// The webview's page for a run: per device its kernels, time and peak memory; the heaviest kernels;
// the copies; per output its histogram and heat map; then the summary text.
export function resultHtml(s: RunSummary): string {
  const sections: string[] = [];
  if (s.devices?.length)
    sections.push("<h3>Devices</h3>" + table(["#", "vdevice", "device", "kernels", "time (ms)", "peak memory"],
      s.devices.map((d) => [String(d.index), d.vdevice, d.device, String(d.kernels), d.ms.toFixed(3), d.peakBytes === undefined ? "" : humanBytes(d.peakBytes)])));
  if (s.kernels?.length) {
    const where = (i: number) => s.devices?.[i]?.vdevice ?? String(i);
    sections.push("<h3>Kernels by time</h3>" + table(["kernel", "vdevice", "calls", "time (ms)"],
      s.kernels.slice(0, KERNELS_SHOWN).map((k) => [k.name, where(k.device), String(k.calls), k.ms.toFixed(3)])) +
      (s.kernels.length > KERNELS_SHOWN ? `<p>… and ${s.kernels.length - KERNELS_SHOWN} more</p>` : ""));
  }
  if (s.copyList?.length)
    sections.push("<h3>Copies between devices</h3>" + table(["from", "to", "bytes", "time (ms)"],
      s.copyList.slice(0, KERNELS_SHOWN).map((c) => [c.from, c.to, String(c.bytes), c.ms.toFixed(3)])));
  const parts = s.outputs.map((o) => {
    const stats = o.min !== undefined ? ` min ${o.min.toPrecision(4)}, max ${o.max?.toPrecision(4)}, mean ${o.mean?.toPrecision(4)}` : "";
    return `<h3>${escapeHtml(o.name)}: (${o.shape.join(", ")}) ${escapeHtml(o.dtype)} on "${escapeHtml(o.vdevice)}"${stats}</h3>` +
      (o.histogram ? `<p>histogram</p>${histogramSvg(o)}` : "") + (o.preview ? `<p>heat map</p>${heatmapSvg(o)}` : "");
  });
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">` +
    `<style>${PAGE_STYLE}</style></head><body><h2>tvms run ${escapeHtml(s.entry)}</h2>${sections.join("")}${parts.join("")}<pre>${escapeHtml(s.text)}</pre></body></html>`;
}

// `tvms graph` for a function of a file saved at `file`, the SVG written to `out`.
export function graphArgs(file: string, fn: string, after: string, out: string): string[] {
  return ["graph", file, "--function", fn, "--after", after, "-o", out];
}

// The passes `tvms graph --after` draws.
export const GRAPH_PASSES = ["RealizeVDevice", "Normalize"];

// The webview's page for a graph: Graphviz's SVG inline (its XML prolog, doctype and comments
// dropped), on the editor's background. Scripts stay off (the page's policy allows none).
export function graphHtml(svg: string, title: string): string {
  const start = svg.indexOf("<svg");
  if (start < 0) throw new Error("tvms graph wrote no SVG");
  const body = svg.slice(start).replace(/<!--[\s\S]*?-->/g, "");
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">` +
    `<style>${PAGE_STYLE} svg { max-width: 100%; height: auto; background: #fff; border-radius: 4px; }</style></head>` +
    `<body><h2>${escapeHtml(title)}</h2>${body}</body></html>`;
}
