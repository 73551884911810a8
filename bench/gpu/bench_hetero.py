#!/usr/bin/env python3
"""bench/gpu/bench_hetero.py: a heterogeneous layer (CPU vdevice + cuda:0) against PyTorch doing the
same steps, wall time per call, same run, same inputs.

usage: bench_hetero.py prepare TVMS DIR   here (the LLVM code generator builds the CPU kernels):
                                          DIR/m1.tvmx and DIR/m4.tvmx
       bench_hetero.py measure TVMS DIR   on the GPU machine (PyTorch, numpy)
The layer: an embedding gather of 4096 rows of 1024 floats from a 32768-row table on the CPU
vdevice, the rows copied to cuda:0, gelu(rows @ w + b) there, the result copied back to the host.
Once as one batch and once written as 4 micro-batches (where tvms overlaps one micro-batch's gather
and copies with another's GPU work). tvms: `tvms run --repeat N`'s median wall per call (table and
ids on the host, w and b on the GPU, placed once). PyTorch: eager as users write it
(index_select, .cuda(), .cpu()), and eager with pinned buffers and non_blocking copies; median wall
per call. TF32 off. Outputs compared with PyTorch's. The last column is how much of tvms's copy time
ran beside a kernel on the GPU (from one traced run).
"""
import json
import os
import subprocess
import sys

ROWS, DIM, BATCH = 32768, 1024, 4096

HEADER = ('from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n'
          '    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm")]})\n\n    @R.function\n')


def module(parts):
    n = BATCH // parts
    sig = ('    def main(table: R.Tensor((%d, %d), "float32", "llvm"), ids: R.Tensor((%d,), "int64", "llvm"), '
           'w: R.Tensor((%d, %d), "float32", "cuda"), b: R.Tensor((%d,), "float32", "cuda")) -> R.Tensor((%d, %d), "float32", "llvm"):\n'
           % (ROWS, DIM, BATCH, DIM, DIM, DIM, BATCH, DIM))
    body = []
    for p in range(parts):
        body += ["i%d = R.strided_slice(ids, axes=[0], begin=[%d], end=[%d])" % (p, p * n, (p + 1) * n),
                 "e%d = R.take(table, i%d, axis=0)" % (p, p), 'g%d = R.to_vdevice(e%d, "cuda")' % (p, p),
                 "h%d = R.nn.gelu(R.add(R.matmul(g%d, w), b))" % (p, p), 'o%d = R.to_vdevice(h%d, "llvm")' % (p, p)]
    body.append("out = R.concat((%s), axis=0)" % ", ".join("o%d" % p for p in range(parts)) if parts > 1 else "out = o0")
    body.append("return out")
    return HEADER + sig + "".join("        %s\n" % line for line in body)


def run_tvms(tvms, path, inputs, out, extra):
    args = [tvms, "run", path, "--format", "json", "--output", out] + extra
    for name, p in inputs.items():
        args += ["--input", "%s=%s" % (name, p)]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    return json.loads(r.stdout)


def prepare(tvms, work):
    os.makedirs(work, exist_ok=True)
    for parts in (1, 4):
        path = os.path.join(work, "m%d.py" % parts)
        with open(path, "w") as f:
            f.write(module(parts))
        subprocess.run([tvms, "build", path, "-o", os.path.join(work, "m%d.tvmx" % parts)], check=True)


def main(tvms, work):
    import numpy as np
    import torch
    import torch.nn.functional as F
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_graphs import wall_ms  # same folder, here and on the device
    torch.backends.cuda.matmul.allow_tf32 = False
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(5)
    table = rng.standard_normal((ROWS, DIM)).astype("float32")
    ids = rng.integers(0, ROWS, BATCH).astype("int64")
    w = (rng.standard_normal((DIM, DIM)) * 0.03).astype("float32")
    b = rng.standard_normal(DIM).astype("float32")
    inputs = {}
    for name, a in (("table", table), ("ids", ids), ("w", w), ("b", b)):
        inputs[name] = os.path.join(work, name + ".npy")
        np.save(inputs[name], a)
    t_table, t_ids = torch.from_numpy(table), torch.from_numpy(ids)
    t_w, t_b = torch.from_numpy(w).cuda(), torch.from_numpy(b).cuda()
    print("== bench/gpu/bench_hetero.py on %s, PyTorch %s, %d CPU threads (same run; wall ms per call, median)" %
          (torch.cuda.get_device_name(), torch.__version__, torch.get_num_threads()))
    print("| case | tvms | eager | eager, pinned + non_blocking | tvms / eager | tvms / pinned eager | max rel. err | copies beside kernels (tvms, traced) |")
    print("|---|---|---|---|---|---|---|---|")
    for parts in (1, 4):
        path = os.path.join(work, "m%d.tvmx" % parts)  # built by `prepare` where LLVM is
        n = BATCH // parts

        def eager():
            outs = []
            for p in range(parts):
                e = torch.index_select(t_table, 0, t_ids[p * n:(p + 1) * n])
                outs.append(F.gelu(e.cuda() @ t_w + t_b).cpu())
            return torch.cat(outs) if parts > 1 else outs[0]

        e_pin = [torch.empty((n, DIM)).pin_memory() for _ in range(parts)]
        o_pin = torch.empty((BATCH, DIM)).pin_memory()

        def pinned():
            for p in range(parts):
                torch.index_select(t_table, 0, t_ids[p * n:(p + 1) * n], out=e_pin[p])
                h = F.gelu(e_pin[p].cuda(non_blocking=True) @ t_w + t_b)
                o_pin[p * n:(p + 1) * n].copy_(h, non_blocking=True)
            torch.cuda.synchronize()
            return o_pin

        try:
            rep = run_tvms(tvms, path, inputs, os.path.join(work, "out%d" % parts), ["--repeat", "50"])
            traced = run_tvms(tvms, path, inputs, os.path.join(work, "traced%d" % parts),
                              ["--repeat", "10", "--trace", os.path.join(work, "trace%d.json" % parts)])
        except RuntimeError as e:
            print("| %d micro-batch(es) | failed: %s | | | | | | |" % (parts, str(e).splitlines()[-1][:160]))
            continue
        got = np.load(os.path.join(work, "out%d" % parts, os.listdir(os.path.join(work, "out%d" % parts))[0]))
        want = eager()
        err = float(np.max(np.abs(got - want.numpy()) / np.maximum(1, np.abs(want.numpy()))))
        e_ms, p_ms = wall_ms(eager, 50), wall_ms(pinned, 50)
        ours = rep["repeat"]["p50Ms"]
        ov = traced.get("copyOverlap", {})
        print("| %s | %.3f | %.3f | %.3f | %.2fx | %.2fx | %.1e | %.3f of %.3f ms |" %
              ("one batch of 4096 rows" if parts == 1 else "4 micro-batches of 1024 rows", ours, e_ms, p_ms, ours / e_ms, ours / p_ms, err,
               ov.get("overlappedMs", 0), ov.get("copyMs", 0)))
        sys.stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("prepare", "measure"):
        sys.exit(__doc__)
    (prepare if sys.argv[1] == "prepare" else main)(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]))
