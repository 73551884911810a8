#!/usr/bin/env python3
"""bench/gpu/bench_fusion.py: fused kernels and reductions against PyTorch, same run, same inputs.

usage: bench_fusion.py TVMS DIR     on the GPU machine (PyTorch, numpy); DIR is scratch space
For each case: the module run by `tvms run --repeat N` fused and with --no-fuse (inputs placed on the
GPU once, so a call is the module's work), and the same computation in PyTorch eager,
torch.compile and torch.compile(mode="reduce-overhead") (TF32 off), inputs resident on the GPU on
both sides. GPU time per call: tvms by its device's events summed over the call's kernels, PyTorch by
CUDA events around the call. Each output is compared with PyTorch eager's.
"""
import json
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False

HEADER = ('from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n'
          '    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0)]})\n\n    @R.function\n')


def tensor(shape, dtype):
    return 'R.Tensor((%s), "%s")' % (", ".join(map(str, shape)) + ("," if len(shape) == 1 else ""), dtype)


def module(params, ret, body):
    sig = ", ".join("%s: %s" % (n, tensor(s, d)) for n, (s, d) in params.items())
    return HEADER + "    def main(%s) -> %s:\n" % (sig, tensor(*ret)) + "".join("        %s\n" % line for line in body)


N = 4096
# A BERT-large-sized encoder layer: batch 8, sequence 512, hidden 1024, 16 heads of 64, MLP 4096.
B, S, HID, HEADS, HD, MLP = 8, 512, 1024, 16, 64, 4096


def encoder(dtype):
    p = {"x": ((B, S, HID), dtype), "g1": ((HID,), dtype), "be1": ((HID,), dtype), "g2": ((HID,), dtype), "be2": ((HID,), dtype)}
    for n in "qkvo":
        p["w" + n] = ((HID, HID), dtype)
        p["b" + n] = ((HID,), dtype)
    p.update({"w1": ((HID, MLP), dtype), "bf1": ((MLP,), dtype), "w2": ((MLP, HID), dtype), "bf2": ((HID,), dtype)})
    body = ["ln = R.nn.layer_norm(x, g1, be1, axes=[-1])"]
    for n, axes in (("q", "[0, 2, 1, 3]"), ("k", "[0, 2, 3, 1]"), ("v", "[0, 2, 1, 3]")):
        body += ["%sm = R.matmul(ln, w%s)" % (n, n), "%sb = R.add(%sm, b%s)" % (n, n, n),
                 "%sr = R.reshape(%sb, (%d, %d, %d, %d))" % (n, n, B, S, HEADS, HD), "%sh = R.permute_dims(%sr, axes=%s)" % (n, n, axes)]
    body += ["sc = R.matmul(qh, kh)", 'ss = R.multiply(sc, R.const(0.125, "%s"))' % dtype, "pr = R.nn.softmax(ss, axis=-1)",
             "o = R.matmul(pr, vh)", "ot = R.permute_dims(o, axes=[0, 2, 1, 3])", "orr = R.reshape(ot, (%d, %d, %d))" % (B, S, HID),
             "am = R.matmul(orr, wo)", "ab = R.add(am, bo)", "h = R.add(ab, x)", "ln2 = R.nn.layer_norm(h, g2, be2, axes=[-1])",
             "f1 = R.matmul(ln2, w1)", "f1b = R.add(f1, bf1)", "f1g = R.nn.gelu(f1b)", "f2 = R.matmul(f1g, w2)", "f2b = R.add(f2, bf2)",
             "out = R.add(f2b, h)", "return out"]

    def torch_layer(x, g1, be1, g2, be2, wq, bq, wk, bk, wv, bv, wo, bo, w1, bf1, w2, bf2):
        ln = F.layer_norm(x, (HID,), g1, be1)
        q = (ln @ wq + bq).reshape(B, S, HEADS, HD).permute(0, 2, 1, 3)
        k = (ln @ wk + bk).reshape(B, S, HEADS, HD).permute(0, 2, 3, 1)
        v = (ln @ wv + bv).reshape(B, S, HEADS, HD).permute(0, 2, 1, 3)
        pr = torch.softmax((q @ k) * 0.125, dim=-1)
        o = (pr @ v).permute(0, 2, 1, 3).reshape(B, S, HID)
        h = o @ wo + bo + x
        f = F.gelu(F.layer_norm(h, (HID,), g2, be2) @ w1 + bf1)
        return f @ w2 + bf2 + h
    return ("encoder layer %s (8x512, hidden 1024, 16 heads, MLP 4096)" % dtype, p, ((B, S, HID), dtype), body, torch_layer)


