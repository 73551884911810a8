# pass: RealizeVDevice (a hinted input that nothing else places takes the hint's device: no copy)
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        a = R.hint_on_device(x, R.cuda(0))
        b = R.exp(a)
        return b
