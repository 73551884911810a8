#!/usr/bin/env python3
"""The shipped modules with cuda vdevices, run on a GPU, against the same modules run on the CPU.

usage: run_artifacts.py prepare TVMS DIR   here, with the LLVM code generator: for each module,
                                           DIR/NAME.tvmx (its CPU and cuda kernels, built without a
                                           GPU) and DIR/NAME.ref/*.npy (its outputs with every cuda
                                           vdevice remapped to the CPU, on the same seeded inputs)
       run_artifacts.py check TVMS DIR     on a GPU machine: runs each DIR/NAME.tvmx with its cuda
                                           vdevices on the GPU (cuda:1 on GPU 0 unless
                                           TVMS_TWO_GPUS=1) and compares every output with the
                                           reference (max |gpu - cpu| / max(1, |cpu|) <= 1e-3)
       run_artifacts.py both TVMS DIR      prepare, then check (the CTest entry)
check exits 77 (CTest: skipped) when there is no GPU, 1 when an output differs or a run fails.
"""
import glob
import os
import struct
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# float32 sums in another order (cuBLAS / cuDNN, or one thread per output element instead of the CPU's
# register tile): over K = 1024 products of values in [-1, 1] the results differ by ~1e-4 relative.
TOLERANCE = 1e-3


def modules():
    found = []
    for pattern in ("examples/*.py", "tests/corpus/run/*.py"):
        for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
            text = open(path, encoding="utf-8").read()
            # Modules with cuda vdevices; those written to show a diagnostic (# expect:) do not build.
            if '"cuda"' in text and "# expect:" not in text:
                found.append(path)
    return found


def read_npy(path):
    """The values of a .npy file of float32/float64/int32/int64/bool, flattened."""
    data = open(path, "rb").read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(path + ": not a .npy file")
    header_len = struct.unpack("<H", data[8:10])[0] if data[6] == 1 else struct.unpack("<I", data[8:12])[0]
    start = (10 if data[6] == 1 else 12) + header_len
    header = data[start - header_len:start].decode("latin1")
    descr = header.split("'descr':")[1].split("'")[1]
    code = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q", "|b1": "?"}[descr]
    size = struct.calcsize(code)
    body = data[start:]
    return list(struct.unpack("<%d%s" % (len(body) // size, code), body))


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def prepare(tvms, out):
    os.makedirs(out, exist_ok=True)
    for path in modules():
        name = os.path.basename(os.path.dirname(path)) + "_" + os.path.splitext(os.path.basename(path))[0]
        b = run([tvms, "build", path, "-o", os.path.join(out, name + ".tvmx")])
        if b.returncode != 0:
            sys.exit("prepare: tvms build %s failed:\n%s" % (path, b.stderr))
        ref = os.path.join(out, name + ".ref")
        os.makedirs(ref, exist_ok=True)
        # Every cuda vdevice of the module to the CPU (a --device naming no vdevice of it is an error).
        text = open(path).read()
        remaps = []
        for i in (0, 1):
            if '"cuda", %d' % i in text or "cuda:%d" % i in text:
                remaps += ["--device", "cuda:%d=cpu" % i]
        with open(os.path.join(out, name + ".cuda"), "w") as f:  # its cuda vdevices, for check
            f.write(" ".join(r.split("=")[0] for r in remaps[1::2]))
        r = run([tvms, "run", path] + remaps + ["--output", ref])
        if r.returncode != 0:
            sys.exit("prepare: tvms run %s on the CPU failed:\n%s" % (path, r.stderr))
        print("prepared %s" % name)


def check(tvms, out):
    arts = sorted(glob.glob(os.path.join(out, "*.tvmx")))
    if not arts:
        sys.exit("check: no artifacts in %s (run prepare first)" % out)
    failures = 0
    for art in arts:
        name = os.path.splitext(os.path.basename(art))[0]
        got = os.path.join(out, name + ".gpu")
        os.makedirs(got, exist_ok=True)
        # One GPU unless TVMS_TWO_GPUS=1: a module's cuda:1 then runs on GPU 0 with a stream of its own.
        two = os.environ.get("TVMS_TWO_GPUS") == "1"
        has_cuda1 = "cuda:1" in open(os.path.join(out, name + ".cuda")).read().split()
        r = run([tvms, "run", art, "--output", got] + ([] if two or not has_cuda1 else ["--device", "cuda:1=cuda:0"]))
        if r.returncode != 0 and "needs a cuda device" in r.stderr:
            print("SKIPPED: no GPU here: " + r.stderr.strip())
            sys.exit(77)
        print("== %s on the GPU\n%s%s" % (name, r.stdout, r.stderr))
        if r.returncode != 0:
            failures += 1
            continue
        refs = sorted(glob.glob(os.path.join(out, name + ".ref", "*.npy")))
        if not refs:
            print("FAIL %s: no reference outputs" % name)
            failures += 1
        for ref in refs:
            gpu = os.path.join(got, os.path.basename(ref))
            if not os.path.exists(gpu):
                print("FAIL %s: %s missing from the GPU run" % (name, os.path.basename(ref)))
                failures += 1
                continue
            want, have = read_npy(ref), read_npy(gpu)
            if len(want) != len(have):
                print("FAIL %s: %s has %d values, the reference %d" % (name, os.path.basename(ref), len(have), len(want)))
                failures += 1
                continue
            worst = max((abs(h - w) / max(1.0, abs(w)) for h, w in zip(have, want)), default=0.0)
            status = "ok" if worst <= TOLERANCE else "FAIL"
            failures += status != "ok"
            print("%s %s %s: %d values, max relative error %.3g against the CPU run" % (status, name, os.path.basename(ref), len(want), worst))
    print("%d module(s), %d failure(s)" % (len(arts), failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("prepare", "check", "both"):
        sys.exit(__doc__)
    mode, tvms, out = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    if mode in ("prepare", "both"):
        prepare(tvms, out)
    if mode in ("check", "both"):
        check(tvms, out)
