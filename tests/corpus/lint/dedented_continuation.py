# Valid Python that tree-sitter-python cannot read: a line inside brackets that starts left of the
# line that opened them. tvms says so (TVS001 with the reason), where it used to report nothing at all:
# the parser's recovery swallows the imports and the module into one error.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((2,), "float32")):
        y = R.multiply(x, (x +  # expect: TVS001
x))
        return y
