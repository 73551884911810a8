# pass: RealizeVDevice (tuples and tuple items tie like any binding)
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

    @R.function
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32", "llvm")):
        t = (x, y)
        u = t[0]
        v = R.exp(u)
        return v
