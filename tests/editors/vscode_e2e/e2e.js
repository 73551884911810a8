// The VS Code extension in a real VS Code: code-server (the VS Code workbench served to a browser)
// with the packaged .vsix installed, driven by Playwright through Debian's Chromium. As a user
// would: open a file with an undeclared vdevice, see the squiggle, apply the quick fix, click the
// "Run main" lens, see the run's webview. A CTest entry of `./dev test` (which installs code-server and
// playwright-core here); `./dev test-editors` runs it alone. It found that VS Code starts the server as
// `tvms lsp --stdio`, which tvms refused: the extension had never started in a real VS Code.
//   TVMS_BINARY  the tvms binary (tvms.server.path)      TVMS_VSIX  the packaged extension
//   CHROMIUM     the browser (default /usr/bin/chromium)  E2E_OUT    where screenshots and logs go
"use strict";
const assert = require("assert");
const cp = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
let chromium;
try {
  ({ chromium } = require("playwright-core"));
} catch {
  console.error("e2e: playwright-core is not installed: ./dev test (or ./dev test-editors) installs it with code-server");
  process.exit(1);
}

const binary = process.env.TVMS_BINARY;
const vsix = process.env.TVMS_VSIX;
const browserPath = process.env.CHROMIUM || "/usr/bin/chromium";
const keepOut = Boolean(process.env.E2E_OUT);  // a temporary one is removed when the test passes
const out = process.env.E2E_OUT || fs.mkdtempSync(path.join(os.tmpdir(), "tvms-e2e-out-"));
const codeServer = path.join(__dirname, "node_modules", ".bin", "code-server");
const STEP_MS = 90000;  // the longest any one step may take (the first start of the server and the run)

const MODULE = `from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0)]})

    @R.function
    def main(x: R.Tensor((4, 4), "float32", "llvm:0")):
        y = R.add(x, x)
        z = R.to_vdevice(y, "llvm:1")
        return z
`;

function step(name) {
  console.log(`e2e: ${name}`);
}

// code-server on a free port of the loopback interface; resolves with its URL once it listens.
function startCodeServer(work, env) {
  const child = cp.spawn(codeServer, [
    "--auth", "none", "--bind-addr", "127.0.0.1:0", "--disable-telemetry", "--disable-update-check",
    "--disable-workspace-trust", "--user-data-dir", path.join(work, "data"), "--extensions-dir", path.join(work, "extensions"),
  ], { env, stdio: ["ignore", "pipe", "pipe"] });
  const log = fs.createWriteStream(path.join(out, "code-server.log"));
  child.stderr.pipe(log);
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`code-server did not start:\n${seen}`)), STEP_MS);
    child.stdout.on("data", (d) => {
      log.write(d);
      seen += d.toString();
      const m = seen.match(/HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.on("exit", (code) => reject(new Error(`code-server exited (${code}):\n${seen}`)));
  });
}

