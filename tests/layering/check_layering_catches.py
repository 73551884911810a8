#!/usr/bin/env python3
"""The layering check catches what it is meant to: run on a copy of the tree with a target kind
spelled outside the table (runtime/target_kind.cpp) or a diagnostic code spelled as a string, it
fails naming the file and line; a kind's name in a comment, a raw string or a marked line passes."""
import os
import shutil
import subprocess
import sys
import tempfile

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
check = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_layering.py")


def run_on(extra):
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(root, "ARCHITECTURE.md"), tmp)
        for room in ("compiler", "runtime"):
            shutil.copytree(os.path.join(root, room), os.path.join(tmp, room), ignore=shutil.ignore_patterns("node_modules"))
        with open(os.path.join(tmp, "compiler", "transform", "targets.cpp"), "a", encoding="utf-8") as f:
            f.write(extra)
        return subprocess.run([sys.executable, check, tmp], capture_output=True, text=True)


failures = []
clean = run_on('\n// a comment may say "cuda"\nstatic const char* kDoc = R"(I.vdevice("cuda"))";\n'
               'static const char* kFormat = "llvm";  // --emit\'s format, not a target kind\n')
if clean.returncode != 0:
    failures.append("a comment, a raw string or a marked line was reported:\n" + clean.stdout)
spelled = run_on('\nstatic bool onGpu(const std::string& k) { return k == "cuda"; }\n')
if spelled.returncode != 1 or 'compiler/transform/targets.cpp:' not in spelled.stdout or 'the target kind "cuda"' not in spelled.stdout:
    failures.append(f"a kind spelled outside the table was not reported (exit {spelled.returncode}):\n" + spelled.stdout)
code = run_on('\nstatic bool isSyntax(const std::string& c) { return c == "TVS001"; }\n')
if code.returncode != 1 or 'the diagnostic code "TVS001" as a string' not in code.stdout:
    failures.append(f"a diagnostic code spelled as a string was not reported (exit {code.returncode}):\n" + code.stdout)
for f in failures:
    print(f)
print("check_layering_catches: " + ("FAILED" if failures else "the check reports a spelled kind or code, and nothing else"))
sys.exit(1 if failures else 0)
