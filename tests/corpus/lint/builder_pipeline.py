# The pipeline around a module, read from the file and checked against it: the passes it names,
# partition_for_cublas, relax.build's target and the VirtualMachine's devices.
import tvm
from tvm import relax
from tvm.relax.backend.cuda.cublas import partition_for_cublas
from tvm.script import ir as I
from tvm.script import relax as R

vdevice = [I.vdevice("cuda", 0), I.vdevice("llvm")]


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": vdevice})

    @R.function
    def main(x: R.Tensor((4, 4), "float32", "cuda"), y: R.Tensor((4, 4), "float32", "cuda")):
        z = R.matmul(x, y)
        w = R.to_vdevice(z, "llvm")
        return w


mod = relax.transform.UpdateVDevice(vdevice[0], 0)(Module)
mod = tvm.transform.Sequential([relax.transform.RealizeVDevice(), relax.transform.LegalizeOps()])(mod)
mod = partition_for_cublas(mod)
relax.build(mod, target={"cuda": "cuda", "llvm": "llvm"})  # expect: TVS303
relax.build(mod, target="llvm")  # expect: TVS304
relax.build(mod, target="rocm")  # expect: TVS304
ex = relax.build(mod, target="cuda")
short = relax.VirtualMachine(ex, tvm.cuda(0))
swapped = relax.VirtualMachine(ex, [tvm.cpu(0), tvm.cuda(0)])  # expect: TVS302
vm = relax.VirtualMachine(ex, [tvm.cuda(0), tvm.cpu(0)])


def three_entries():
    devices = [I.vdevice("llvm", 0), I.vdevice("llvm", 1), I.vdevice("llvm", 2)]  # expect: TVS209
    x = relax.Var("x", R.Tensor((2,), "float32", devices[2]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        y = bb.emit(relax.op.add(x, x))
        bb.emit_func_output(y)
    mod = bb.get()
    mod.update_global_info("vdevice", devices)
    return relax.VirtualMachine(relax.build(mod), [tvm.cpu(0), tvm.cpu(1)])  # expect: TVS301
