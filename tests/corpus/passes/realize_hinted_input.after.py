# expected: x goes to cuda, the hint becomes the value itself.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((2,), "float32", "cuda")) -> R.Tensor((2,), "float32", "cuda"):
        a: R.Tensor((2,), "float32", "cuda") = x
        b: R.Tensor((2,), "float32", "cuda") = R.exp(a)
        return b
