#!/usr/bin/env python3
"""bench/gpu: tvms on a CUDA GPU against PyTorch, measured in the same run on the same machine.

usage: bench_gpu.py prepare TVMS DIR   here (with the LLVM code generator): the modules under DIR,
                                       and DIR/seed.tvmx (the seed pipeline: its multiply runs on the
                                       host, so it travels as an artifact built here)
       bench_gpu.py measure TVMS DIR   on the GPU machine: every case, ours / PyTorch's, as a table
Each case runs `tvms run ... --repeat N --format json` (per-call wall time, each call waited for on
every device; kernel and copy times by the devices' own events) and the same work in PyTorch
(CUDA events; TF32 off for fp32, as tvms computes fp32).
"""
import json
import os
import subprocess
import sys

# The seed scenario as the corpus has it: conv2d + bias on cuda:0, to the host, * 2 there.
SEED = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "corpus", "run", "seed_conv2d_offload.py")).read()

HEADER = 'from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm", 0)]})\n\n    @R.function\n'
CONV = HEADER + '''    def main(data: R.Tensor((16, 32, 32, 16), "float32", "cuda:0"), weight: R.Tensor((32, 3, 3, 16), "float32", "cuda:0")) -> R.Tensor((16, 32, 32, 32), "float32", "cuda:0"):
        conv = R.nn.conv2d(data, weight, padding=(1, 1), data_layout="NHWC", kernel_layout="OHWI", out_dtype="float32")
        return conv
'''
MATMUL = HEADER + '''    def main(a: R.Tensor((8192, 8192), "float32", "cuda:0"), b: R.Tensor((8192, 8192), "float32", "cuda:0")) -> R.Tensor((8192, 8192), "float32", "cuda:0"):
        c = R.matmul(a, b)
        return c
'''
MATMUL_BF16 = MATMUL.replace('"float32"', '"bfloat16"')
ADD = HEADER + '''    def main(a: R.Tensor((268435456,), "float32", "cuda:0"), b: R.Tensor((268435456,), "float32", "cuda:0")) -> R.Tensor((268435456,), "float32", "cuda:0"):
        c = R.add(a, b)
        return c
'''
H2D = HEADER + '''    def main(x: R.Tensor((67108864,), "float32", "llvm:0")) -> R.Tensor((67108864,), "float32", "cuda:0"):
        y = R.to_vdevice(x, "cuda:0")
        return y
'''
SOFTMAX = HEADER + '''    def main(x: R.Tensor((4096, 4096), "float32", "cuda:0")) -> R.Tensor((4096, 4096), "float32", "cuda:0"):
        y = R.nn.softmax(x, axis=-1)
        return y
'''
MODULES = {"matmul_bf16.py": MATMUL_BF16, "softmax.py": SOFTMAX, "conv.py": CONV, "matmul.py": MATMUL, "add.py": ADD, "h2d.py": H2D, "seed.py": SEED}

TORCH = r'''
import json, time, torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = "cuda"
def events(fn, reps):
    fn(); torch.cuda.synchronize()
    s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(s.elapsed_time(e))
    ts.sort(); return ts[len(ts) // 2]
out = {}
x = torch.randn(16, 16, 32, 32).to(memory_format=torch.channels_last)
w = torch.randn(32, 16, 3, 3).to(memory_format=torch.channels_last)
bias = torch.randn(1, 32, 1, 1)
def seed():
    y = torch.nn.functional.conv2d(x.to(dev), w.to(dev), padding=1) + bias.to(dev)
    return y.to("cpu") * 2
seed()
ts = []
for _ in range(50):
    t = time.perf_counter(); seed(); ts.append((time.perf_counter() - t) * 1e3)
ts.sort(); out["seed_ms"] = ts[len(ts) // 2]
xd, wd = x.to(dev), w.to(dev)
out["conv_ms"] = events(lambda: torch.nn.functional.conv2d(xd, wd, padding=1), 100)
a = torch.randn(8192, 8192, device=dev); b = torch.randn(8192, 8192, device=dev)
out["matmul_ms"] = events(lambda: a @ b, 10)
ab, bb = a.bfloat16(), b.bfloat16()
out["matmul_bf16_ms"] = events(lambda: ab @ bb, 20)
del a, b, ab, bb
sx = torch.randn(4096, 4096, device=dev)
out["softmax_ms"] = events(lambda: torch.softmax(sx, dim=-1), 50)
del sx
n = 268435456
p = torch.randn(n, device=dev); q = torch.randn(n, device=dev); r = torch.empty(n, device=dev)
out["add_ms"] = events(lambda: torch.add(p, q, out=r), 20)
del p, q, r
h = torch.randn(67108864)
hp = h.pin_memory()
out["h2d_pinned_ms"] = events(lambda: hp.to(dev, non_blocking=True), 10)
out["h2d_pageable_ms"] = events(lambda: h.to(dev), 10)
out["torch"] = torch.__version__
out["gpu"] = torch.cuda.get_device_name()
print(json.dumps(out))
'''


