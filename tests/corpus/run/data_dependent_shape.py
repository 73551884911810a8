# A shape known only from a tensor's values (TVM's test_data_dependent_reshape): R.tensor_to_shape
# reads x, its dims are bound for the reshape that follows, and the reshape's element count is
# checked when it runs. `dims` writes an x of [2, 8] (--output), `main` reshapes 16 values with it.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor([2], dtype="int64"), y: R.Tensor([16], dtype="float32")):
        lv: R.Shape(ndim=2) = R.tensor_to_shape(x)
        gv = R.reshape(y, lv)
        return gv

    @R.function
    def dims() -> R.Tensor((2,), "int64"):
        x = R.const([2, 8], "int64")
        return x
