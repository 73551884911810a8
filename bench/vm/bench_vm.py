#!/usr/bin/env python3
"""bench/vm: tvms' compiled kernels and VM against numpy, measured in the same run.

usage: bench_vm.py BUILD_DIR [EXAMPLE]   (bench/run_all.sh passes build and examples/multi_cpu.py)
Runs BUILD_DIR/bin/bench_vm (JSON lines), then the same work in numpy (Debian's python3-numpy under
/usr/bin/python3; with libopenblas0-pthread installed numpy's matmul is OpenBLAS, else the reference
BLAS), and prints one table with ratios. Goals: matmul 1024 >= 0.5x numpy's GFLOP/s with 2 threads,
add >= 0.8x numpy, dispatch <= 1 us per instruction.
"""
import json
import os
import statistics
import tempfile
import subprocess
import sys

NUMPY_SCRIPT = r'''
import json, time, numpy as np
def best(f, reps):
    f(); b = 1e30
    for _ in range(reps):
        t = time.perf_counter(); f(); b = min(b, time.perf_counter() - t)
    return b
out = {}
for n in (1000000, 16000000):
    a = np.random.rand(n).astype(np.float32); b = np.random.rand(n).astype(np.float32); c = np.empty_like(a)
    out["add", n] = best(lambda: np.add(a, b, out=c), 10 if n > 4000000 else 50)
for n in (256, 512, 1024, 2048, 4096):
    a = np.random.rand(n, n).astype(np.float32); b = np.random.rand(n, n).astype(np.float32)
    out["matmul", n] = best(lambda: a @ b, 2 if n >= 2048 else 5)
# conv2d as numpy does it best: im2col by sliding_window_view, then one BLAS matmul.
x = np.random.rand(16, 34, 34, 16).astype(np.float32); w = np.random.rand(32, 3, 3, 16).astype(np.float32)
wm = w.reshape(32, -1).T.copy()
def conv():
    cols = np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(1, 2))  # (16, 32, 32, 16, 3, 3)
    cols = cols.transpose(0, 1, 2, 4, 5, 3).reshape(16 * 32 * 32, 144)
    return cols @ wm
out["conv2d", 0] = best(conv, 10)
cfg = np.__config__
blas = "unknown"
try:
    import numpy.core._multiarray_umath as m  # noqa
    blas = open("/proc/self/maps").read()
    blas = "openblas" if "openblas" in blas else ("reference BLAS (libblas)" if "libblas" in blas else "unknown")
except Exception:
    pass
print(json.dumps({"version": np.__version__, "blas": blas, "results": [[k[0], k[1], v] for k, v in out.items()]}))
'''


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    example = sys.argv[2] if len(sys.argv) > 2 else "examples/multi_cpu.py"
    # Compile times here are compile times: the kernel cache is bypassed (it is measured below).
    ours = [json.loads(l) for l in subprocess.run([os.path.join(build, "bin", "bench_vm"), example], check=True, capture_output=True,
                                                    text=True, env=dict(os.environ, TVMS_NO_CACHE="1")).stdout.splitlines()]
    # The same kernels built for an AVX2-only machine (256-bit vectors, the GEMM tile chosen for them),
    # measured on this one: TVMS_CPU_VECTOR_BITS narrows the target (compiler/tir/target.h).
    avx2 = [json.loads(l) for l in subprocess.run([os.path.join(build, "bin", "bench_vm"), example], check=True, capture_output=True,
                                                    text=True, env=dict(os.environ, TVMS_CPU_VECTOR_BITS="256")).stdout.splitlines()]
    ours += [dict(r, bench="matmul-avx2") for r in avx2 if r["bench"] == "matmul"]
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"
    np_run = subprocess.run([py, "-c", NUMPY_SCRIPT], capture_output=True, text=True)
    numpy = json.loads(np_run.stdout) if np_run.returncode == 0 else None
    ref = {(r[0], r[1]): r[2] for r in numpy["results"]} if numpy else {}
    print(f"== bench/vm: {os.cpu_count()} cores, threads {os.environ.get('TVMS_NUM_THREADS', 'all')}; numpy "
          + (f"{numpy['version']} ({numpy['blas']})" if numpy else "not available (apt-get install python3-numpy)"))
    print(f"   reproduce: python3 bench/vm/bench_vm.py {build} {example}")
    print("| measure | tvms | numpy | ratio (tvms / numpy throughput) | goal |")
    print("|---|---|---|---|---|")
    for r in ours:
        if r["bench"] == "add":
            gbs = 12 * r["n"] / r["seconds"] / 1e9
            ref_s = ref.get(("add", r["n"]))
            print(f"| add {r['n']:,} float32 | {gbs:.1f} GB/s | " + (f"{12 * r['n'] / ref_s / 1e9:.1f} GB/s | {ref_s / r['seconds']:.2f}x" if ref_s else "- | -") + " | >= 0.8x |")
        elif r["bench"] == "matmul":
            n = r["n"]
            gf = 2 * n ** 3 / r["seconds"] / 1e9
            ref_s = ref.get(("matmul", n))
            print(f"| matmul {n}^3 float32 | {gf:.1f} GFLOP/s | " + (f"{2 * n ** 3 / ref_s / 1e9:.1f} GFLOP/s | {ref_s / r['seconds']:.2f}x" if ref_s else "- | -") + " | >= 0.9x |")
        elif r["bench"] == "matmul-avx2":
            n = r["n"]
            ref_s = ref.get(("matmul", n))
            print(f"| matmul {n}^3 float32, kernels for AVX2 (TVMS_CPU_VECTOR_BITS=256) | {2 * n ** 3 / r['seconds'] / 1e9:.1f} GFLOP/s | "
                  + (f"{2 * n ** 3 / ref_s / 1e9:.1f} GFLOP/s | {ref_s / r['seconds']:.2f}x" if ref_s else "- | -") + " | >= 0.8x |")
        elif r["bench"] == "conv2d":
            ref_s = ref.get(("conv2d", 0))
            print(f"| conv2d NHWC 16x32x32x16, OHWI 32x3x3x16, pad 1 (numpy: im2col + matmul) | {r['flops'] / r['seconds'] / 1e9:.1f} GFLOP/s | "
                  + (f"{r['flops'] / ref_s / 1e9:.1f} GFLOP/s | {ref_s / r['seconds']:.2f}x" if ref_s else "- | -") + " | |")
        elif r["bench"] == "dispatch":
            print(f"| VM dispatch, {r['instructions']:,} instructions (10,000 tiny adds) | {r['seconds'] / r['instructions'] * 1e9:.0f} ns per instruction | | | <= 1000 ns |")
            print(f"| build of the 10,000-op function | {r['compile_seconds'] * 1e3:.0f} ms | | | |")
        elif r["bench"] == "build":
            print(f"| tvms build of {r['file']} (passes + LLVM JIT, no cache) | {r['seconds'] * 1e3:.1f} ms | | | |")

    # The kernel cache: `tvms run` of the example with a fresh cache (compiled and stored), then again
    # (from the cache), against the same run with the cache off; codegen time as tvms run reports it.
    with tempfile.TemporaryDirectory() as cache:
        def codegen(extra_env):
            out = subprocess.run([os.path.join(build, "bin", "tvms"), "run", example, "--format", "json"], check=True,
                                 capture_output=True, text=True, env=dict(os.environ, **extra_env)).stdout
            return json.loads(out)["codegenMs"]
        cold = codegen({"TVMS_CACHE_DIR": cache})
        warm = statistics.median(codegen({"TVMS_CACHE_DIR": cache}) for _ in range(5))
        off = statistics.median(codegen({"TVMS_NO_CACHE": "1"}) for _ in range(5))
    print(f"| tvms run {example}: codegen from the kernel cache (median of 5) | {warm:.1f} ms | cache off (JIT): {off:.1f} ms, "
          f"first run (compile + store): {cold:.1f} ms | {off / warm:.0f}x less | < 10 ms |")


if __name__ == "__main__":
    main()
