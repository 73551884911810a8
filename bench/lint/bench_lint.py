#!/usr/bin/env python3
"""bench/lint: `tvms lint FILE` whole-process wall time against `python3 -c ast.parse` on the same file.

usage: bench_lint.py TVMS_BINARY FILE... (bench/run_all.sh passes the generated 10k- and 100k-line modules)

Both sides are whole processes (start-up, read, parse, exit); each is run 7 times and the best and the
median are printed. The runs alternate (tvms, each anchor, tvms, ...) so that a busy spell of the
machine falls on both sides alike; on a shared 2-core machine it lands harder on tvms's two threads
than on CPython's one. The anchor runs the python3 on PATH and, when it differs, Debian's
/usr/bin/python3.
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

RUNS = 7


def walls(cmds):
    """Best and median wall seconds of each command, its runs alternating with the others'."""
    times = [[] for _ in cmds]
    for _ in range(RUNS):
        for i, cmd in enumerate(cmds):
            start = time.perf_counter()
            done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[i].append(time.perf_counter() - start)
            if done.returncode not in (0, 1):
                sys.exit(f"{cmd[0]} failed with exit code {done.returncode}")
    return [(min(t), statistics.median(t)) for t in times]


def main():
    tvms, files = sys.argv[1], sys.argv[2:]
    pythons = [shutil.which("python3")]
    if os.path.exists("/usr/bin/python3") and os.path.realpath(pythons[0]) != "/usr/bin/python3":
        pythons.append("/usr/bin/python3")
    print(f"== bench/lint: {os.cpu_count()} cores, best / median of {RUNS} whole-process runs")
    print(f"   reproduce: python3 bench/lint/bench_lint.py {tvms} {' '.join(files)}")
    print("| file | lines | tvms lint best | median | anchor | ast.parse best | median | ratio (best) |")
    print("|---|---|---|---|---|---|---|---|")
    for f in files:
        lines = sum(1 for _ in open(f))
        anchors = [[py, "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", f] for py in pythons]
        ours, *all_theirs = walls([[tvms, "lint", "--no-config", f]] + anchors)
        for py, theirs in zip(pythons, all_theirs):
            version = subprocess.run([py, "--version"], capture_output=True, text=True).stdout.strip()
            print(f"| {os.path.basename(f)} | {lines:,} | {ours[0]*1000:.0f} ms | {ours[1]*1000:.0f} ms | {version} ({py}) "
                  f"| {theirs[0]*1000:.0f} ms | {theirs[1]*1000:.0f} ms | **{ours[0]/theirs[0]:.2f}x** |")


if __name__ == "__main__":
    main()
