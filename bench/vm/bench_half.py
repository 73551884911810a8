#!/usr/bin/env python3
"""bench/vm/bench_half.py: matmul on a CPU vdevice in float32, bfloat16 and float16 through the tvms
Python package (vm.benchmark: inputs placed once, each call waited for), against numpy's float32
matmul (OpenBLAS with ./dev bench's libopenblas0-pthread) and numpy's float16 matmul in the same run,
outputs compared with numpy's float32 product of the same (16-bit-exact) values.

usage: PYTHONPATH=build/python python3 bench/vm/bench_half.py [RUNS]   (each figure: median of RUNS runs)
"""
import statistics
import sys
import time

import numpy as np

import tvms

MODULE = '''
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((N, N), "DT"), b: R.Tensor((N, N), "DT")) -> R.Tensor((N, N), "DT"):
        c = R.matmul(a, b)
        return c
'''


def bf16_bits(x):
    """float32 -> bfloat16 bits, round to nearest even (as tvms's runtime/dtype.h)."""
    u = x.astype(np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_values(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


class BF16:
    """A bfloat16 tensor for DLPack (numpy has no bfloat16): the bits in a uint16 array."""

    def __init__(self, bits):
        self.bits = bits

    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, stream=None):
        import ctypes

        # numpy exports uint16; tvms reads the same bytes as bfloat16 when the DLPack dtype says so,
        # so hand the same memory over with the dtype patched in the capsule's tensor.
        capsule = self.bits.__dlpack__()
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        tensor = get(capsule, b"dltensor")
        dtype_offset = 8 + 8 + 4  # DLTensor: data, device (8), ndim (4), then dtype {code, bits, lanes}
        ctypes.c_uint8.from_address(tensor + dtype_offset).value = 4  # kDLBfloat
        return capsule


def median_seconds(f, reps):
    f()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    rng = np.random.default_rng(0)
    print("matmul NxN on the CPU vdevice (%s threads), GFLOP/s, median of %d runs; numpy %s" % ("all", runs, np.__version__))
    print("%6s %10s %10s %10s %12s %12s %14s" % ("N", "tvms f32", "tvms bf16", "tvms f16", "numpy f32", "numpy f16", "max rel err"))
    for n in (256, 512, 1024, 2048):
        a32 = rng.standard_normal((n, n)).astype(np.float32)
        b32 = rng.standard_normal((n, n)).astype(np.float32)
        abf, bbf = bf16_bits(a32), bf16_bits(b32)
        a16, b16 = a32.astype(np.float16), b32.astype(np.float16)
        flops = 2.0 * n ** 3
        row = {}
        errors = []
        reps = 20 if n <= 512 else 5
        for name, dt, args, ref in (("f32", "float32", (a32, b32), a32 @ b32),
                                    ("bf16", "bfloat16", (BF16(abf), BF16(bbf)), bf16_values(abf) @ bf16_values(bbf)),
                                    ("f16", "float16", (a16, b16), a16.astype(np.float32) @ b16.astype(np.float32))):
            vm = tvms.VirtualMachine(tvms.build(MODULE.replace("N", str(n)).replace("DT", dt)))
            ms = [vm.benchmark("main", *args, repeat=reps)["median_ms"] for _ in range(runs)]
            row[name] = flops / (statistics.median(ms) * 1e-3) / 1e9
            out = vm["main"](*args)
            got = np.from_dlpack(out) if dt != "bfloat16" else None
            if dt == "bfloat16":
                import ctypes
                got = bf16_values(np.ctypeslib.as_array(ctypes.cast(out.data_ptr(), ctypes.POINTER(ctypes.c_uint16)), shape=(n, n)).copy())
            errors.append(float(np.abs(got.astype(np.float32) - ref).max() / np.abs(ref).max()))
        np32 = statistics.median(median_seconds(lambda: a32 @ b32, reps) for _ in range(runs))
        np16 = statistics.median(median_seconds(lambda: a16 @ b16, 1 if n >= 1024 else 3) for _ in range(runs)) if n <= 1024 else float("nan")
        print("%6d %10.1f %10.1f %10.1f %12.1f %12.2f %14s" % (n, row["f32"], row["bf16"], row["f16"], flops / np32 / 1e9, flops / np16 / 1e9,
                                                            " ".join("%.1e" % e for e in errors)))


if __name__ == "__main__":
    main()
