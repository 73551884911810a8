#!/usr/bin/env python3
"""bench/vm/bench_cpu_cores.py: the CPU vdevice on every core (issue 35's table), against numpy (and
PyTorch's CPU ops where installed) in the same run: float32 GEMM and batched GEMM, bfloat16 GEMM, an
embedding gather, elementwise add, a full sum, a transpose, and the memcpy bandwidth the machine
measures (numpy's single-threaded copy and PyTorch's parallel one), each at several thread counts.

Modules are built here (the device machine has no LLVM) and run there through the tvms Python
package (vm.benchmark: inputs placed once, each call waited for; outputs allocated per call, as
numpy's `a + b` allocates):
    python3 bench/vm/bench_cpu_cores.py prepare build/bin/tvms DIR
    PYTHONPATH=build/python python3 bench/vm/bench_cpu_cores.py measure DIR [RUNS]
`tests/gpu/prepare_device_dir.sh` packs DIR and `on_device.sh` runs the measure step.
"""
import json
import os
import statistics
import subprocess
import sys
import time


HEADER = '''from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
'''

# name -> (signature and body, input maker, numpy reference, bytes moved or flops, unit)
def cases():
    """The cases, or those whose name has one of $BENCH_CASES's comma-separated words."""
    only = os.environ.get("BENCH_CASES")
    return {name: c for name, c in all_cases().items() if not only or any(w in name for w in only.split(","))}


def all_cases():
    try:
        import numpy as np
        rng = np.random.default_rng(0)
    except ImportError:  # `prepare` writes the modules only: it runs where numpy is not installed
        np = rng = None

    def f32(*shape):
        return lambda: rng.standard_normal(shape).astype(np.float32)

    out = {}
    for n in (256, 512, 1024, 2048, 4096):
        out["matmul f32 %d^3" % n] = (
            "def main(a: R.Tensor((%d, %d), \"float32\"), b: R.Tensor((%d, %d), \"float32\")) -> R.Tensor((%d, %d), \"float32\"):\n"
            "        return R.matmul(a, b)" % ((n,) * 6),
            [f32(n, n), f32(n, n)], lambda a, b: a @ b, 2.0 * n ** 3, "GFLOP/s")
    out["batched matmul f32 16x512^3"] = (
        "def main(a: R.Tensor((16, 512, 512), \"float32\"), b: R.Tensor((16, 512, 512), \"float32\")) -> R.Tensor((16, 512, 512), \"float32\"):\n"
        "        return R.matmul(a, b)", [f32(16, 512, 512), f32(16, 512, 512)], lambda a, b: a @ b, 2.0 * 16 * 512 ** 3, "GFLOP/s")
    rows, table_rows = 4096, 65536
    out["take 4096 rows of 1024 f32 (16 MB)"] = (
        "def main(t: R.Tensor((%d, 1024), \"float32\"), i: R.Tensor((%d,), \"int64\")) -> R.Tensor((%d, 1024), \"float32\"):\n"
        "        return R.take(t, i, axis=0)" % (table_rows, rows, rows),
        [f32(table_rows, 1024), lambda: rng.integers(0, table_rows, rows).astype(np.int64)],
        lambda t, i: np.take(t, i, axis=0), 2.0 * rows * 1024 * 4, "GB/s")
    big = 1 << 25  # 32M floats, 128 MB per tensor: far past every cache
    out["add 32M f32"] = (
        "def main(a: R.Tensor((%d,), \"float32\"), b: R.Tensor((%d,), \"float32\")) -> R.Tensor((%d,), \"float32\"):\n"
        "        return R.add(a, b)" % (big, big, big), [f32(big), f32(big)], lambda a, b: a + b, 3.0 * big * 4, "GB/s")
    out["sum of 64M f32"] = (
        "def main(a: R.Tensor((%d,), \"float32\")) -> R.Tensor((), \"float32\"):\n"
        "        return R.sum(a)" % (2 * big), [f32(2 * big)], lambda a: a.sum(dtype=np.float32), 2 * big * 4.0, "GB/s")
    out["column sum 8192x8192 f32 (axis 0)"] = (
        "def main(a: R.Tensor((8192, 8192), \"float32\")) -> R.Tensor((8192,), \"float32\"):\n"
        "        return R.sum(a, axis=[0])", [f32(8192, 8192)], lambda a: a.sum(axis=0), 8192 * 8192 * 4.0, "GB/s")
    out["transpose 8192x8192 f32"] = (
        "def main(a: R.Tensor((8192, 8192), \"float32\")) -> R.Tensor((8192, 8192), \"float32\"):\n"
        "        return R.permute_dims(a, [1, 0])", [f32(8192, 8192)], lambda a: np.ascontiguousarray(a.T), 2.0 * 8192 * 8192 * 4, "GB/s")
    # Attention on a CPU vdevice (R.nn.attention's row kernel) against numpy's softmax(q k^T c) v.
    b, s, h, d = 2, 512, 8, 64

    def attention(q, k, v):
        qt, kt, vt = (x.transpose(0, 2, 1, 3) for x in (q, k, v))
        sc = qt @ kt.transpose(0, 1, 3, 2) / np.float32(np.sqrt(d))
        p = np.exp(sc - sc.max(axis=-1, keepdims=True))
        return ((p / p.sum(axis=-1, keepdims=True)) @ vt).transpose(0, 2, 1, 3)
    t = "R.Tensor((%d, %d, %d, %d), \"float32\")" % (b, s, h, d)
    out["attention f32 2x512x8x64 (nn.attention)"] = (
        "def main(q: %s, k: %s, v: %s) -> %s:\n        return R.nn.attention(q, k, v)" % (t, t, t, t),
        [f32(b, s, h, d), f32(b, s, h, d), f32(b, s, h, d)], attention, 4.0 * b * h * s * s * d, "GFLOP/s")
    # bfloat16 on the CPU vdevice against PyTorch's CPU bfloat16 matmul (AMX where the host has it): the
    # anchor column holds PyTorch's time for this row, numpy having no bfloat16.
    def bf16(*shape):
        def make():
            import torch
            return torch.randn(*shape).bfloat16()
        return make
    # (tvms.cpu.matmul_bf16: AMX tiles where the host has them, chosen when the artifact runs)
    for n in (512, 1024, 4096):
        out["matmul bf16 %d^3 (anchor: PyTorch)" % n] = (
            "def main(a: R.Tensor((%d, %d), \"bfloat16\"), b: R.Tensor((%d, %d), \"bfloat16\")) -> R.Tensor((%d, %d), \"bfloat16\"):\n"
            "        return R.matmul(a, b)" % (n, n, n, n, n, n), [bf16(n, n), bf16(n, n)], lambda a, b: a @ b, 2.0 * n ** 3, "GFLOP/s")
    return out