CASES = [
    encoder("float16"),
    encoder("float32"),
    ("attention fp16 8x16x512x64 written out (q @ k^T * 0.125, softmax, @ v)",
     {"q": ((8, 16, 512, 64), "float16"), "k": ((8, 16, 512, 64), "float16"), "v": ((8, 16, 512, 64), "float16")}, ((8, 16, 512, 64), "float16"),
     ["kt = R.permute_dims(k, axes=[0, 1, 3, 2])", "s = R.matmul(q, kt)", 'ss = R.multiply(s, R.const(0.125, "float16"))',
      "p = R.nn.softmax(ss, axis=-1)", "o = R.matmul(p, v)", "return o"],
     lambda q, k, v: torch.softmax((q @ k.transpose(-1, -2)) * 0.125, dim=-1) @ v),
    ("add, layer_norm, scale, SiLU, residual, ReLU 4096x4096 fp32",
     {"x": ((N, N), "float32"), "y": ((N, N), "float32"), "g": ((N,), "float32"), "b": ((N,), "float32")}, ((N, N), "float32"),
     ["a = R.add(x, y)", "n = R.nn.layer_norm(a, g, b, axes=[-1])", 's = R.multiply(n, R.const(0.5, "float32"))', "t = R.nn.silu(s)",
      "r = R.add(t, x)", "o = R.nn.relu(r)", "return o"],
     lambda x, y, g, b: torch.relu(F.silu(F.layer_norm(x + y, (N,), g, b) * 0.5) + x)),
    ("scale + softmax fp16 8x16x512x512 (rows of 512)",
     {"x": ((8, 16, 512, 512), "float16")}, ((8, 16, 512, 512), "float16"),
     ['s = R.multiply(x, R.const(0.125, "float16"))', "p = R.nn.softmax(s, axis=-1)", "return p"],
     lambda x: torch.softmax(x * 0.125, dim=-1)),
    ("softmax 4096x4096 fp32", {"x": ((N, N), "float32")}, ((N, N), "float32"), ["p = R.nn.softmax(x, axis=-1)", "return p"],
     lambda x: torch.softmax(x, dim=-1)),
    ("GELU fp16 4096x4096", {"x": ((N, N), "float16")}, ((N, N), "float16"), ["y = R.nn.gelu(x)", "return y"], lambda x: F.gelu(x)),
    ("row sum 4096x4096 fp32 (axis 1)", {"x": ((N, N), "float32")}, ((N,), "float32"), ["y = R.sum(x, axis=[1])", "return y"],
     lambda x: x.sum(dim=1)),
    ("column sum 4096x4096 fp32 (axis 0)", {"x": ((N, N), "float32")}, ((N,), "float32"), ["y = R.sum(x, axis=[0])", "return y"],
     lambda x: x.sum(dim=0)),
    ("sum of 16M fp32 (everything)", {"x": ((N, N), "float32")}, ((), "float32"), ["y = R.sum(x)", "return y"], lambda x: x.sum()),
]


def print_table_header(script, timing, columns):
    """The first lines of a bench/gpu table: the script, the GPU and PyTorch, then the column row."""
    print("== bench/gpu/%s on %s, PyTorch %s (same run; %s; inputs resident)" % (script, torch.cuda.get_device_name(), torch.__version__, timing))
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))


