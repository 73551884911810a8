# A return annotation that differs from the body: TVM trusts the annotation (the function's struct
# info is the annotation's), so this is a warning, not an error.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def trusted(x: R.Tensor((4,), "float32")) -> R.Tensor((8,), "float32"):
        return x  # expect: TVS105
