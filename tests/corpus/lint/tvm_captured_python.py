# TVM's tests build modules from Python values of the enclosing scope (parametrized shapes, dtypes,
# strides). TVM evaluates them, and so does tvms where the file's Python says what they are (`dtype`,
# `shape`, `n = 8`); a value it cannot know (a pytest parameter) makes the function using it unchecked,
# said once (TVS011), with no false error, and everything else is still checked.
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
        def main(x: R.Tensor((1, 3, n, n), dtype), w: R.Tensor((4, 3, 3, 3), dtype)) -> R.Tensor((1, 4, 2, 2), dtype):
            y = R.nn.conv2d(x, w, strides=stride)  # expect: TVS011
            z = R.add(y, R.const(1, dtype))
            return z

    @I.ir_module
    class Plain:
        @R.function
        def main(x: R.Tensor(shape, dtype)):
            y = R.add(x, undefined_name)  # expect: TVS003
            return y

        @R.function
        def reduce_over(x: R.Tensor((4, 3), "float32")) -> R.Tensor((4,), "float32"):
            # axis is unknown here: taken as None it would reduce everything, a false TVS104 below
            y: R.Tensor((4,), "float32") = R.sum(x, axis=axis)
            return y

        @R.function
        def known_values(x: R.Tensor(shape, dtype), y: R.Tensor((n, 3), dtype)):
            # shape is (4, 4) and n is 8: read through the evaluator, so this is checked
            z = R.add(x, y)  # expect: TVS101
            return z

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
