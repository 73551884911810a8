# R.emit_te inside TVMScript: TVM runs the TE function (here a TOPI op) while parsing. tvms says once
# that the result is not checked (TVS011) and checks the rest; fmt leaves the module as written.
from tvm import topi
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class EmitTE:
    @R.function
    def main(x: R.Tensor((10, 20), "float32")) -> R.Tensor((10, 20), dtype="float32"):
        lv1 = R.emit_te(topi.add, x, x)  # expect: TVS011
        out = R.emit_te(topi.multiply, lv1, lv1)
        bad = R.add(x, R.const(1, "int32"))  # expect: TVS102
        return out
