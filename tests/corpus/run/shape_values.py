# Shapes and prim values as run-time values, as TVM's tests write them (tests/python/relax/
# test_relax_operators.py): R.shape_of, R.shape([...]) bound to a variable and given to R.reshape,
# R.shape_to_tensor, R.prim_value results and an `if` on a prim value.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Module:
    @R.function
    def get_shape(t: R.Tensor(ndim=3, dtype="int32")) -> R.Shape(ndim=3):
        return R.shape_of(t)

    @R.function
    def reshaped(x: R.Tensor(("a", "b"), "float32")) -> R.Tensor(("b", "a"), "float32"):
        a = T.int64()
        b = T.int64()
        lv: R.Shape((b, a)) = R.shape((b, a))
        gv: R.Tensor((b, a), "float32") = R.reshape(x, lv)
        return gv

    @R.function
    def as_tensor(x: R.Tensor(("m", "n"), "float32")) -> R.Tensor(ndim=1, dtype="int64"):
        m = T.int64()
        n = T.int64()
        return R.shape_to_tensor(R.shape([m, n * 2, 7]))

    @R.function
    def pick(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        if R.prim_value(n):
            out = R.prim_value(n * 10 + 5)
        else:
            out = R.prim_value(10)
        return out
