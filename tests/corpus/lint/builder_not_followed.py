# What the evaluator cannot follow is said once per construct (TVS011) and never becomes a false
# error: loops over data, an `if` on a value not known statically, TOPI functions through
# bb.emit_te, values read from files; everything around them is still checked.
import sys

import numpy as np
import tvm
from tvm import relax, topi
from tvm.script import ir as I
from tvm.script import relax as R


def make(shape, dtype="float32"):
    # A helper called with arguments: followed, its parameters bound to the values given.
    x = relax.Var("x", R.Tensor(shape, dtype))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = x
            for _ in range(3):  # expect: TVS011
                lv = bb.emit(relax.op.add(lv, lv))
            gv = bb.emit_output(lv)  # expect: TVS011
        bb.emit_func_output(gv)
    return bb.get()


mod = make((4, 4))
if len(sys.argv) > 1:  # expect: TVS011
    mod = make((8, 8))

weights = np.load("weights.npy")
w = relax.Var("w", R.Tensor(weights.shape, "float32"))  # expect: TVS011
bb = relax.BlockBuilder()
with bb.function("with_te", [w]):
    y = bb.emit_te(topi.add, w, w)  # expect: TVS011
    z = bb.emit(relax.op.multiply(y, y))
    bb.emit_func_output(z)
v = relax.Var("v", R.Tensor((2, 3), "float32"))
with bb.function("still_checked", [v]):
    bad = bb.emit(relax.op.add(v, relax.op.permute_dims(v)))  # expect: TVS101
    bb.emit_func_output(bad)

data = np.random.randn(*(4, 4)).astype("float32")
vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
out = vm["main"](tvm.nd.array(data))


def moved_in_a_loop():
    # The only use of devices[1] is in a loop not followed: no TVS209 (unused vdevice) for it.
    devices = [I.vdevice("llvm", 0), I.vdevice("llvm", 1)]
    x = relax.Var("x", R.Tensor((4,), "float32", devices[0]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        lv = x
        for _ in range(2):
            lv = bb.emit(relax.op.to_vdevice(lv, devices[1]))
        bb.emit_func_output(lv)  # expect: TVS011
    mod = bb.get()
    mod.update_global_info("vdevice", devices)
    return mod
