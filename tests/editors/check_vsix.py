#!/usr/bin/env python3
"""Checks a packaged .vsix: the manifest's entry point and activation, the compiled extension, and the
language client it needs at run time (a .vsix without node_modules/vscode-languageclient fails on start)."""
import json
import sys
import zipfile

vsix = zipfile.ZipFile(sys.argv[1])
names = set(vsix.namelist())
manifest = json.loads(vsix.read("extension/package.json"))
need = ["extension/out/src/extension.js", "extension/out/src/logic.js",
        "extension/node_modules/vscode-languageclient/node.js", "extension/node_modules/vscode-languageclient/package.json"]
missing = [n for n in need if n not in names]
leaked = sorted(n for n in names if n.startswith("extension/src/") or n.startswith("extension/test/") or "/typescript/" in n)
problems = []
if missing: problems.append(f"missing {missing}")
if leaked: problems.append(f"sources or dev tools packaged: {leaked[:5]}")
if manifest.get("main") != "./out/src/extension.js": problems.append(f"main is {manifest.get('main')}")
if "onLanguage:python" not in manifest.get("activationEvents", []): problems.append("does not activate on Python files")
if manifest.get("engines", {}).get("vscode") != "^1.82.0": problems.append(f"engines.vscode is {manifest.get('engines')}")
if problems:
    print("check_vsix: " + "; ".join(problems))
    sys.exit(1)
print(f"check_vsix: {sys.argv[1]} ok ({len(names)} files)")
