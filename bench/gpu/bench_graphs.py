#!/usr/bin/env python3
"""bench/gpu/bench_graphs.py: CUDA graphs against PyTorch, wall time per call, same run, same inputs.

usage: bench_graphs.py TVMS DIR     on the GPU machine (PyTorch, numpy); DIR is scratch space
Cases: the batch-1 MLP of issue 33 (8 layers of 1x1024 @ 1024x1024 fp16, bias, GELU: 24 ops) and the
BERT-large encoder layer of bench_fusion.py (fp16, fp32). tvms: `tvms run --repeat N`'s median wall
time per call (each call waited for on the GPU; inputs placed on the GPU once, before the calls) with
--cuda-graph=off and --cuda-graph=on. PyTorch: eager, torch.compile and
torch.compile(mode="reduce-overhead") (CUDA graphs), median wall time per call with
torch.cuda.synchronize() after each, inputs resident on the GPU; TF32 off. Outputs are compared with
eager's.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_fusion import encoder, max_rel_err, print_table_header, torch_times, write_case  # noqa: E402  (same folder, here and on the device)

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False

LAYERS, WIDTH = 8, 1024
B, S, HID, HEADS, HD = 8, 512, 1024, 16, 64


def encoder_sdpa(x, g1, be1, g2, be2, wq, bq, wk, bk, wv, bv, wo, bo, w1, bf1, w2, bf2):
    """bench_fusion's encoder layer with its attention as F.scaled_dot_product_attention (flash)."""
    ln = F.layer_norm(x, (HID,), g1, be1)
    q, k, v = ((ln @ w + b).reshape(B, S, HEADS, HD).permute(0, 2, 1, 3) for w, b in ((wq, bq), (wk, bk), (wv, bv)))
    o = F.scaled_dot_product_attention(q, k, v, scale=0.125).permute(0, 2, 1, 3).reshape(B, S, HID)
    h = o @ wo + bo + x
    f = F.gelu(F.layer_norm(h, (HID,), g2, be2) @ w1 + bf1)
    return f @ w2 + bf2 + h


def mlp_batch1():
    p = {"x": ((1, WIDTH), "float16")}
    body = []
    h = "x"
    for i in range(LAYERS):
        p["w%d" % i] = ((WIDTH, WIDTH), "float16")
        p["b%d" % i] = ((WIDTH,), "float16")
        body += ["m%d = R.matmul(%s, w%d)" % (i, h, i), "a%d = R.add(m%d, b%d)" % (i, i, i), "h%d = R.nn.gelu(a%d)" % (i, i)]
        h = "h%d" % i
    body.append("return %s" % h)

    def torch_mlp(x, *wb):
        for i in range(LAYERS):
            x = F.gelu(x @ wb[2 * i] + wb[2 * i + 1])
        return x
    return ("MLP batch 1: 8 x (1x1024 @ 1024x1024, bias, GELU) fp16", p, ((1, WIDTH), "float16"), body, torch_mlp)


def gemv(rows, k, n):
    """A matmul of `rows` rows against a (k, n) fp16 weight with a bias: the weight read is the work."""
    p = {"x": ((rows, k), "float16"), "w": ((k, n), "float16"), "b": ((n,), "float16")}
    body = ["m = R.matmul(x, w)", "a = R.add(m, b)", "return a"]
    return ("GEMV %dx%d @ %dx%d fp16 + bias (%d MB of weight)" % (rows, k, k, n, k * n * 2 >> 20), p, ((rows, n), "float16"), body,
            lambda x, w, b: x @ w + b)


def wall_ms(fn, reps=300):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - t) * 1e3)
    ts.sort()
    return ts[len(ts) // 2]


def run_tvms(tvms, path, inputs, out, graphs, repeat=300):
    args = [tvms, "run", path, "--repeat", str(repeat), "--format", "json", "--output", out, "--cuda-graph=" + graphs]
    for name, p in inputs.items():
        args += ["--input", "%s=%s" % (name, p)]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    rep = json.loads(r.stdout)
    gpu = next(d for d in rep["devices"] if d["vdevice"].startswith("cuda"))
    return rep["repeat"]["p50Ms"], np.load(os.path.join(out, os.listdir(out)[0])), rep.get("cudaGraph", ""), gpu["ms"]


def main(tvms, work):
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(11)
    print_table_header("bench_graphs.py", "wall ms per call, median",
                       ["case", "tvms graphs off", "tvms graphs on", "eager", "torch.compile", "reduce-overhead", "torch.compile + SDPA",
                        "on / best torch", "on / reduce-overhead", "max rel. err vs eager"])
    notes = []
    for i, (label, params, ret, body, fn) in enumerate([mlp_batch1(), encoder("float16"), encoder("float32"), gemv(1, 8192, 8192), gemv(4, 8192, 8192)]):
        d = os.path.join(work, "case%d" % i)
        path, inputs, tensors = write_case(d, params, ret, body, rng)
        try:
            off = run_tvms(tvms, path, inputs, os.path.join(d, "off"), "off")
            on = run_tvms(tvms, path, inputs, os.path.join(d, "on"), "on")
        except RuntimeError as e:
            print("| %s | failed: %s | | | | | | | | |" % (label, str(e).splitlines()[-1][:160]))
            continue
        want = fn(*tensors)
        eager, comp, ro_ms = torch_times(fn, tensors, wall_ms)
        err = max(max_rel_err(off[1], want), max_rel_err(on[1], want))
        sdpa = "-"
        if label.startswith("encoder"):
            sdpa_fn = torch.compile(encoder_sdpa)
            sdpa = "%.3f" % wall_ms(lambda: sdpa_fn(*tensors))
        best = min(eager, comp, ro_ms)
        print("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %.2fx | %.2fx | %.1e |" %
              (label, off[0], on[0], eager, comp, ro_ms, sdpa, on[0] / best, on[0] / ro_ms, err))
        notes.append("%s: %s" % (label, on[2]))
        if label.startswith("GEMV"):  # the weight read against the GPU's time per call (graph replay's span)
            weight = params["w"][0][0] * params["w"][0][1] * 2
            notes.append("%s: GPU %.4f ms per call, %.0f GB/s of weight read" % (label, on[3], weight / (on[3] * 1e-3) / 1e9))
        sys.stdout.flush()
    for n in notes:
        print(n)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
