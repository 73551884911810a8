#!/usr/bin/env python3
"""bench/lint scale: `tvms lint`, `tvms fmt --check` and `tvms build` on 1, 4 and 50 MB modules, wall time
and peak memory (max RSS) of each whole process, next to CPython's `ast.parse` on the same files.

usage: bench_scale.py TVMS_BINARY [MB ...]   (default sizes: 1 4 50)

The modules come from bench/parse/generate.py (a class of many functions with vdevices, as printed
modules are), written to bench/parse/generated/ once. Goal (issue 36): time and memory linear in the
file's size, at most 1 s per MB and 30 bytes of memory per byte of source. Each size runs 3 times
(the 50 MB file once: a build of it takes about a minute) and the median is printed.
"""
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATED = os.path.join(HERE, "..", "parse", "generated")
LINES_PER_MB = 20400  # generate.py writes about 49 bytes a line


def module_of(megabytes):
    lines = int(megabytes * LINES_PER_MB)
    path = os.path.join(GENERATED, f"module_{lines}.py")
    if not os.path.exists(path):
        os.makedirs(GENERATED, exist_ok=True)
        subprocess.run([sys.executable, os.path.join(HERE, "..", "parse", "generate.py"), str(lines), path], check=True)
    return path


def measure(cmd, runs):
    """Median wall seconds and the largest max RSS (bytes) over `runs` whole-process runs."""
    walls, peaks = [], []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - start)
        peaks.append(usage.ru_maxrss * 1024)
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            sys.exit(f"{' '.join(cmd)} failed with exit code {code}")
    return statistics.median(walls), max(peaks)


def main():
    tvms = sys.argv[1]
    sizes = [float(s) for s in sys.argv[2:]] or [1, 4, 50]
    print(f"== bench/lint scale: {os.cpu_count()} cores; median wall time and peak RSS of whole processes")
    print(f"   reproduce: python3 bench/lint/bench_scale.py {tvms} {' '.join(str(s) for s in sizes)}")
    print("| file | MB | command | wall | s per MB | peak RSS | bytes per source byte |")
    print("|---|---|---|---|---|---|---|")
    for mb in sizes:
        path = module_of(mb)
        size = os.path.getsize(path)
        runs = 1 if mb >= 20 else 3
        commands = [
            ("ast.parse (" + sys.version.split()[0] + ")", [sys.executable, "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", path]),
            ("tvms lint", [tvms, "lint", "--no-config", path]),
            ("tvms fmt --check", [tvms, "fmt", "--check", path]),
            # The module's cuda vdevice built for the CPU: kernels compile once (the kernel cache), so
            # the time is the front end, the passes and the VM lowering.
            ("tvms build", [tvms, "build", "--device", "cuda:0=cpu", path]),
        ]
        for name, cmd in commands:
            wall, peak = measure(cmd, runs)
            print(f"| {os.path.basename(path)} | {size / 1e6:.1f} | {name} | {wall:.2f} s | {wall / (size / 1e6):.2f} "
                  f"| {peak / 2**20:.0f} MiB | {peak / size:.0f} |", flush=True)


if __name__ == "__main__":
    main()
