# An integer parameter, as TVM's tests write one (test_take_prim_value): `index: R.Prim("int64")`.
# `tvms run --input index=2` gives it; `fixed` takes the same slice with the index written in.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32"), index: R.Prim("int64")) -> R.Tensor((2, 4), "float32"):
        gv: R.Tensor((2, 4), "float32") = R.take(x, index, axis=1)
        return gv

    @R.function
    def fixed(x: R.Tensor((2, 3, 4), "float32")) -> R.Tensor((2, 4), "float32"):
        gv: R.Tensor((2, 4), "float32") = R.take(x, R.prim_value(2), axis=1)
        return gv
