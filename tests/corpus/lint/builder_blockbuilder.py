# A BlockBuilder program in TVM's test style: variables first, then the builder; every construct of
# the API the checks follow. A function nothing calls (a pytest test) is still checked.
import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def test_two_cpus():
    vdevices = [I.vdevice("llvm", 0), I.vdevice("llvm", 1)]
    m, n = 4, 8
    x = relax.Var("x", R.Tensor((m, n), "float32", vdevice=vdevices[0]))
    y = relax.Var("y", relax.TensorStructInfo((n, m), "float32", vdevices[0]))
    z = relax.Var("z", R.Tensor((m, m), "float32", vdevices[1]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y, z]):
        with bb.dataflow():
            lv0 = bb.emit(relax.op.matmul(x, y))
            lv1 = bb.emit(relax.op.to_vdevice(lv0, vdevices[1]))
            gv = bb.emit_output(relax.op.add(lv1, z))
        bb.emit_func_output(gv)
    mod = bb.get()
    mod.update_global_info("vdevice", vdevices)
    return mod


def test_mistakes():
    vdevices = [I.vdevice("llvm", 0), I.vdevice("llvm", 1)]
    a = relax.Var("a", R.Tensor((2, 3), "float32", vdevices[0]))
    b = relax.Var("b", R.Tensor((2, 3), "float32", vdevices[1]))
    c = relax.Var("c", R.Tensor((3, 2), "float32", vdevices[0]))
    bb = relax.BlockBuilder()
    with bb.function("main", [a, b, c]):
        s = bb.emit(relax.op.add(a, b))  # expect: TVS203
        t = bb.emit(relax.op.add(a, c))  # expect: TVS101
        u = bb.match_cast(t, R.Tensor((2, 3), "float32"))
        bb.emit_func_output(u)
    mod = tvm.IRModule({"main": bb.get()["main"]}, global_infos={"vdevice": vdevices})
    return mod


def test_constants_from_numpy():
    # relax.const of a numpy array the program makes: its shape and dtype are known statically.
    shape = (3, 4)
    w = relax.const(np.random.randn(*shape).astype("float32"))
    x = relax.Var("x", R.Tensor((4, 3), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        good = bb.emit(relax.op.matmul(x, w))
        bad = bb.emit(relax.op.add(x, w))  # expect: TVS101
        bb.emit_func_output(good)
    return bb.get()
