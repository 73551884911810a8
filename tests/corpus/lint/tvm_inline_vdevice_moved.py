# An inline I.vdevice as R.to_vdevice's target (TVM moves the value without a lookup; only an op
# consuming it fails).
import tvm
from tvm.ir import VDevice
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("cuda", 0), I.vdevice("llvm")]})

    @R.function
    def only_moved(x: R.Tensor((4,), "float32", "cuda")):
        y = R.to_vdevice(x, I.vdevice("llvm"))
        return y

    @R.function
    def consumed(x: R.Tensor((4,), "float32", "cuda")):
        y = R.to_vdevice(x, I.vdevice("llvm"))  # expect: TVS202
        z = R.add(y, y)
        return z

    @R.function
    def moved_python_api(x: R.Tensor((4,), "float32", "cuda")):
        y = R.to_vdevice(x, tvm.ir.VDevice("llvm"))
        return y

    @R.function
    def consumed_python_api(x: R.Tensor((4,), "float32", "cuda")):
        y = R.to_vdevice(x, VDevice("llvm"))  # expect: TVS202
        z = R.multiply(y, y)
        return z
