#!/usr/bin/env python3
"""bench/gpu/bench_attention.py: R.nn.attention alone at sequence lengths 128-4096 (issue 33) against
PyTorch's F.scaled_dot_product_attention, same run, same inputs, float16, bfloat16 and float32 (TF32
off on both sides: tvms's float32 kernel runs on the CUDA cores), with and without a causal mask.

usage: bench_attention.py TVMS DIR     on the GPU machine (PyTorch, numpy); DIR is scratch space
  (tests/gpu/prepare_device_dir.sh packs it: `python3 tests/bench_attention.py ./tvms attention` in the
  packed folder; it is not in on_device.sh, which already takes most of a device call's 10 minutes)
Batch 8 x 16 heads x 64 features (4 x 16 at 2048 and 4096, to keep the inputs' size; 128 features at 512 and
2048 rows, the kernel's other instance). tvms: the
module `R.nn.attention(q, k, v)` on (B, S, H, D) tensors run by `tvms run --repeat 50 --trace`, the
attention call's GPU time per call the median of its traced spans (device events; a mean would carry
the first call's load of the kernels' module) (bfloat16 inputs are cast in the module
from float32 files, numpy having no bfloat16; the casts are not counted). PyTorch: SDPA on (B, H, S, D) contiguous
tensors (how it is called), timed by CUDA events, median of 50. Outputs compared with SDPA's.
torch.compile is left out here: compiling SDPA alone dispatches to the same flash kernel, and 24
shapes would each pay a compile (the encoder layer in bench_graphs.py has the torch.compile columns).
"""
import json
import os
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_fusion import events_ms, max_rel_err, print_table_header, run_tvms, write_case  # same folder, here and on the device

import numpy as np

HEADS = 16


def median_span_ms(trace_path, word):
    """The median duration, in ms, of the traced spans whose name has `word`."""
    with open(trace_path) as f:
        spans = [e["dur"] for e in json.load(f)["traceEvents"] if e.get("ph") == "X" and word in e["name"]]
    if not spans:
        raise RuntimeError("no %s span in %s" % (word, trace_path))
    return statistics.median(spans) / 1e3


def case(seq, dtype, causal, features):
    b = 8 if seq <= 1024 else 4
    shape = (b, seq, HEADS, features)
    params = {n: (shape, dtype) for n in "qkv"}
    mask = ', causal_mask="TopLeft"' if causal else ""
    body = ["o = R.nn.attention(q, k, v%s)" % mask, "return o"]
    return shape, params, body


def main(tvms, work):
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(11)
    print_table_header("bench_attention.py", "GPU ms per call",
                       ["dtype", "causal", "B x S x H x D", "tvms.attention", "SDPA", "tvms / SDPA", "TFLOP/s (tvms)", "max rel. err"])
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    # 64 features at every length; 128 (the kernel's other instance) at a few.
    runs = [(dtype, causal, seq, 64) for dtype in ("float16", "bfloat16", "float32") for causal in (False, True)
            for seq in (128, 256, 512, 1024, 2048, 4096)]
    runs += [(dtype, causal, seq, 128) for dtype in ("float16", "float32") for causal in (False, True) for seq in (512, 2048)]
    for dtype, causal, seq, features in runs:
        shape, params, body = case(seq, dtype, causal, features)
        d = os.path.join(work, "%s_%s_%d_d%d" % (dtype, "causal" if causal else "full", seq, features))
        if dtype == "bfloat16":  # numpy has no bfloat16: the inputs are written as float32 and cast by the module
            params32 = {n: (s, "float32") for n, (s, _) in params.items()}
            body = ['%sb = R.astype(%s, "bfloat16")' % (n, n) for n in "qkv"] + \
                   [body[0].replace("(q, k, v", "(qb, kb, vb"), 'o32 = R.astype(o, "float32")', "return o32"]
            path, inputs, tensors = write_case(d, params32, (shape, "float32"), body, rng)
            tensors = [t.to(torch.bfloat16) for t in tensors]
        else:
            path, inputs, tensors = write_case(d, params, (shape, dtype), body, rng)
        try:
            # Traced: every call's attention span is in the trace.
            ours = run_tvms(tvms, path, inputs, os.path.join(d, "out"), ["--trace", os.path.join(d, "trace.json")])
            attention_ms = median_span_ms(os.path.join(d, "trace.json"), "attention")
        except RuntimeError as e:
            print("| %s | %s | %s | failed: %s | | | | |" % (dtype, causal, "x".join(map(str, shape)), str(e).splitlines()[-1][:120]))
            continue
        q, k, v = (t.permute(0, 2, 1, 3).contiguous() for t in tensors)
        sdpa = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        want = sdpa().permute(0, 2, 1, 3)
        theirs = events_ms(sdpa)
        flops = 4.0 * shape[0] * HEADS * seq * seq * features * (0.5 if causal else 1.0)
        err = max_rel_err(ours[3], want)
        print("| %s | %s | %s | %.3f | %.3f | %.2fx | %.0f | %.1e |" %
              (dtype, "yes" if causal else "no", "x".join(map(str, shape)), attention_ms, theirs, attention_ms / theirs,
               flops / (attention_ms * 1e-3) / 1e12 if attention_ms > 0 else 0, err))
        sys.stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
