# Devices of the VirtualMachine in every spelling TVM's Python takes, each read through the
# target-kind table: tvm.gpu (the old name of tvm.cuda), tvm.device("gpu"/"cpu"), and a constructor of a
# kind tvms knows but does not run (tvm.rocm), which is still another device than the module's cuda.
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm", 0)]})

    @R.function
    def main(x: R.Tensor((4,), "float32", "cuda")):
        y = R.add(x, x)
        z = R.to_vdevice(y, "llvm")
        return z


ex = relax.build(Module, target="cuda")
old_name = relax.VirtualMachine(ex, [tvm.gpu(0), tvm.cpu(0)])
by_string = relax.VirtualMachine(ex, [tvm.device("gpu", 0), tvm.device("cpu", 0)])
rocm = relax.VirtualMachine(ex, [tvm.rocm(0), tvm.cpu(0)])  # expect: TVS302
