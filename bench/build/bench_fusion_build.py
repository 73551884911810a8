#!/usr/bin/env python3
"""bench/build/bench_fusion_build.py: what fusion costs a build, against the same build without it.

usage: bench_fusion_build.py TVMS [BINDINGS] [RUNS]
Generates one function of BINDINGS (default 20,000) bindings cycling tanh, multiply, add, relu and
softmax on 64x64 float32 (fusion makes one group of every five), builds it with `tvms build -o` fused
and with --no-fuse, RUNS times each (default 5, interleaved), and prints the medians. The anchor is
the unfused build of the same file in the same run.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

OPS = ["R.tanh(v{})", "R.multiply(v{}, x)", "R.add(v{}, y)", "R.nn.relu(v{})", "R.nn.softmax(v{})"]


def module(n):
    lines = ["from tvm.script import ir as I", "from tvm.script import relax as R", "", "", "@I.ir_module", "class Module:", "    @R.function",
             '    def main(x: R.Tensor((64, 64), "float32"), y: R.Tensor((64, 64), "float32")) -> R.Tensor((64, 64), "float32"):',
             "        v0 = R.add(x, y)"]
    lines += ["        v%d = %s" % (i, OPS[i % 5].format(i - 1)) for i in range(1, n)]
    lines.append("        return v%d" % (n - 1))
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tvms = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "long.py")
        with open(src, "w") as f:
            f.write(module(n))
        times = {"fused": [], "--no-fuse": []}
        env = dict(os.environ, TVMS_NO_CACHE="1")  # code generation counted in full both ways
        for _ in range(runs):
            for mode, extra in (("fused", []), ("--no-fuse", ["--no-fuse"])):
                t = time.perf_counter()
                subprocess.run([tvms, "build", src, "-o", os.path.join(d, "out.tvmx")] + extra, check=True, capture_output=True, env=env)
                times[mode].append(time.perf_counter() - t)
    fused, unfused = statistics.median(times["fused"]), statistics.median(times["--no-fuse"])
    print("== bench/build: tvms build of one %d-binding function, median of %d runs (%d cores)" % (n, runs, os.cpu_count()))
    print("| build | seconds |")
    print("|---|---|")
    print("| fused (FuseOps + FuseTIR) | %.2f |" % fused)
    print("| --no-fuse | %.2f |" % unfused)
    print("| fused / unfused | %.2fx |" % (fused / unfused))


if __name__ == "__main__":
    main()
