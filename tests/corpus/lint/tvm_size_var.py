# `n = T.int64(is_size_var=True)` declares a symbolic size as TVM's tests write it
# (test_transform_legalize_ops_index_linear_algebra.py): no diagnostic.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class StridedSlice:
    @R.function
    def main(x: R.Tensor((10, "n"), "float32")) -> R.Tensor((3, "n"), "float32"):
        n = T.int64(is_size_var=True)
        gv: R.Tensor((3, n), "float32") = R.strided_slice(x, axes=[0, 1], begin=[1, 0], end=[8, n], strides=[3, 1])
        return gv
