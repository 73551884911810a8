# A definition without a body (here one that ends in a comment at the end of the file) is a syntax
# error for CPython ("expected an indented block"), though tree-sitter-python accepts it; `tvms fmt`
# must leave it alone rather than add a body.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def unfinished(x: R.Tensor((2,), "float32")):  # expect: TVS001
        # the body is still to be written
