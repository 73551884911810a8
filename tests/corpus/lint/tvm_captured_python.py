# TVM's tests build modules from Python values of the enclosing scope (parametrized shapes, dtypes,
# strides). TVM evaluates them; tvms does not yet (issue 16), so it says once that the function using
# them is not checked (TVS011), reports no false error for them, and still checks everything else.
import pytest
from tvm.script import ir as I
from tvm.script import relax as R

dtype = "float32"
shape = (4, 4)
axis = 1


@pytest.mark.parametrize("stride", [1, 2])
def test_conv(stride):
    n = 8

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((1, 3, n, n), dtype), w: R.Tensor((4, 3, 3, 3), dtype)) -> R.Tensor((1, 4, 2, 2), dtype):  # expect: TVS011
            y = R.nn.conv2d(x, w, strides=stride)
            z = R.add(y, R.const(1, dtype))
            return z

    @I.ir_module
    class Plain:
        @R.function
        def main(x: R.Tensor(shape, dtype)):  # expect: TVS011
            y = R.add(x, undefined_name)  # expect: TVS003
            return y

        @R.function
        def reduce_over(x: R.Tensor((4, 3), "float32")) -> R.Tensor((4,), "float32"):
            # axis is unknown here: taken as None it would reduce everything, a false TVS104 below
            y: R.Tensor((4,), "float32") = R.sum(x, axis=axis)
            return y

        @R.function
        def checked(x: R.Tensor((2, 3), "float32"), y: R.Tensor((3, 2), "float32")):
            z = R.add(x, y)  # expect: TVS101
            return z


@R.macro(hygienic=True)
def alloc_and_shape(dtype: str):
    alloc = R.builtin.alloc_tensor(R.shape([4, 4]), runtime_device_index=0, dtype=dtype)
    shape = R.shape_of(alloc)
    return shape


@R.function(private=True)
def uses_a_macro(z: R.Tensor((4, 4), "float32")):
    shape = alloc_and_shape(dtype="float32")  # expect: TVS011
    return shape
