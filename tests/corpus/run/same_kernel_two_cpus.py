# run: main with x, y random float32; expected: (exp(x) on llvm:0, exp(y) on llvm:1).
# One kernel, two devices: both calls build the same exp kernel, which is compiled once, and each
# call runs on the device of its own output (a regression test: the last call site used to win).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("llvm", 1)]})

    @R.function
    def main(
        x: R.Tensor((1000,), "float32", "llvm:0"),
        y: R.Tensor((1000,), "float32", "llvm:1"),
    ) -> R.Tuple(R.Tensor((1000,), "float32", "llvm:0"), R.Tensor((1000,), "float32", "llvm:1")):
        a = R.exp(x)
        b = R.exp(y)
        return (a, b)
