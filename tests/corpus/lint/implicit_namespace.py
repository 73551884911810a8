# R is used without `from tvm.script import relax as R`: tvms assumes it, and says so once.
from tvm.script import ir as I


@I.ir_module
class Module:
    @R.function  # expect: TVS010
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.exp(x)
        return y
