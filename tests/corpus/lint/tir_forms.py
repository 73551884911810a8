# TIR as TVM's printer, FuseTIR and DLight write it, every form the reader compiles (lint: nothing to
# report; each kernel is run against a reference by tests/unit/test_compile_tir.cpp). Also a seed of
# the frontend fuzzer.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

SCALE = 0.5


@I.ir_module
class Module:
    @T.prim_func(private=True)
    def padded_sum(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32", strides=(1,), align=64, offset_factor=1)
        B = T.match_buffer(b, (n,), "float32")
        with T.block("root"):
            pad = T.alloc_buffer((n + T.int64(2),))
            for i in T.grid(n + T.int64(2)):
                with T.block("pad"):
                    vi = T.axis.spatial(n + T.int64(2), i)
                    T.reads(A[vi - T.int64(1)])
                    T.writes(pad[vi])
                    pad[vi] = T.if_then_else(T.int64(1) <= vi and vi <= n, A[vi - T.int64(1)], T.float32(0))
            for i in range(n):
                with T.block("B"):
                    vi = T.axis.spatial(n, i)
                    B[vi] = (pad[vi] + pad[vi + T.int64(1)] + pad[vi + T.int64(2)]) * SCALE

    @T.prim_func(private=True)
    def staged_transpose(A: T.Buffer((T.int64(64), T.int64(128)), "float32"), B: T.Buffer((T.int64(128), T.int64(64)), "float32")):
        T.func_attr({"tir.is_scheduled": True})
        A_shared = T.alloc_buffer((T.int64(64), T.int64(128)), scope="shared")
        for by in T.thread_binding(T.int64(16), thread="blockIdx.y"):
            for bx in T.thread_binding(T.int64(4), thread="blockIdx.x"):
                for ty in T.thread_binding(T.int64(8), thread="threadIdx.y"):
                    for tx in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                        with T.sblock("A_shared"):
                            v0 = T.axis.spatial(T.int64(64), bx * T.int64(16) + tx)
                            v1 = T.axis.spatial(T.int64(128), by * T.int64(8) + ty)
                            A_shared[v0, v1] = A[v0, v1]
                for ty in T.thread_binding(T.int64(8), thread="threadIdx.y"):
                    for tx in T.thread_binding(T.int64(16), thread="threadIdx.x"):
                        with T.sblock("B"):
                            v0 = T.axis.spatial(T.int64(128), by * T.int64(8) + ty)
                            v1 = T.axis.spatial(T.int64(64), bx * T.int64(16) + tx)
                            B[v0, v1] = A_shared[v1, v0]

    @T.prim_func(private=True)
    def launched(A: T.Buffer((T.int64(4), T.int64(8)), "float32"), B: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        bx = T.launch_thread("blockIdx.x", T.int64(4))
        tx = T.env_thread("threadIdx.x")
        T.launch_thread(tx, 2)
        T.attr(0, "pragma_scope", "seq")
        base = T.int64()
        with T.let(base, tx * T.int64(4)):
            k: T.int64 = base
            B[bx, T.ramp(k, 1, 4)] = A[bx, T.ramp(k, 1, 4)] * T.broadcast(T.float32(2), 4)

    @T.prim_func(private=True)
    def decode(W: T.Buffer((T.int64(2), T.int64(4)), "uint32"), S: T.Buffer((T.int64(4),), "uint32"), D: T.Buffer((T.int64(16), T.int64(4)), "float32")):
        for iters in T.grid(*D.shape):
            with T.block("decode"):
                i, j = T.axis.remap("SS", iters)
                nibble: T.uint32 = T.bitwise_and(T.shift_right(W[i // T.int64(8), j], T.Cast("uint32", i % T.int64(8) * T.int64(4))), T.uint32(15))
                D[i, j] = T.Cast("float32", nibble) * T.reinterpret("float32", T.shift_left(S[j], T.uint32(16)))

    @T.prim_func(private=True)
    def steps(A: T.Buffer((8,), "float32"), s: T.float32, B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("steps"):
                vi = T.axis.spatial(8, i)
                x = T.alloc_buffer((1,), "int64", scope="local")
                x[0] = T.Cast("int64", T.fabs(A[vi]) * s) + T.int64(1)
                B[vi] = T.float32(0)
                while x[0] != T.int64(1):
                    x[0] = T.if_then_else(x[0] % T.int64(2) == T.int64(0), x[0] // T.int64(2), x[0] * T.int64(3) + T.int64(1))
                    B[vi] = B[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor(("m",), "float32"), w: R.Tensor((2, 4), "uint32"), s: R.Tensor((4,), "uint32")):
        # staged_transpose and launched, which nothing calls, are built for cuda (their threads are bound)
        m = T.int64()
        y = R.call_tir(padded_sum, (x,), out_sinfo=R.Tensor((m,), "float32"))
        d = R.call_tir(decode, (w, s), out_sinfo=R.Tensor((16, 4), "float32"))
        return (y, d)
