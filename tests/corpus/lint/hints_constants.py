# TVS213: a hint on a constant records no placement; a hint on a variable is the near miss.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        c = R.hint_on_device(R.const(1.0, "float32"), R.cuda(0))  # expect: TVS213
        h = R.hint_on_device(x, R.cuda(0))
        return h
