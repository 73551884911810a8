# A nested @R.function closure: kept as written and not checked (a TVS011 note); calls of it are
# checked against its signature.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def with_closure(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        # a closure
        @R.function
        def inner(y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):  # expect: TVS011
            z = R.add(y, y)  # doubled
            return z

        w = inner(x)
        return w

    @R.function
    def calls_it_wrongly(x: R.Tensor((4, 4), "float32")):
        @R.function
        def inner(y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):  # expect: TVS011
            return y

        w = inner(x)  # expect: TVS104
        return w