def as_float64(x):
    """A result (numpy, a DLPack tensor, or a PyTorch tensor of any float type) as a float64 array."""
    import numpy as np
    if hasattr(x, "double"):  # a PyTorch tensor (bfloat16 has no numpy type)
        return x.double().numpy()
    try:
        import torch
    except ImportError:
        return np.from_dlpack(x).astype(np.float64)
    # Through PyTorch, which reads every float type (numpy's from_dlpack fails on bfloat16 without an
    # exception: SystemError).
    return torch.from_dlpack(x).double().numpy()


def prepare(tvms_binary, folder):
    os.makedirs(folder, exist_ok=True)
    for i, (name, (body, makers, _, _, _)) in enumerate(all_cases().items()):
        src = os.path.join(folder, "case%d.py" % i)
        with open(src, "w") as f:
            f.write(HEADER + "    " + body + "\n")
        subprocess.run([tvms_binary, "build", src, "-o", os.path.join(folder, "case%d.tvmx" % i)], check=True)
    print("prepared", folder)


def median_ms(f, reps):
    f()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def reps_for(ms):
    return max(3, min(50, int(2000 / max(ms, 0.01))))


def worker(folder, runs):
    """One thread count (TVMS_NUM_THREADS set by the caller): tvms's median ms per case, and the
    largest relative error against numpy."""
    import numpy as np
    import tvms

    result = {}
    selected = cases()
    for i, (name, (_, makers, reference, _, _)) in enumerate(all_cases().items()):
        if name not in selected:
            continue
        try:
            args = [m() for m in makers]
            vm = tvms.VirtualMachine(tvms.load(os.path.join(folder, "case%d.tvmx" % i)))
            first = vm.benchmark("main", *args, repeat=1)["median_ms"]
            ms = statistics.median(vm.benchmark("main", *args, repeat=reps_for(first))["median_ms"] for _ in range(runs))
            got, want = as_float64(vm["main"](*args)), as_float64(reference(*args))
            err = float(np.abs(got - want).max() / max(1e-30, np.abs(want).max()))
            result[name] = (ms, err)
        except Exception as e:  # one case failing (PyTorch missing for bfloat16) leaves the others' rows
            result[name] = (None, str(e).splitlines()[0][:100] if str(e) else type(e).__name__)
    print(json.dumps(result))


def anchors(runs):
    """numpy's (and PyTorch's, where installed) time for each case, and the memcpy bandwidths."""
    import numpy as np

    out = {}
    for name, (_, makers, reference, _, _) in cases().items():
        try:
            args = [m() for m in makers]
        except ImportError:
            continue
        first = median_ms(lambda: reference(*args), 1)
        out[name] = statistics.median(median_ms(lambda: reference(*args), reps_for(first)) for _ in range(runs))
    src = np.random.default_rng(1).standard_normal(1 << 26).astype(np.float32)  # 256 MB
    dst = np.empty_like(src)
    copy_ms = statistics.median(median_ms(lambda: np.copyto(dst, src), 5) for _ in range(runs))
    out["memcpy numpy (1 thread)"] = 2 * src.nbytes / copy_ms / 1e6
    try:
        import torch

        ts, td = torch.from_numpy(src), torch.from_numpy(dst)
        out["memcpy torch (all threads)"] = 2 * src.nbytes / statistics.median(
            median_ms(lambda: td.copy_(ts), 5) for _ in range(runs)) / 1e6
        a = torch.randn(1024, 1024).bfloat16()
        b = torch.randn(1024, 1024).bfloat16()
        out["torch bf16 matmul 1024^3 GFLOP/s"] = 2.0 * 1024 ** 3 / statistics.median(
            median_ms(lambda: a @ b, 10) for _ in range(runs)) / 1e6
    except ImportError:
        pass
    return out


