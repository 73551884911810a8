// The extension's pure logic (src/logic.ts).
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { test } from "node:test";

import {
  findServer, functionsFromLenses, graphArgs, graphHtml, heatmapSvg, histogramSvg, humanBytes, parseInputs, resultHtml, runCommand, tick,
} from "../src/logic";

function fakeBinary(dir: string): string {
  const p = path.join(dir, "tvms");
  fs.writeFileSync(p, "#!/bin/sh\n");
  fs.chmodSync(p, 0o755);
  return p;
}

test("findServer: the setting with ${workspaceFolder}, else PATH, else a clear error", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tvms-ext-"));
  const bin = fakeBinary(dir);
  assert.equal(findServer("${workspaceFolder}/tvms", dir, "").command, bin);
  assert.match(findServer("${workspaceFolder}/tvms", undefined, "").error ?? "", /no folder is open/);
  assert.match(findServer("/nonexistent/tvms", dir, "").error ?? "", /not an executable file/);
  assert.equal(findServer("", undefined, `/nonexistent${path.delimiter}${dir}`).command, bin);
  assert.match(findServer("", undefined, "/nonexistent").error ?? "", /cannot find the tvms binary: set tvms.server.path/);
  fs.chmodSync(bin, 0o644);
  assert.ok(findServer("", undefined, dir).error, "a file that is not executable is not the server");
});

test("parseInputs and runCommand build tvms.run's arguments", () => {
  assert.deepEqual(parseInputs("x=random:1, w = /d/w.npy").inputs, { x: "random:1", w: "/d/w.npy" });
  assert.deepEqual(parseInputs("").inputs, {});
  assert.match(parseInputs("x").error ?? "", /"x" is not NAME=/);
  assert.match(parseInputs("x=").error ?? "", /"x=" is not/);
  assert.deepEqual(runCommand({ uri: "file:///m.py", function: "main", inputs: { x: "random" }, device: {}, timeoutMs: 5 }), {
    command: "tvms.run",
    arguments: [{ uri: "file:///m.py", function: "main", inputs: { x: "random" }, timeoutMs: 5 }],
  });
  assert.deepEqual(runCommand({ uri: "file:///m.py", function: "main", params: "w.safetensors" }).arguments, [
    { uri: "file:///m.py", function: "main", params: "w.safetensors" },
  ]);
});

test("functionsFromLenses takes the run lenses' functions", () => {
  const lenses = [
    { command: { command: "tvms.run", arguments: [{ uri: "u", function: "main" }] } },
    { command: { command: "other", arguments: [{ function: "x" }] } },
    { command: { command: "tvms.run", arguments: [{ uri: "u", function: "helper" }] } },
    {},
  ];
  assert.deepEqual(functionsFromLenses(lenses), ["main", "helper"]);
});

test("the result page: histogram with axes, ticks at the bin edges, a legend and theme colours; heat map with a colour bar", () => {
  const out = { name: "y<1>", shape: [2, 2], dtype: "float32", vdevice: "llvm:1", min: 0, max: 3, mean: 1.5,
                histogram: [1, 4, 2], histogramEdges: [0, 1, 2, 3], preview: { rows: 2, cols: 2, values: [0, 1, 2, 3] } };
  const h = histogramSvg(out, 360, 150);
  // Three bars (plus the legend's swatch); the bin of 4 fills the plot's height (150 - 22 - 34 = 94).
  assert.equal((h.match(/<rect/g) ?? []).length, 4);
  assert.match(h, /y="22.0" width="[0-9.]+" height="94.0" style="fill: var\(--vscode-charts-blue, #4e79a7\)"><title>4<\/title>/);
  for (const t of [">0<", ">1.5<", ">3<", ">4<", ">value<", ">count<", "elements per bin (3 bins)"]) assert.ok(h.includes(t), t);
  assert.match(h, /<line [^>]*style="stroke: var\(--vscode-descriptionForeground/);
  assert.match(h, /fill: var\(--vscode-foreground/);
  const m = heatmapSvg(out, 8);
  assert.match(m, /fill="rgb\(0,64,255\)"/);
  assert.match(m, /fill="rgb\(255,64,0\)"/);
  assert.match(m, /<linearGradient/);
  for (const t of [">max 3<", ">min 0<", "axis 1 (2) →", "axis 0 (2) →"]) assert.ok(m.includes(t), t);
  const page = resultHtml({ entry: "main", outputs: [out], text: "a < b",
    devices: [{ index: 0, vdevice: "llvm:0", device: "cpu:0", kernels: 1, ms: 0.5, peakBytes: 57344 }, { index: 1, vdevice: "cuda:0", device: "cuda:0", kernels: 2, ms: 0.25, peakBytes: 512 }],
    kernels: [{ device: 1, name: "fused_add", calls: 2, ms: 0.25 }], copyList: [{ from: "cpu:0", to: "cuda:0", bytes: 8192, ms: 0.1 }] });
  assert.match(page, /y&lt;1&gt;/);
  assert.match(page, /a &lt; b/);
  assert.match(page, /Content-Security-Policy/);
  assert.match(page, /<td>llvm:0<\/td><td>cpu:0<\/td><td>1<\/td><td>0.500<\/td><td>56.0 KiB<\/td>/);
  assert.match(page, /<td>fused_add<\/td><td>cuda:0<\/td><td>2<\/td>/);
  assert.match(page, /<td>cpu:0<\/td><td>cuda:0<\/td><td>8192<\/td>/);
  assert.match(page, /background: var\(--vscode-editor-background\)/);
  assert.equal(heatmapSvg({ ...out, preview: undefined }), "");
  // Without bin edges the ticks come from min and max.
  assert.ok(histogramSvg({ ...out, histogramEdges: undefined, min: -2, max: 2 }).includes(">-2<"));
});

test("byte sizes and tick labels read short", () => {
  assert.equal(humanBytes(512), "512 B");
  assert.equal(humanBytes(1536), "1.5 KiB");
  assert.equal(humanBytes(3 * 1024 * 1024), "3.0 MiB");
  assert.equal(tick(0.000012345), "1.23e-5");
  assert.equal(tick(123456), "1.23e+5");
  assert.equal(tick(1.23456), "1.23");
});

test("the graph page: tvms graph's arguments, Graphviz's SVG inline without its prolog", () => {
  assert.deepEqual(graphArgs("/t/m.py", "main", "RealizeVDevice", "/t/g.svg"), ["graph", "/t/m.py", "--function", "main", "--after", "RealizeVDevice", "-o", "/t/g.svg"]);
  const page = graphHtml('<?xml version="1.0"?>\n<!DOCTYPE svg>\n<!-- Generated by graphviz -->\n<svg width="10"><g><title>x</title></g></svg>\n', "main <after>");
  assert.match(page, /<body><h2>main &lt;after&gt;<\/h2><svg width="10"><g><title>x<\/title><\/g><\/svg>/);
  assert.doesNotMatch(page, /<\?xml|DOCTYPE svg|Generated by/);
  assert.match(page, /default-src 'none'/);
  assert.throws(() => graphHtml("dot: syntax error", "t"), /no SVG/);
});
