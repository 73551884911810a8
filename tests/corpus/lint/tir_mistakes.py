# Mistakes in T.prim_func bodies that TVM rejects too: each reported once, where it is written
# (TVS401 undefined name, TVS402 an index count that is not the buffer's rank, TVS403 a thread tag that
# is no CUDA thread axis). A name of the file's Python and a construct tvms does not read yet are not
# errors.
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
        i = T.int32(0)
        while i < 8:
            B[i] = A[i]
