# The IRBuilder API with an I.ir_module() frame: global infos and several functions in one module,
# R.emit_match_cast, R.func_ret_struct_info, R.func_attr; and a BlockBuilder adding a @T.prim_func
# the file wrote (bb.add_func), whose R.call_tir is checked against it.
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T
from tvm.script.ir_builder import IRBuilder
from tvm.script.ir_builder import ir as ir_builder
from tvm.script.ir_builder import relax as relax_builder

devices = [I.vdevice("llvm", 0), I.vdevice("llvm", 1)]

with IRBuilder() as ib:
    with ir_builder.ir_module():
        I.module_global_infos({"vdevice": devices})
        with relax_builder.function():
            R.func_name("main")
            R.func_attr({"global_symbol": "main"})
            x = R.arg("x", R.Tensor((4, 4), "float32", devices[0]))
            R.func_ret_struct_info(R.Tensor((4, 4), "float32", devices[1]))
            y = R.emit(R.add(x, x))
            z = R.emit(R.to_vdevice(y, devices[1]))
            R.func_ret_value(z)
        with relax_builder.function():
            R.func_name("cast")
            a = R.arg("a", R.Tensor(("n",), "float32"))
            b = R.emit_match_cast(a, R.Tensor((8,), "float32"))
            c = R.emit(R.add(b, R.const(1.0, "float32")))
            d = R.emit(R.matmul(c, c))
            R.func_ret_value(R.add(c, R.const([1.0, 2.0, 3.0], "float32")))  # expect: TVS101
module = ib.get()


@T.prim_func
def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        B[i] = A[i] + T.float32(1)


x = relax.Var("x", R.Tensor((4,), "float32"))
bb = relax.BlockBuilder()
gv = bb.add_func(add_one, "add_one")
with bb.function("main", [x]):
    y = bb.emit(R.call_tir(gv, (x,), out_sinfo=R.Tensor((4,), "float32")))
    z = bb.emit(R.call_tir(gv, (y, y), out_sinfo=R.Tensor((4,), "float32")))  # expect: TVS107
    bb.emit_func_output(z)
mod = bb.get()
