# TVM v0.26 spellings: R.Any, out_ty=, ty_args=, vdevice strings with a scope.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0, "global"), I.vdevice("llvm", 0, "global")]})  # expect: TVS209

    @T.prim_func
    def copy(a: T.handle, b: T.handle):
        A = T.match_buffer(a, (8,), "float32")
        B = T.match_buffer(b, (8,), "float32")
        for i in range(8):
            B[i] = A[i]

    @R.function
    def main(x: R.Tensor((8,), "float32", "cuda:0:global"), o: R.Any) -> R.Tensor((8,), "float32", "cuda:0:global"):
        y = R.call_tir(cls.copy, (x,), out_ty=R.Tensor((8,), "float32", "cuda:0:global"))
        z = R.call_pure_packed("f", y, ty_args=R.Tensor((8,), "float32", "cuda:0:global"))
        return z
