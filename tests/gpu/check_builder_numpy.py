#!/usr/bin/env python3
"""examples/builder_conv2d.py (a module built with TVM's IRBuilder API) run on the GPU from its .tvmx,
against a numpy reference of what the program computes: conv2d NHWC/OHWI with padding 1, + bias,
moved to the CPU, * 2.

usage: check_builder_numpy.py TVMS ARTIFACT [SEED]     (on the device machine: numpy is there)
"""
import os
import random
import subprocess
import sys
import tempfile

import numpy as np


def main():
    tvms, artifact = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else random.randrange(1 << 30)
    print("seed %d (rerun: check_builder_numpy.py TVMS ARTIFACT %d)" % (seed, seed))
    rng = np.random.default_rng(seed)
    data = rng.standard_normal((1, 16, 16, 3)).astype("float32")
    weight = rng.standard_normal((8, 3, 3, 3)).astype("float32")
    bias = rng.standard_normal((1, 1, 1, 8)).astype("float32")
    with tempfile.TemporaryDirectory() as d:
        args = [tvms, "run", artifact]
        for name, a in (("data", data), ("weight", weight), ("bias", bias)):
            np.save(os.path.join(d, name + ".npy"), a)
            args += ["--input", "%s=%s" % (name, os.path.join(d, name + ".npy"))]
        r = subprocess.run(args + ["--output", d], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("tvms run failed:\n" + r.stderr)
        got = np.load(os.path.join(d, "output.npy"))
    padded = np.pad(data.astype("float64"), ((0, 0), (1, 1), (1, 1), (0, 0)))
    want = np.zeros((1, 16, 16, 8))
    for a in range(3):
        for b in range(3):
            want += np.einsum("nhwc,oc->nhwo", padded[:, a:a + 16, b:b + 16, :], weight[:, a, b, :].astype("float64"))
    want = 2 * (want + bias)
    err = np.max(np.abs(got - want) / np.maximum(1, np.abs(want)))
    print("builder_conv2d on the GPU against numpy: %d values, max relative error %.3g" % (got.size, err))
    sys.exit(0 if err <= 1e-4 else 1)


if __name__ == "__main__":
    main()
