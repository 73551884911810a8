# Standalone functions and modules nested in ordinary Python (as TVM's tests write them).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@R.function(private=True)
def standalone(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
    y = R.exp(x)
    return y


def test_something():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 2), "float32")) -> R.Tensor((2, 2), "float32"):
            y = R.multiply(x, x)
            return y

    return Before


class NotAModule:
    def method(self):
        return 1
