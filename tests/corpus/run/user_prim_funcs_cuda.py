# Users' T.prim_funcs on a cuda vdevice: two the default GPU schedule binds (elementwise, a matmul
# with T.init), one whose author bound its loops to GPU threads (kept as written), one with
# T.parallel (a CPU schedule: the GPU schedule replaces it); the result goes back to the CPU.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm", 0)]})

    @T.prim_func(private=True)
    def add_one(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        T.func_attr({"tir.noalias": True})
        for i, j in T.grid(4, 8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] + T.float32(1)

    @T.prim_func(private=True)
    def matmul(A: T.Buffer((4, 8), "float32"), W: T.Buffer((8, 3), "float32"), C: T.Buffer((4, 3), "float32")):
        for i, j, k in T.grid(4, 3, 8):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * W[vk, vj]

    @T.prim_func(private=True)
    def bound(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                B[bx * 32 + tx] = A[bx * 32 + tx] * T.float32(2)

    @T.prim_func(private=True)
    def par(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        for i in T.parallel(8):
            with T.block("C"):
                vi = T.axis.spatial(8, i)
                C[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4, 8), "float32", "cuda:0"), w: R.Tensor((8, 3), "float32", "cuda:0"), v: R.Tensor((64,), "float32", "cuda:0"), p: R.Tensor((8,), "float32", "cuda:0")):
        cls = Module
        y = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((4, 8), "float32", "cuda:0"))
        z = R.call_tir(cls.matmul, (y, w), out_sinfo=R.Tensor((4, 3), "float32", "cuda:0"))
        b = R.call_tir(cls.bound, (v,), out_sinfo=R.Tensor((64,), "float32", "cuda:0"))
        q = R.call_tir(cls.par, (p,), out_sinfo=R.Tensor((8,), "float32", "cuda:0"))
        zc = R.to_vdevice(z, "llvm:0")
        return (zc, b, q)
