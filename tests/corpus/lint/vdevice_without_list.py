# TVS201 where no list can answer: a standalone @R.function, and a module whose global_infos has no
# "vdevice" key. A hint needs no list to be written (near miss): it is resolved by RealizeVDevice.
from tvm.script import ir as I
from tvm.script import relax as R


@R.function
def standalone(x: R.Tensor((4,), "float32", "cuda")) -> R.Tensor((4,), "float32"):  # expect: TVS201
    y = R.hint_on_device(x, R.cpu())
    return y


@I.ir_module
class NoKey:
    I.module_global_infos({"dummy": []})

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.to_vdevice(x, "llvm")  # expect: TVS201
        return y
