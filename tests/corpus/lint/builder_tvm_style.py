# TVM's own test style of builder programs: tirx.Var symbolic dimensions, the *Type struct info names,
# the relax.script.ir_builder spellings with a trailing underscore, a subroutine built while main is
# collected and called through the GlobalVar bb.emit_func_output returns, relax.call_dps_packed.
import tvm
from tvm import relax, tirx
from tvm.relax.script import ir_builder as R
from tvm.script.ir_builder.base import IRBuilder


def test_symbolic_and_subroutine():
    m = tirx.Var("m", "int64")
    n = tirx.Var("n", "int64")
    x = relax.Var("x", relax.TensorType([m, n], "float16"))
    y = relax.Var("y", relax.TensorType([n], "float16"))
    z = relax.Var("z", relax.TensorType([n, 4], "float16"))
    w = relax.Var("w", relax.TensorType([m, n, 2], "float16"))
    v = relax.Var("v", relax.TensorType([3], "float16"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y, z, w, v]):
        a = relax.Var("a", relax.TensorType([m, n], "float16"))
        b = relax.Var("b", relax.TensorType([n], "float16"))
        with bb.function("subroutine", [a, b]):
            s = bb.emit(relax.op.add(a, b))
            subroutine = bb.emit_func_output(s)
        with bb.dataflow():
            lv0 = bb.emit(relax.op.add(x, y))
            lv1 = bb.emit(subroutine(lv0, y))
            bad = bb.emit(subroutine(w, y))  # expect: TVS104
            lv2 = bb.emit(relax.op.matmul(lv0, z))
            gv = bb.emit_output(relax.op.add(lv2, v))  # expect: TVS101
        bb.emit_func_output(gv)
    return bb.get()


def test_ir_builder_underscore_names():
    with IRBuilder() as ib:
        with R.function():
            R.func_name_("foo")
            x = R.arg_("x", relax.TensorType((128, 128), "float32"))
            R.func_ret_type_(relax.TensorType(dtype="float32", ndim=2))
            y = R.emit(R.call_dps_packed("extern_func", x, relax.TensorType((128, 128), dtype="float32")))
            v = R.emit_var_binding(relax.VarBinding(relax.Var("v"), y))  # expect: TVS011
            R.func_ret_value(y)
    return ib.get()
