# R.match_cast of a shape value and of a tensor (as TVM's data-dependent modules write them): `main`
# binds m and n from a shape read off x (give x = [2, 8]) and reshapes y's 16 values with it; `fixed`
# checks the shape against (2, 8) when it runs (x = [4, 4] stops it, naming the binding).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "int64"), y: R.Tensor((16,), "float32")):
        m = T.int64()
        n = T.int64()
        s = R.tensor_to_shape(x)
        t = R.match_cast(s, R.Shape([m, n]))
        z = R.reshape(y, t)
        w = R.match_cast(z, R.Tensor((m, n), "float32"))
        return w

    @R.function
    def fixed(x: R.Tensor((2,), "int64"), y: R.Tensor((16,), "float32")):
        s = R.tensor_to_shape(x)
        t = R.match_cast(s, R.Shape([2, 8]))
        z = R.reshape(y, t)
        return z
