# pass: RealizeVDevice (If branches tie the bound variable to what they use; the condition is not tied)
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(
        c: R.Tensor((), "bool", "llvm"), x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32", "cuda")
    ) -> R.Tensor((2,), "float32"):
        if c:
            r = R.add(x, y)
        else:
            r = R.multiply(x, x)
        return r