def write_case(d, params, ret, body, rng):
    """The case's module as d/m.py and its inputs as .npy files (weights scaled down) and as GPU
    tensors: (module path, {name: .npy path}, [tensors])."""
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "m.py")
    with open(path, "w") as f:
        f.write(module(params, ret, body))
    inputs, tensors = {}, []
    for name, (shape, dtype) in params.items():
        a = (rng.standard_normal(shape) * (0.03 if name.startswith("w") else 1.0)).astype(dtype)
        inputs[name] = os.path.join(d, name + ".npy")
        np.save(inputs[name], a)
        tensors.append(torch.from_numpy(a).cuda())
    return path, inputs, tensors


def torch_times(fn, tensors, timer):
    """`fn` on `tensors` timed by `timer` three ways: eager, torch.compile, torch.compile(mode="reduce-overhead")."""
    compiled, ro = torch.compile(fn), torch.compile(fn, mode="reduce-overhead")
    return timer(lambda: fn(*tensors)), timer(lambda: compiled(*tensors)), timer(lambda: ro(*tensors))


def max_rel_err(got, want):
    """max |got - want| / max(1, |want|), got a numpy array, want a torch tensor on the GPU."""
    g = torch.from_numpy(np.asarray(got)).cuda().float()
    return ((g - want.float()).abs() / want.float().abs().clamp(min=1)).max().item()


def events_ms(fn, reps=50):
    fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e))
    ts.sort()
    return ts[len(ts) // 2]


def run_tvms(tvms, path, inputs, out, extra, repeat=50):
    args = [tvms, "run", path, "--repeat", str(repeat), "--format", "json", "--output", out] + extra
    for name, p in inputs.items():
        args += ["--input", "%s=%s" % (name, p)]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    rep = json.loads(r.stdout)
    gpu = next(d for d in rep["devices"] if d["vdevice"].startswith("cuda"))
    return gpu["ms"], gpu["kernels"], rep["repeat"]["p50Ms"], np.load(os.path.join(out, os.listdir(out)[0])), rep["kernels"]


def main(tvms, work):
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(7)
    print("== bench/gpu/bench_fusion.py on %s, PyTorch %s (same run; per call; inputs resident)" % (torch.cuda.get_device_name(), torch.__version__))
    print("| case | tvms fused: GPU ms (kernels) | --no-fuse: GPU ms (kernels) | eager | torch.compile | reduce-overhead | fused / best torch | max rel. err vs eager |")
    print("|---|---|---|---|---|---|---|---|")
    breakdown = []
    only = os.environ.get("BENCH_CASES")  # a comma-separated list of words: only the cases whose label has one
    for i, (label, params, ret, body, fn) in enumerate(CASES):
        if only and not any(w in label for w in only.split(",")):
            continue
        d = os.path.join(work, "case%d" % i)
        path, inputs, tensors = write_case(d, params, ret, body, rng)
        try:
            fused = run_tvms(tvms, path, inputs, os.path.join(d, "fused"), [])
            unfused = run_tvms(tvms, path, inputs, os.path.join(d, "unfused"), ["--no-fuse"])
        except RuntimeError as e:
            print("| %s | failed: %s | | | | | | |" % (label, str(e).splitlines()[-1][:160]))
            continue
        want = fn(*tensors)
        eager, comp, ro_ms = torch_times(fn, tensors, events_ms)
        err = max_rel_err(fused[3], want)
        best = min(eager, comp, ro_ms)
        print("| %s | %.3f (%d) | %.3f (%d) | %.3f | %.3f | %.3f | %.2fx | %.1e |" %
              (label, fused[0], fused[1], unfused[0], unfused[1], eager, comp, ro_ms, fused[0] / best, err))
        if label.startswith("encoder"):  # where a layer's time goes: its kernels and library calls, slowest first
            traced = run_tvms(tvms, path, inputs, os.path.join(d, "traced"), ["--trace", os.path.join(d, "trace.json")], repeat=199)  # 200 calls: the first, cold one, weighs little
            breakdown.append("%s, per call: " % label + ", ".join("%s %.1f us" % (k["name"], k["ms"] * 1e3 / k["calls"]) for k in traced[4][:14]))
        sys.stdout.flush()
    for line in breakdown:
        print(line)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
