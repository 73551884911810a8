#!/usr/bin/env python3
"""How much of a sample of TVMScript modules tvms builds and runs (issues 31 and 30's measures).

Usage: measure_modules.py TVMS_BINARY DIR [--tir] [--verbose]

Each DIR/*.py holds one module (split from TVM's tests by hand or by script; they are not shipped:
the sample is held out). By default the Relax-only modules (no T.prim_func) are measured; with
--tir, the modules with a T.prim_func (Relax calling them, or prim_funcs alone). For each module
that `tvms lint` passes, it runs `tvms build` and, when that works and the module has a Relax
function and no cuda kernel (this machine has no GPU), `tvms run` on random inputs, giving every free
symbolic dim the value 4 (`--dim NAME=4`, added as `tvms run` asks for them). A crash is a signal or
an exit code above 2. Prints one line per module and the totals.
"""
import os
import re
import subprocess
import sys
import tempfile


def run(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", ""


def first_line(text):
    for line in text.splitlines():
        if line.startswith("tvms:"):
            return line
    return text.strip().splitlines()[0] if text.strip() else ""


def crashed(code):
    return code == "timeout" or (isinstance(code, int) and (code < 0 or code > 2))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    tvms, folder = sys.argv[1], sys.argv[2]
    verbose = "--verbose" in sys.argv
    tir = "--tir" in sys.argv
    totals = {"relax-only": 0, "lint clean": 0, "build": 0, "run": 0, "crash": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            text = open(path, encoding="utf-8").read()
            if ("T.prim_func" in text) != tir:
                continue
            totals["relax-only"] += 1
            code, out = run([tvms, "lint", path])
            if crashed(code):
                totals["crash"] += 1
                print(f"CRASH lint  {name}: {code}")
                continue
            if code != 0:
                if verbose:
                    print(f"lint        {name}: {first_line(out)}")
                continue
            totals["lint clean"] += 1
            code, out = run([tvms, "build", path, "-o", os.path.join(tmp, "m.tvmx")])
            if crashed(code):
                totals["crash"] += 1
                print(f"CRASH build {name}: {code}")
                continue
            if code != 0:
                print(f"no build    {name}: {first_line(out)}")
                continue
            totals["build"] += 1
            if "@R.function" not in text or '"cuda"' in text or "kind\": \"cuda" in text or "thread_binding" in text:
                if verbose:
                    print(f"built       {name} (not run here)")
                continue
            dims = []
            for _ in range(16):
                code, out = run([tvms, "run", path] + [a for d in dims for a in ("--dim", d + "=4")])
                wanted = re.search(r"--dim (\w+)=VALUE", out)
                if code == 0 or not wanted or wanted.group(1) in dims:
                    break
                dims.append(wanted.group(1))
            if crashed(code):
                totals["crash"] += 1
                print(f"CRASH run   {name}: {code}")
            elif code != 0:
                print(f"no run      {name}: {first_line(out)}")
            else:
                totals["run"] += 1
                if verbose:
                    print(f"ok          {name}")
    clean = max(totals["lint clean"], 1)
    what = "with T.prim_func" if tir else "Relax-only"
    print(f"\n{totals['relax-only']} modules {what}, {totals['lint clean']} lint clean; "
          f"{totals['build']} build ({100 * totals['build'] / clean:.0f}%), {totals['run']} run "
          f"({100 * totals['run'] / max(totals['build'], 1):.0f}% of those built), {totals['crash']} crashes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