def tvms_run(tvms, path, repeat):
    r = subprocess.run([tvms, "run", path, "--repeat", str(repeat), "--format", "json"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    return json.loads(r.stdout)


def prepare(tvms, out):
    os.makedirs(out, exist_ok=True)
    for name, text in MODULES.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(text)
    r = subprocess.run([tvms, "build", os.path.join(out, "seed.py"), "-o", os.path.join(out, "seed.tvmx")], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(r.stderr)
    print("prepared", out)


def measure(tvms, out):
    torch = subprocess.run([sys.executable, "-c", TORCH], capture_output=True, text=True)
    if torch.returncode != 0:
        sys.exit("PyTorch failed:\n" + torch.stderr)
    t = json.loads(torch.stdout.strip().splitlines()[-1])
    rows = []

    def case(label, fn):
        try:
            rows.append((label,) + fn())
        except Exception as e:  # a case that cannot run is reported, not hidden
            rows.append((label, "failed: %s" % str(e).splitlines()[0][:160], "", ""))

    def cuda_ms(report):
        return next(d["ms"] for d in report["devices"] if d["vdevice"].startswith("cuda"))

    def seed():
        r = tvms_run(tvms, os.path.join(out, "seed.tvmx"), 50)
        return ("%.3f ms" % r["repeat"]["p50Ms"], "%.3f ms" % t["seed_ms"], "%.2fx time" % (r["repeat"]["p50Ms"] / t["seed_ms"]))

    def conv():
        ms = cuda_ms(tvms_run(tvms, os.path.join(out, "conv.py"), 100))
        return ("%.1f us" % (ms * 1e3), "%.1f us" % (t["conv_ms"] * 1e3), "%.2fx time" % (ms / t["conv_ms"]))

    def matmul():
        ms = cuda_ms(tvms_run(tvms, os.path.join(out, "matmul.py"), 5))
        flops = 2 * 8192 ** 3
        ours, theirs = flops / ms / 1e9, flops / t["matmul_ms"] / 1e9
        return ("%.1f TFLOP/s" % ours, "%.1f TFLOP/s" % theirs, "%.2fx" % (ours / theirs))

    def add():
        ms = cuda_ms(tvms_run(tvms, os.path.join(out, "add.py"), 5))
        moved = 3 * 4 * 268435456
        ours, theirs = moved / ms / 1e9, moved / t["add_ms"] / 1e9  # bytes per ms / 1e9 = TB/s
        return ("%.2f TB/s" % ours, "%.2f TB/s" % theirs, "%.2fx" % (ours / theirs))

    def softmax():
        ms = cuda_ms(tvms_run(tvms, os.path.join(out, "softmax.py"), 20))
        return ("%.1f us" % (ms * 1e3), "%.1f us" % (t["softmax_ms"] * 1e3), "%.2fx time" % (ms / t["softmax_ms"]))

    def h2d():
        r = tvms_run(tvms, os.path.join(out, "h2d.py"), 5)
        ms = r["copyMs"]
        size = 67108864 * 4
        ours = size / ms / 1e6
        pinned, pageable = size / t["h2d_pinned_ms"] / 1e6, size / t["h2d_pageable_ms"] / 1e6
        return ("%.1f GB/s" % ours, "%.1f GB/s pinned, %.1f pageable" % (pinned, pageable), "%.2fx pinned" % (ours / pinned))

    case("seed pipeline end to end per call (p50)", seed)
    case("conv2d NHWC 16x32x32x16 * OHWI 32x3x3x16 (cuDNN), kernel time", conv)
    case("matmul fp32 8192^3, TF32 off (cuBLAS)", matmul)
    def matmul_bf16():
        ms = cuda_ms(tvms_run(tvms, os.path.join(out, "matmul_bf16.py"), 10))
        flops = 2 * 8192 ** 3
        ours, theirs = flops / ms / 1e9, flops / t["matmul_bf16_ms"] / 1e9
        return ("%.1f TFLOP/s" % ours, "%.1f TFLOP/s" % theirs, "%.2fx" % (ours / theirs))

    case("matmul bf16 8192^3 (cuBLAS, tensor cores, fp32 accumulation)", matmul_bf16)
    case("elementwise add, 256M float32 (3 streams counted)", add)
    case("softmax 4096x4096 float32 over the last axis (generated kernel, a warp per row)", softmax)
    case("H2D copy 256 MiB (R.to_vdevice from llvm)", h2d)
    print("== bench/gpu on %s, PyTorch %s (same run)" % (t["gpu"], t["torch"]))
    print("   reproduce: python3 bench/gpu/bench_gpu.py prepare build/bin/tvms DIR (here), then measure TVMS DIR on the GPU machine")
    print("| case | tvms | PyTorch | ratio |")
    print("|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s |" % r)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("prepare", "measure"):
        sys.exit(__doc__)
    (prepare if sys.argv[1] == "prepare" else measure)(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]))
