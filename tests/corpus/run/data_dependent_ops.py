# Results shaped by their operands' values, in the style of TVM's test_dynamic_strided_slice and
# test_op_set: `main` slices x with begin / end / strides given at run time (shape (2, 2, 4) for
# begin [0, 1, 0], end [2, 3, 4], strides [1, 1, 1]; its annotation is checked when it runs),
# `sets` takes the distinct values of x with their counts and the indices of its nonzero elements.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(
        x: R.Tensor((2, 3, 4), dtype="float32"),
        begin: R.Tensor((3,), dtype="int64"),
        end: R.Tensor((3,), dtype="int64"),
        strides: R.Tensor((3,), dtype="int64"),
    ) -> R.Tensor((2, 2, 4), dtype="float32"):
        gv: R.Tensor((2, 2, 4), dtype="float32") = R.dynamic_strided_slice(x, begin, end, strides)
        return gv

    @R.function
    def sets(x: R.Tensor((2, 3, 4), dtype="float32")):
        with R.dataflow():
            u: R.Tuple(R.Tensor(dtype="float32", ndim=1), R.Tensor(dtype="int64", ndim=1)) = R.unique(
                x, return_counts=True
            )
            nz: R.Tensor(dtype="int64", ndim=2) = R.nonzero(x)
            gv = (u, nz)
            R.output(gv)
        return gv
