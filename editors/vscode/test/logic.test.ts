// The extension's pure logic (src/logic.ts).
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { test } from "node:test";

import { findServer, functionsFromLenses, heatmapSvg, histogramSvg, parseInputs, resultHtml, runCommand } from "../src/logic";

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

test("the result page: histogram bars scale to the largest bin, the heat map spans blue to red, text is escaped", () => {
  const out = { name: "y<1>", shape: [2, 2], dtype: "float32", vdevice: "llvm:1", min: 0, max: 3, mean: 1.5,
                histogram: [1, 4, 2], preview: { rows: 2, cols: 2, values: [0, 1, 2, 3] } };
  const h = histogramSvg(out, 30, 40);
  assert.equal((h.match(/<rect/g) ?? []).length, 3);
  assert.match(h, /y="0.0" width="9.0" height="40.0"/);  // the bin of 4 fills the height
  const m = heatmapSvg(out, 8);
  assert.match(m, /fill="rgb\(0,64,255\)"/);
  assert.match(m, /fill="rgb\(255,64,0\)"/);
  const page = resultHtml({ entry: "main", outputs: [out], text: "a < b" });
  assert.match(page, /y&lt;1&gt;/);
  assert.match(page, /a &lt; b/);
  assert.match(page, /Content-Security-Policy/);
  assert.equal(heatmapSvg({ ...out, preview: undefined }), "");
});
