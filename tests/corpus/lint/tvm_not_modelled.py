# What TVM accepts and tvms reads without modelling: R.emit_te (TVM runs the TE function, here a TOPI
# op, while parsing) and a tensor shaped by a Relax shape value. tvms says once per construct that it
# is not checked (TVS011) and checks the rest; fmt leaves the module as written.
from tvm import topi
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class EmitTE:
    my_ext = R.ExternFunc("my_ext")  # expect: TVS011
    @R.function
    def main(x: R.Tensor((10, 20), "float32")) -> R.Tensor((10, 20), dtype="float32"):
        lv1 = R.emit_te(topi.add, x, x)  # expect: TVS011
        out = R.emit_te(topi.multiply, lv1, lv1)
        bad = R.add(x, R.const(1, "int32"))  # expect: TVS102
        return out

    @R.function(pure=False)
    def shaped_by_value(x: R.Tensor((32, 4), "float32")) -> R.Object:
        sh: R.Shape = R.call_packed("shape_of", x, sinfo_args=R.Shape)
        lv: R.Tensor(sh, dtype="float32") = R.reshape(x, sh)  # expect: TVS011
        return lv

    @R.function
    def struct_info_of_a_value(x: R.Tensor(["N"], "float32")):
        N = T.int64()
        if N % 16 == 0:
            out = R.call_pure_packed("fast_impl", x, sinfo_args=[x.struct_info])  # expect: TVS011
        else:
            out = R.call_pure_packed("slow_impl", x, sinfo_args=[x.struct_info])
        return out

    @R.function
    def calls_the_extern(x: R.Tensor((4,), "float32")):
        cls = EmitTE
        y = R.call_dps_packed(cls.my_ext, (x,), out_sinfo=R.Tensor((4,), "float32"))
        return y