def interleaved(folder, rounds):
    """The rows anchored on PyTorch again, tvms and PyTorch taking turns in one process on every core
    (a pause between, so neither's spinning threads take the other's cores). The columns above are
    measured minutes apart, and PyTorch's bf16 rate moves between them: in one run of 12-06 its
    1024^3 row read 2,372 GFLOP/s and the separate 1024^3 line 4,003. Median of each side's
    per-round medians."""
    import tvms

    selected = cases()
    for i, (name, (_, makers, reference, amount, unit)) in enumerate(all_cases().items()):
        if name not in selected or "anchor: PyTorch" not in name:
            continue
        try:
            args = [m() for m in makers]
            vm = tvms.VirtualMachine(tvms.load(os.path.join(folder, "case%d.tvmx" % i)))
        except Exception as e:
            print("| %s | failed: %s |" % (name, str(e).splitlines()[0][:100] if str(e) else type(e).__name__))
            continue
        ours, theirs = [], []
        first = vm.benchmark("main", *args, repeat=1)["median_ms"]
        reps = reps_for(first)
        for _ in range(rounds):
            ours.append(vm.benchmark("main", *args, repeat=reps)["median_ms"])
            time.sleep(0.2)
            theirs.append(median_ms(lambda: reference(*args), reps))
            time.sleep(0.2)
        a, b = statistics.median(ours), statistics.median(theirs)
        print("| %s | %s | %.1f | %.1f | %.2fx | %s |" % (name, unit, amount / b / 1e6, amount / a / 1e6, b / a,
                                                    " ".join("%.0f/%.0f" % (amount / x / 1e6, amount / y / 1e6) for x, y in zip(ours, theirs))))


def measure(folder, runs):
    import numpy as np

    cores = len(os.sched_getaffinity(0))
    counts = sorted({cores, max(1, cores // 2), 4, 1}, reverse=True)
    here = os.path.abspath(__file__)
    tvms_runs = {}
    for n in counts:
        env = dict(os.environ, TVMS_NUM_THREADS=str(n))
        done = subprocess.run([sys.executable, here, "worker", folder, str(runs)], env=env, check=True, capture_output=True, text=True)
        tvms_runs[n] = json.loads(done.stdout.strip().splitlines()[-1])
        print("(tvms on %d threads measured)" % n, flush=True)  # progress, for a run under a time limit
    base = anchors(runs)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print("== bench/vm/bench_cpu_cores.py on %s, %d cores, numpy %s, median of %d runs" % (cpu, cores, np.__version__, runs))
    print("| case | unit | numpy (or the row's anchor) | " + " | ".join("tvms %d thr" % n for n in counts) + " | tvms/anchor (%d thr) | max rel err |" % cores)
    print("|---|---|---|" + "---|" * len(counts) + "---|---|")
    for name, (_, _, _, amount, unit) in cases().items():
        rate = lambda ms: amount / ms / 1e6
        if name not in base or any(tvms_runs[n][name][0] is None for n in counts):
            why = next((tvms_runs[n][name][1] for n in counts if tvms_runs[n][name][0] is None), "no anchor (PyTorch missing)")
            print("| %s | %s | failed: %s |" % (name, unit, why))
            continue
        ours = [rate(tvms_runs[n][name][0]) for n in counts]
        print("| %s | %s | %.1f | %s | %.2fx | %.1e |" % (name, unit, rate(base[name]), " | ".join("%.1f" % r for r in ours),
                                                       ours[0] / rate(base[name]), tvms_runs[cores][name][1]))
    for key in ("memcpy numpy (1 thread)", "memcpy torch (all threads)", "torch bf16 matmul 1024^3 GFLOP/s"):
        if key in base:
            print("%s: %.1f%s" % (key, base[key], "" if "GFLOP" in key else " GB/s"))
    if any("anchor: PyTorch" in name for name in cases()):
        print("\nInterleaved in one process, %d threads, %d rounds (rate per round: tvms/PyTorch):" % (cores, 2 * runs + 1))
        print("| case | unit | PyTorch | tvms | tvms/PyTorch | rounds |")
        print("|---|---|---|---|---|---|")
        done = subprocess.run([sys.executable, here, "interleaved", folder, str(2 * runs + 1)], check=True, capture_output=True, text=True)
        print(done.stdout.rstrip())


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "prepare":
        prepare(sys.argv[2], sys.argv[3])
    elif mode == "worker":
        worker(sys.argv[2], int(sys.argv[3]))
    elif mode == "interleaved":
        interleaved(sys.argv[2], int(sys.argv[3]))
    elif mode == "measure":
        measure(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3)
    else:
        sys.exit(__doc__)
