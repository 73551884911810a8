# TVS107: R.call_tir whose arguments or out_sinfo do not fit the prim_func's buffers.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32"), h: R.Tensor((4,), "float16")) -> R.Tensor((4,), "float32"):
        ok = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((4,), "float32"))
        bad_out = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((8,), "float32"))  # expect: TVS107
        bad_in = R.call_tir(cls.add_one, (h,), out_sinfo=R.Tensor((4,), "float32"))  # expect: TVS107
        too_many = R.call_tir(cls.add_one, (x, x), out_sinfo=R.Tensor((4,), "float32"))  # expect: TVS107
        return ok
