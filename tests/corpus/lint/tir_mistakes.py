# Mistakes in T.prim_func bodies: each reported once, where it is written (TVS401 undefined name,
# TVS402 an index count that is not the buffer's rank, TVS403 a thread tag that is no CUDA thread
# axis, TVS404 a store to a buffer the block's T.writes leaves out, TVS405 a spatial axis that does
# not index the block's store, TVS406 a float stored into an integer buffer, TVS407 an unguarded index
# its loops take outside the axis). A number the file's
# Python binds is read as TVM reads it; a construct tvms does not read yet is a TVS011 note (not
# compiled), never an error; what TVM casts silently is not reported.
from tvm.script import ir as I
from tvm.script import tir as T

SCALE = 2.0


@I.ir_module
class Module:
    @T.prim_func
    def loop_var_after_loop(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i]
        B[0] = A[i]  # expect: TVS401

    @T.prim_func
    def rank(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            B[i, j] = A[i * 8 + j]  # expect: TVS402

    @T.prim_func
    def tag(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for t in T.thread_binding(64, thread="threadIdx.w"):  # expect: TVS403
            B[t] = A[t]

    @T.prim_func
    def python_constant(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i] * SCALE

    @T.prim_func
    def not_read_yet(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = T.call_extern("float32", "vendor_fn", A[i])  # expect: TVS011 {{T.call_extern}}

    @T.prim_func
    def writes_left_out(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.block("BC"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj]
                C[vi, vj] = A[vi, vj]  # expect: TVS404@17 {{'C', which its T.writes does not list}}

    @T.prim_func
    def reduction_declared_spatial(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
        for i, k in T.grid(4, 8):
            with T.block("B"):
                vi, vk = T.axis.remap("SS", [i, k])  # expect: TVS405@21 {{spatial axis 'vk' does not index the store to 'B'}}
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]

    @T.prim_func
    def float_into_int(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "int32"), C: T.Buffer((8,), "float64")):
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] * T.float32(2)  # expect: TVS406
                C[vi] = A[vi]
                B[vi] = T.Cast("int32", A[vi])

    @T.prim_func
    def index_past_the_axis(A: T.Buffer((2, 30), "float32"), W: T.Buffer((4, 16, 3), "float32"), B: T.Buffer((2, 4, 28), "float32")):
        # As TVM's own conv1d test writes it: the reduction runs rc to 128 over an axis of 16.
        pad = T.alloc_buffer((2, 30))
        for n, i in T.grid(2, 30):
            with T.block("pad"):
                vn, vi = T.axis.remap("SS", [n, i])
                pad[vn, vi] = T.if_then_else(1 <= vi and vi < 29, A[vn, vi - 1], T.float32(0))
        for n, f, y, rc, ry in T.grid(2, 4, 28, 128, 3):
            with T.block("B"):
                vn, vf, vy, vrc, vry = T.axis.remap("SSSRR", [n, f, y, rc, ry])
                with T.init():
                    B[vn, vf, vy] = T.float32(0)
                B[vn, vf, vy] = B[vn, vf, vy] + pad[vn, vy + vry] * W[vf, vrc, vry]  # expect: TVS407 {{ranges over [0, 127] on an axis of extent 16}}