async function main() {
  assert.ok(binary && fs.existsSync(binary), "TVMS_BINARY: the tvms binary");
  assert.ok(vsix && fs.existsSync(vsix), "TVMS_VSIX: the packaged extension");
  assert.ok(fs.existsSync(browserPath), `no browser at ${browserPath} (apt-get install chromium)`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "tvms-e2e-"));
  const env = { ...process.env, XDG_CONFIG_HOME: path.join(work, "config"), XDG_DATA_HOME: path.join(work, "share") };
  const folder = path.join(work, "project");
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, "module.py"), MODULE);
  fs.mkdirSync(path.join(work, "data", "User"), { recursive: true });
  fs.writeFileSync(path.join(work, "data", "User", "settings.json"), JSON.stringify({
    "tvms.server.path": binary,
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": false,
    "extensions.ignoreRecommendations": true,
    "security.workspace.trust.enabled": false,
    "editor.codeLens": true,
  }));

  step("install the .vsix into code-server");
  const install = cp.spawnSync(codeServer, ["--extensions-dir", path.join(work, "extensions"), "--user-data-dir", path.join(work, "data"),
                                            "--install-extension", vsix], { env, encoding: "utf8" });
  assert.equal(install.status, 0, install.stdout + install.stderr);

  const server = await startCodeServer(work, env);
  const browser = await chromium.launch({ executablePath: browserPath, headless: true, args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(STEP_MS);
  try {
    step(`open ${server.url} with the project folder`);
    await page.goto(`${server.url}/?folder=${encodeURIComponent(folder)}`);
    await page.locator(".monaco-workbench").waitFor();

    step("open module.py through Quick Open");
    await page.locator(".monaco-workbench").click({ position: { x: 700, y: 400 } });
    await page.keyboard.press("Control+P");
    await page.locator(".quick-input-widget input").fill("module.py");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "module.py" }).first().waitFor();
    await page.keyboard.press("Enter");
    const editor = page.locator(".editor-instance .monaco-editor").first();
    await editor.locator(".view-lines", { hasText: "R.to_vdevice" }).waitFor();

    step("the squiggle under the undeclared \"llvm:1\"");
    const squiggle = editor.locator(".squiggly-error").first();
    await squiggle.waitFor();
    await page.screenshot({ path: path.join(out, "1-squiggle.png") });

    step("Ctrl+. on it offers the fix that declares the vdevice; apply it");
    // The code lens and the inlay hints arrive after the squiggle and move the lines (the lens adds a
    // row above main): wait for them before measuring where to click, and check the caret landed on
    // the squiggle's line (12) before asking for fixes.
    await editor.locator(".codelens-decoration a", { hasText: "Run main" }).first().waitFor();
    const caretOnLine12 = page.locator(".statusbar-item", { hasText: /Ln 12, Col/ }).first();
    for (let attempt = 0; ; ++attempt) {
      const box = await squiggle.boundingBox();
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      try { await caretOnLine12.waitFor({ timeout: 5000 }); break; } catch (e) { if (attempt == 5) throw e; }
    }
    await page.keyboard.press("Control+.");
    const fix = page.locator(".action-widget .monaco-list-row", { hasText: 'Declare I.vdevice("llvm", 1)' });
    await fix.waitFor();
    await page.screenshot({ path: path.join(out, "2-quick-fix.png") });
    // The menu's overlay takes the pointer: choose with the keyboard, as its first (focused) entry.
    await page.locator(".action-widget .monaco-list-row.focused", { hasText: 'Declare I.vdevice("llvm", 1)' }).waitFor();
    await page.keyboard.press("Enter");
    await editor.locator(".view-lines", { hasText: 'I.vdevice("llvm", 1)' }).waitFor();
    await editor.locator(".squiggly-error").waitFor({ state: "detached" });

    step("click the \"Run main\" code lens; the run's page opens beside the editor");
    const lens = editor.locator(".codelens-decoration a", { hasText: "Run main" }).first();
    await lens.waitFor();
    await lens.click();
    await page.locator(".tab", { hasText: "tvms: main" }).waitFor();
    const frame = page.frameLocator("iframe.webview.ready").first().frameLocator("iframe#active-frame");
    await frame.locator("h2", { hasText: "tvms run main" }).waitFor();
    await frame.locator("td", { hasText: "llvm:1" }).first().waitFor();
    await frame.locator("svg[aria-label^='histogram of']").first().waitFor();
    await page.screenshot({ path: path.join(out, "3-run-webview.png") });
    console.log(keepOut ? `e2e: passed (screenshots in ${out})` : "e2e: passed");
    if (!keepOut) fs.rmSync(out, { recursive: true, force: true });
  } catch (e) {
    await page.screenshot({ path: path.join(out, "failure.png") }).catch(() => {});
    // VS Code's own logs (the extension host's, the language client's output channel) beside it.
    fs.cpSync(path.join(work, "data", "logs"), path.join(out, "vscode-logs"), { recursive: true });
    console.error(`e2e: FAILED (screenshots and code-server.log in ${out})`);
    throw e;
  } finally {
    await browser.close();
    server.child.kill();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
